"""Relevance labels made in the UI, saved with the collection: evidence passages per question.

A label marks a **passage** — ``(document, character spans)`` — as evidence for a question, or as judged
not relevant. It comes from a retrieved chunk (the chunk's own spans), from a search over the whole
collection, or from a quote the user types (located in the documents). Because labels are spans, not chunk
ids, the same labels judge every chunker (see :mod:`ragkit.evaluation.datasets.evidence`).

A question has no evidence in the collection only when the user says so (``set_absent``); a question
whose pooled candidates were all judged not relevant is *unlabelled* (its evidence has not been found
yet), never "absent" by inference.

For a question, the pooled candidates are the union of the chunks several configurations retrieved
(A ∪ B), shown in an order that depends only on the question and the chunk (a hash), so neither
configuration's ranking leaks into the judging. Labels are kept in ``<collection>/labels.jsonl``
(rewritten atomically; the latest label for a passage wins). Files written before passages existed hold
chunk labels with their spans: they are read as passage labels, and saved in the new form.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.files import atomic_write
from ragkit.core.types import Chunk, Hit
from ragkit.evaluation.datasets.evidence import Evidence, SpanT, locate_quote, merge_passages
from ragkit.evaluation.datasets.loaders import LabelledQuestion

LABELS_FILE = "labels.jsonl"
VERSION = 2


def question_id(question: str) -> str:
    """A stable id for a labelled question (whitespace and case do not matter)."""
    norm = " ".join(question.lower().split())
    return "u" + hashlib.sha256(norm.encode()).hexdigest()[:10]


def pool_candidates(question: str, hit_lists: Sequence[Sequence[Hit]]) -> list[Chunk]:
    """The distinct chunks of every list, in a neutral order: sorted by a hash of (question, chunk id)."""
    chunks: dict[str, Chunk] = {}
    for hits in hit_lists:
        for h in hits:
            chunks.setdefault(h.chunk.chunk_id, h.chunk)

    def key(cid: str) -> str:
        return hashlib.sha256(f"{question}\x00{cid}".encode()).hexdigest()

    return [chunks[c] for c in sorted(chunks, key=key)]


def candidates_for(
    question: str, pipelines: Sequence[object], documents: Sequence[Any] | None = None
) -> list[Chunk]:
    """The pooled candidates of several pipelines for one question (each retrieves its own top-k). With
    ``documents`` (the collection's stored reading), a pipeline that reads the PDFs with another parser
    has its chunks' spans moved onto that reading, which every label is a passage of."""
    hit_lists = [
        [
            replace(h, chunk=on_stored(h.chunk, p.store, documents))
            for h in p.retriever.search(question, p.config.top_k)  # type: ignore[attr-defined]
        ]
        for p in pipelines
    ]
    return pool_candidates(question, hit_lists)


def search_collection(
    store: Any, query: str, k: int = 10, documents: Sequence[Any] | None = None
) -> list[Chunk]:
    """BM25 over every chunk of ``store`` (not just what a config retrieved): how the Label tab finds
    evidence that no configuration brought up (spans moved onto ``documents`` as above)."""
    from ragkit.retrievers.bm25 import BM25Retriever

    return [on_stored(h.chunk, store, documents) for h in BM25Retriever(store).search(query, k)]


def on_stored(chunk: Chunk, store: Any, documents: Sequence[Any] | None) -> Chunk:
    """``chunk`` of ``store`` as a passage of the stored reading ``documents`` (see :mod:`.reparse`)."""
    if not documents:
        return chunk
    from ragkit.evaluation.datasets.reparse import chunk_onto

    stored = next((d for d in documents if d.source == chunk.source), None)
    return chunk_onto(chunk, store.documents.get(chunk.doc_id), stored)


@dataclass(frozen=True)
class Label:
    """One judged passage for one question."""

    question: str
    source: str
    spans: tuple[SpanT, ...]
    relevant: bool
    chunk_id: str = ""  # the chunk it was labelled from, if any (provenance only)
    quote: str = ""  # the text the user typed, if it was located from a quote
    at: str = ""

    @property
    def key(self) -> tuple[str, tuple[SpanT, ...]]:
        return (self.source, self.spans)

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": VERSION,
            "qid": question_id(self.question),
            "question": self.question,
            "kind": "passage",
            "source": self.source,
            "spans": [list(s) for s in self.spans],
            "relevant": self.relevant,
            "chunk_id": self.chunk_id,
            "quote": self.quote,
            "at": self.at,
        }


@dataclass
class QuestionLabels:
    question: str
    passages: dict[tuple[str, tuple[SpanT, ...]], Label] = field(default_factory=dict)
    absent: bool = False
    absent_at: str = ""

    @property
    def relevant(self) -> list[Label]:
        return [x for x in self.passages.values() if x.relevant]

    def verdict(self, chunk: Chunk) -> bool | None:
        """The label given to exactly this chunk's passage, if any (what the UI pre-selects)."""
        lab = self.passages.get((chunk.source, tuple((s.page, s.start, s.end) for s in chunk.spans)))
        return None if lab is None else lab.relevant

    def evidence(self) -> list[Evidence]:
        return merge_passages((x.source, x.spans) for x in self.relevant)

    @property
    def status(self) -> str:
        """``evidence`` (passages marked relevant), ``absent`` (the user said there is none), or
        ``unlabelled`` (nothing relevant found yet: left out of every metric)."""
        if self.relevant:
            return "evidence"
        return "absent" if self.absent else "unlabelled"


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class LabelSet:
    """All labels of one collection, by question; the latest label of a passage wins."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._q: dict[str, QuestionLabels] = {}
        self._changed: dict[tuple[str, Any], Label] = {}  # what this set labelled since it was read
        self._absent_changed: set[str] = set()
        self.migrated = 0  # old chunk-id labels read (and rewritten as passages on save)
        if self.path.is_file():
            for n, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
                if line.strip():
                    try:
                        self._read(json.loads(line))
                    except (ValueError, KeyError, TypeError) as e:
                        raise RagkitError(f"{self.path.name}: line {n} is not a label ({e})") from None

    def _read(self, d: dict[str, Any]) -> None:
        q = self._entry(d["question"])
        if d.get("kind") == "absent":
            q.absent, q.absent_at = bool(d["absent"]), d.get("at", "")
            return
        if "v" not in d:
            self.migrated += 1  # version 1: a chunk label with the chunk's spans
        spans = tuple(tuple(int(x) for x in s) for s in d["spans"])
        lab = Label(
            q.question,
            d["source"],
            spans,  # type: ignore[arg-type]
            bool(d["relevant"]),
            d.get("chunk_id", ""),
            d.get("quote", ""),
            d.get("at", ""),
        )
        q.passages[lab.key] = lab

    def _entry(self, question: str) -> QuestionLabels:
        qid = question_id(question)
        if qid not in self._q:
            self._q[qid] = QuestionLabels(question.strip())
        return self._q[qid]

    @classmethod
    def for_collection(cls, collection: object) -> LabelSet:
        return cls(Path(collection.path) / LABELS_FILE)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return sum(len(q.passages) + int(q.absent) for q in self._q.values())

    # -------------------------------------------------------------- labelling

    def set(self, question: str, chunk: Chunk, relevant: bool) -> None:
        """Label a chunk's passage for one question (in memory; :meth:`save` writes)."""
        spans = tuple((s.page, s.start, s.end) for s in chunk.spans)
        self.set_passage(question, chunk.source, spans, relevant, chunk_id=chunk.chunk_id)

    def set_passage(
        self,
        question: str,
        source: str,
        spans: Sequence[SpanT],
        relevant: bool = True,
        *,
        chunk_id: str = "",
        quote: str = "",
    ) -> None:
        q = self._entry(question)
        lab = Label(q.question, source, tuple(tuple(s) for s in spans), relevant, chunk_id, quote, _now())  # type: ignore[misc]
        q.passages[lab.key] = lab
        self._changed[(question_id(question), lab.key)] = lab
        if relevant:
            q.absent = False  # evidence found: the question is answerable after all
            self._absent_changed.add(question_id(question))

    def add_quote(
        self, question: str, quote: str, documents: Sequence[Any], source: str | None = None
    ) -> int:
        """Mark every occurrence of ``quote`` in the documents as evidence; returns how many were found."""
        found = locate_quote(quote, documents, source)
        for src, spans in found:
            self.set_passage(question, src, spans, True, quote=quote.strip())
        return len(found)

    def set_absent(self, question: str, absent: bool = True) -> None:
        """Say explicitly that the collection holds no answer to ``question`` (or take that back)."""
        q = self._entry(question)
        q.absent, q.absent_at = absent, _now()
        self._absent_changed.add(question_id(question))

    def save(self) -> None:
        """Write this set's new labels onto the file's latest content, under a lock: labels another
        session saved since this set was read are kept (the latest label of a passage wins)."""
        from ragkit.core.files import file_lock

        with file_lock(self.path.with_name(f".{self.path.name}.lock"), "labels", timeout=30):
            latest = LabelSet(self.path)
            for (_qid, key), lab in self._changed.items():
                latest._entry(lab.question).passages[key] = lab
            for qid in self._absent_changed:
                mine = self._q[qid]
                theirs = latest._entry(mine.question)
                theirs.absent, theirs.absent_at = mine.absent, mine.absent_at
            latest._write()
        self._q, self._changed, self._absent_changed = latest._q, {}, set()
        self.migrated = 0

    def _write(self) -> None:
        lines: list[dict[str, Any]] = []
        for qid in sorted(self._q):
            q = self._q[qid]
            for key in sorted(q.passages):
                lines.append(q.passages[key].to_dict())
            if q.absent or q.absent_at:
                lines.append(
                    {
                        "v": VERSION,
                        "qid": qid,
                        "question": q.question,
                        "kind": "absent",
                        "absent": q.absent,
                        "at": q.absent_at,
                    }
                )
        atomic_write(
            self.path,
            lambda f: f.writelines(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
        )

    # -------------------------------------------------------------- reading

    def for_question(self, question: str) -> QuestionLabels:
        return self._q.get(question_id(question)) or QuestionLabels(question.strip())

    def questions(self) -> list[LabelledQuestion]:
        """Every labelled question: with evidence passages, explicitly without evidence (``absent``), or
        unlabelled (kept, so the run can say how many were left out)."""
        out = []
        for qid in sorted(self._q):
            q = self._q[qid]
            out.append(
                LabelledQuestion(qid, q.question, evidence=tuple(q.evidence()), absent=q.status == "absent")
            )
        return out

    def counts(self) -> dict[str, int]:
        """How many questions have evidence, are marked absent, or are still unlabelled."""
        out = {"evidence": 0, "absent": 0, "unlabelled": 0}
        for q in self._q.values():
            out[q.status] += 1
        return out
