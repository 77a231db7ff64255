"""Relevance labels made in the UI: pooled candidates, saved with the collection, used as chunk qrels.

For a question, the candidates are the union of the chunks several configurations retrieved (A ∪ B),
shown in an order that depends only on the question and the chunk (a hash), so neither configuration's
ranking leaks into the judging. Labels are kept in ``<collection>/labels.jsonl`` (rewritten atomically).

A hit counts against the labels through its chunk id; a chunk from another chunker (other ids) counts
as the labelled chunk it mostly lies within (at least half its characters), so a config with a
different chunker is judged by the same labels instead of scoring zero.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ragkit.evaluation.datasets import LabelledQuestion
from ragkit.store import atomic_write
from ragkit.types import Chunk, Hit

LABELS_FILE = "labels.jsonl"
OVERLAP_SHARE = 0.5


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


def candidates_for(question: str, pipelines: Sequence[object]) -> list[Chunk]:
    """The pooled candidates of several pipelines for one question (each retrieves its own top-k)."""
    hit_lists = [p.retriever.search(question, p.config.top_k) for p in pipelines]  # type: ignore[attr-defined]
    return pool_candidates(question, hit_lists)


@dataclass(frozen=True)
class Label:
    question: str
    chunk_id: str
    source: str
    spans: tuple[tuple[int, int, int], ...]
    relevant: bool
    at: str = ""

    def to_dict(self) -> dict:
        return {
            "qid": question_id(self.question),
            "question": self.question,
            "chunk_id": self.chunk_id,
            "source": self.source,
            "spans": [list(s) for s in self.spans],
            "relevant": self.relevant,
            "at": self.at,
        }


def _overlap(chunk: Chunk, label: Label) -> int:
    """Characters of ``chunk`` that lie inside ``label``'s spans (same source, same page)."""
    if chunk.source != label.source:
        return 0
    total = 0
    for s in chunk.spans:
        for page, start, end in label.spans:
            if page == s.page:
                total += max(0, min(s.end, end) - max(s.start, start))
    return total


class LabelSet:
    """All labels of one collection, by question id then chunk id; the latest label wins."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._labels: dict[str, dict[str, Label]] = {}  # question id -> chunk id -> label
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                d = json.loads(line)
                lab = Label(
                    d["question"],
                    d["chunk_id"],
                    d["source"],
                    tuple(tuple(s) for s in d["spans"]),
                    bool(d["relevant"]),
                    d.get("at", ""),
                )
                self._labels.setdefault(question_id(lab.question), {})[lab.chunk_id] = lab

    @classmethod
    def for_collection(cls, collection: object) -> LabelSet:
        return cls(Path(collection.path) / LABELS_FILE)  # type: ignore[attr-defined]

    def __len__(self) -> int:
        return sum(len(x) for x in self._labels.values())

    def set(self, question: str, chunk: Chunk, relevant: bool) -> None:
        """Label one chunk for one question (in memory; :meth:`save` writes)."""
        spans = tuple((s.page, s.start, s.end) for s in chunk.spans)
        at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self._labels.setdefault(question_id(question), {})[chunk.chunk_id] = Label(
            question.strip(), chunk.chunk_id, chunk.source, spans, relevant, at
        )

    def save(self) -> None:
        labels = [self._labels[q][c] for q in sorted(self._labels) for c in sorted(self._labels[q])]
        atomic_write(
            self.path,
            lambda f: f.writelines(json.dumps(x.to_dict(), ensure_ascii=False) + "\n" for x in labels),
        )

    def for_question(self, question: str) -> dict[str, Label]:
        """chunk id -> label for this question."""
        return dict(self._labels.get(question_id(question), {}))

    def questions(self) -> list[LabelledQuestion]:
        """Every labelled question as a chunk-level question (relevant = chunks labelled relevant; a
        question whose candidates were all judged not relevant has no evidence in the collection)."""
        out = []
        for qid in sorted(self._labels):
            labs = [self._labels[qid][c] for c in sorted(self._labels[qid])]
            out.append(
                LabelledQuestion(
                    qid, labs[0].question, (), tuple((x.chunk_id, 1) for x in labs if x.relevant)
                )
            )
        return out

    def judgement_unit(self, question: str, chunk: Chunk) -> str:
        """The labelled chunk id this chunk counts as: itself if labelled, else the labelled chunk holding
        at least half of its characters, else its own (unjudged, hence not relevant) id."""
        labels = self._labels.get(question_id(question), {})
        if chunk.chunk_id in labels:
            return chunk.chunk_id
        size = sum(s.end - s.start for s in chunk.spans) or 1
        best, best_overlap = chunk.chunk_id, 0
        for cid, lab in labels.items():
            ov = _overlap(chunk, lab)
            if ov > best_overlap:
                best, best_overlap = cid, ov
        return best if best_overlap >= OVERLAP_SHARE * size else chunk.chunk_id
