"""Front matter for questions about a document itself ("Who is the first author of the S2ORC paper?",
"When was the report published?"). Search ranks passages by what they say, and a title and author block
shares little with such a question: in the own-documents benchmark, the S2ORC paper's first chunk was not
among the top 50 for its first-author question. When a question asks for a document's authors or date,
the reader also reads that document's first chunk, after the ranking's head and marked as added; the
ranking itself, the retrieval gauge and every retrieval metric stay as searched. The trace says which
document and why."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ragkit.core.options import Option
from ragkit.core.types import Hit
from ragkit.llms.extractive.question import NAME

OPTIONS = (
    Option("front_matter", "bool", True, field="front_matter", added_later=True, advanced=True,
           label="Read a document's front matter for author and date questions",
           help="A question about a document's authors or date ('Who wrote the report?') also reads the "
           "document's first chunk (its title, byline and date), which search rarely ranks."),
)  # fmt: skip

#: the stage name an added hit carries (shown with its scores)
STAGE = "front matter"

_AUTHORS = re.compile(
    r"\b(?:(?:first|last|lead|senior|corresponding)\s+)?authors?\b|\bwho\s+(?:wrote|authored|signed)\b|"
    r"\bwritten\s+by\b",
    re.I,
)
_DATE = re.compile(
    r"\bwhen\s+was\s+(?:\S+\s+){0,8}?(?:published|written|released|issued|dated|submitted)\b|"
    r"\b(?:publication|release)\s+date\b",
    re.I,
)


def asks_about_document(question: str) -> str | None:
    """``"authors"`` or ``"date"`` when the question asks for a document's own metadata, else None."""
    if _AUTHORS.search(question):
        return "authors"
    if _DATE.search(question):
        return "date"
    return None


def subject_document(question: str, hits: Sequence[Hit], documents: dict[str, Any]) -> str | None:
    """The document the question is about: among the hits' documents (in rank order), the first whose
    file name or opening names what the question names ("the S2ORC paper"), else the top hit's."""
    names = {m.group(0).lower() for m in NAME.finditer(question, 1) if len(m.group(0)) > 2}
    ranked = [h.chunk.doc_id for h in hits if h.chunk.doc_id in documents]
    ranked = list(dict.fromkeys(ranked))
    for doc_id in ranked:
        doc = documents[doc_id]
        opening = f"{doc.source} {doc.pages[0].text[:400] if doc.pages else ''}".lower()
        if names and any(n in opening for n in names):
            return doc_id
    return ranked[0] if ranked else None


def add_front_matter(pipe: Any, question: str, hits: list[Hit], trace: dict[str, Any]) -> list[Hit]:
    """``hits`` with the subject document's first chunk appended when ``question`` asks for its authors
    or date and the chunk is not already read (see the module docstring)."""
    what = asks_about_document(question)
    store = getattr(pipe, "store", None)
    if what is None or not pipe.config.front_matter or store is None or not hits:
        return hits
    doc_id = subject_document(question, hits, store.documents)
    first = next((c for c in store.chunks if c.doc_id == doc_id), None)
    if first is None or any(h.chunk_id == first.chunk_id for h in hits):
        return hits
    rank = len(hits) + 1
    trace["front_matter"] = {
        "asks": what,
        "document": store.documents[doc_id].source,
        "chunk": first.chunk_id,
        "why": f"the question asks for a document's {what}; its first chunk holds its title, byline and date",
    }
    return [*hits, Hit(first, rank, 0.0, STAGE, {STAGE: 0.0}, {STAGE: rank})]
