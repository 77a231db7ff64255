"""The extractive backend: no language model. It answers with what the retrieved chunks say that answers
the question — a sentence, a table row under its header, a code block — each followed by its citation,
and says how well that evidence answers (its *answerability*), so the pipeline can abstain when the topic
is there but the answer is not. Instant, deterministic, always grounded: the default when no Groq key or
Ollama server is available.

The parts: :mod:`.question` reads what the question asks for, :mod:`.units` finds the candidates (never
page furniture; a sentence cut by a chunk's edge is completed only from other retrieved chunks, and then
cites them too), :mod:`.select` chooses and measures. The document's own bracketed numbers stay text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component
from ragkit.llms.base import FALLBACK_ANSWER, Generation, GenerationRequest, LLMContext, documents_own_markers
from ragkit.llms.extractive.lemmas import base_forms
from ragkit.llms.extractive.question import analyze
from ragkit.llms.extractive.select import Choice, Scored, choose, score_units
from ragkit.llms.extractive.signals import same_document
from ragkit.llms.extractive.units import Unit, collect


class ExtractiveReader:
    """Answers with the source sentences, table rows or code blocks that answer the question: a reader,
    not a language model (it writes nothing of its own).

    Args:
        embedder: any object with ``embed(texts)`` and ``embed_query(text)`` returning unit vectors.
        store: the index the sources come from; with it, sentences are read whole from the page and the
            document's running headers and footers are recognised.
        max_chars: the longest sentence quoted whole; longer ones are cut at a word.
        fallback: what it says when nothing was retrieved.
    """

    component = Component(
        "llm",
        "extractive",
        "no language model: the retrieved sentence, table row or code block that answers, each cited",
        generative=False,
        extras={"answerability": True},
    )
    name = "extractive"

    @classmethod
    def from_context(cls, ctx: LLMContext) -> ExtractiveReader:
        if ctx.embedder is None:
            raise ConfigError("the extractive backend needs the index's embedder")
        return cls(ctx.embedder, store=ctx.store, **({"fallback": ctx.fallback} if ctx.fallback else {}))

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        """Why it cannot run here: never (it needs nothing)."""
        return None

    def __init__(
        self, embedder: Any, store: Any | None = None, max_chars: int = 400, fallback: str = FALLBACK_ANSWER
    ) -> None:
        self.fallback = fallback
        self.embedder = embedder
        self.model = f"extractive:{embedder.model_id}"
        self.store = store
        self.max_chars = max_chars
        self._analyzer = None
        self._doc_terms: dict[tuple[str, str], set[str]] = {}

    def terms(self, text: str) -> set[str]:
        if self._analyzer is None:
            from ragkit.retrievers.analyzer import Analyzer

            self._analyzer = Analyzer()
        return set(self._analyzer(base_forms(text)))

    def units(self, request: GenerationRequest) -> list[Unit]:
        documents = self.store.documents if self.store is not None else None
        return collect(request.sources, documents)

    def read(self, request: GenerationRequest) -> tuple[list[Scored], Choice | None]:
        """Every candidate scored, and the choice (None when there is no candidate)."""
        units = self.units(request)
        if not units:
            return [], None
        spec = analyze(request.question, self.terms, request.follow_up, request.previous)
        q = self.embedder.embed_query(spec.focus)
        vecs = self.embedder.embed([f"{u.header}\n{u.text}" if u.header else u.text for u in units])
        scored, weight = score_units(spec, units, [float(x) for x in vecs @ q], self.terms)
        passages = {n: self.document_terms(h.chunk) for n, h in enumerate(request.sources, start=1)}
        return scored, choose(spec, scored, weight, self.terms, passages)

    def document_terms(self, chunk: Any) -> set[str]:
        """The terms of the chunk's whole document (its chunk alone without the index): where a question's
        subject may be named away from the sentence that answers."""
        doc = self.store.documents.get(chunk.doc_id) if self.store is not None else None
        if doc is None:
            return self.terms(chunk.text)
        key = (doc.doc_id, doc.sha256)
        if key not in self._doc_terms:
            if len(self._doc_terms) > 256:
                self._doc_terms.clear()
            text = doc.text
            self._doc_terms[key] = self.terms(text) | acronyms(text)
        return self._doc_terms[key]

    def generate(self, request: GenerationRequest) -> Generation:
        _, choice = self.read(request)
        if choice is None:
            meta = {"answerability": 0.0, "answerability_inputs": {"candidates": 0}, "units": []}
            return Generation(self.fallback, self.model, meta=meta)
        first = choice.units[0].unit
        inputs = {
            **choice.inputs,
            "same_document": same_document(first.sources or (first.source,), request.sources),
        }
        meta = {
            "answerability": choice.answerability,
            "answerability_inputs": inputs,
            "support": round(choice.units[0].score, 4),
            "units": [
                {
                    "source": s.unit.source,
                    "kind": s.unit.kind,
                    "score": round(s.score, 4),
                    "cosine": round(s.cosine, 4),
                }
                for s in choice.units
            ],
        }
        return Generation(self.compose(choice), self.model, meta=meta)

    def compose(self, choice: Choice) -> str:
        """The answer text: each unit as it reads in the document, then its citation(s)."""
        units = [s.unit for s in choice.units]
        first = units[0]
        if first.kind == "row":
            rows = "\n".join(spaced_cells(documents_own_markers(u.text)) for u in units)
            return f"{spaced_cells(documents_own_markers(first.header))}\n{rows}\n\n{cite(first)}"
        if first.kind == "code":
            intro = f"{documents_own_markers(first.header)}\n\n" if first.header else ""
            return f"{intro}{first.text}\n\n{cite(first)}"
        return " ".join(f"{documents_own_markers(cut(u.text, self.max_chars))} {cite(u)}" for u in units)

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        yield self.generate(request).text


_PHRASE = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of\s+|the\s+|and\s+)?[A-Z][a-z]+){1,4}")


def acronyms(text: str) -> set[str]:
    """The initials of a text's capitalised phrases ("United Methodist Church" -> "umc", "European
    Union" -> "eu"): a question may name by acronym what the document writes out."""
    out = set()
    for m in _PHRASE.finditer(text):
        words = [w for w in m.group(0).split() if w[0].isupper()]
        out.add("".join(w[0] for w in words).lower())
    return out


def spaced_cells(table: str) -> str:
    """Markdown table lines with a space either side of every ``|`` (the same table once rendered; as
    text, "|PubMed Central (OA)|2.6M|" reads as one word to a reader or a gold-answer match)."""
    return "\n".join(" ".join(re.sub(r"\s*\|\s*", " | ", line).split()) for line in table.splitlines())


def cite(unit: Unit) -> str:
    return "".join(f"[{n}]" for n in (unit.sources or (unit.source,)))


def cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    at = text.rfind(" ", 0, limit)
    return text[: at if at > limit // 2 else limit].rstrip(" ,;:") + " …"
