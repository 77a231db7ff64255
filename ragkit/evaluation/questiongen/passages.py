"""Passages to write questions from: cut from the parsed documents (never from one chunker's chunks, so
the questions judge every chunker), in an order that covers every document and every part of a long one.

The order is prefix-stable: the first ``n`` passages of a larger sample are the ``n`` of a smaller one, so
a larger set reuses what a smaller one generated (the cache keys by passage). Documents take turns (one
passage each per round, in a seeded order); within a document the passages come in bit-reversed order of
position (start, middle, quarters, …; another seed rotates where it starts), so any prefix is spread over
the whole document.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.ingestion.chunkers.sentence import sentences

#: a passage holds a few sentences: enough context for a question, short enough to quote from
MIN_CHARS, MAX_CHARS, MIN_WORDS = 200, 900, 25
_BLOCK = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Passage:
    """A piece of one page of one document: its text is ``page.text[start:end]``."""

    source: str
    page: int
    start: int
    end: int
    text: str

    @property
    def spans(self) -> tuple[tuple[int, int, int]]:
        return ((self.page, self.start, self.end),)

    @property
    def key(self) -> str:
        """What the generation cache keys on: where it is and what it says."""
        raw = f"{self.source}\x00{self.page}\x00{self.start}\x00{self.text}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


def page_passages(source: str, page: int, text: str) -> list[Passage]:
    """A page cut into passages: paragraphs (blank-line blocks) merged up to ``MIN_CHARS``, and long ones
    cut at sentence ends below ``MAX_CHARS``; passages with fewer than ``MIN_WORDS`` words are left out
    (headings, captions, page furniture)."""
    pieces: list[tuple[int, int]] = []
    pos = 0
    for m in [*_BLOCK.finditer(text), None]:
        end = len(text) if m is None else m.start()
        if text[pos:end].strip():
            pieces.extend(_cut(text, pos, end))
        pos = len(text) if m is None else m.end()
    merged: list[list[int]] = []
    for s, e in pieces:
        if merged and merged[-1][1] - merged[-1][0] < MIN_CHARS and e - merged[-1][0] <= MAX_CHARS:
            merged[-1][1] = e
        else:
            merged.append([s, e])
    out = []
    for s, e in merged:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        body = text[s:e]
        if len(body.split()) >= MIN_WORDS:
            out.append(Passage(source, page, s, e, body))
    return out


def _cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` as sentence runs of at most ``MAX_CHARS`` (a longer sentence stands alone)."""
    if end - start <= MAX_CHARS:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    for s, e in sentences(text, start, end) or [(start, end)]:
        if out and e - out[-1][0] <= MAX_CHARS:
            out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def _bit_reversed(n: int) -> list[int]:
    """0..n-1 in an order whose every prefix is spread evenly (van der Corput over the next power of 2)."""
    bits = max(1, (n - 1).bit_length())
    order = sorted(range(1 << bits), key=lambda i: int(f"{i:0{bits}b}"[::-1], 2))
    return [i for i in order if i < n]


def _spread(passages: list[Passage], seed: int, source: str) -> list[Passage]:
    """A document's passages in bit-reversed order, rotated by a seeded offset (seed 0: from the start),
    so another seed also picks other passages of each document, still spread over all of it."""
    n = len(passages)
    shift = 0 if seed == 0 else int(hashlib.sha256(f"{seed}\x01{source}".encode()).hexdigest(), 16) % n
    return [passages[(i + shift) % n] for i in _bit_reversed(n)]


def document_passages(doc: Any) -> list[Passage]:
    return [p for page in doc.pages for p in page_passages(doc.source, page.number, page.text)]


def cut_passages(documents: Sequence[Any]) -> dict[str, list[Passage]]:
    """Every document's passages, by document name (cut once, sampled as often as needed)."""
    return {d.source: document_passages(d) for d in documents}


def sample_passages(
    documents: Sequence[Any], n: int, seed: int = 0, per_doc: dict[str, list[Passage]] | None = None
) -> list[Passage]:
    """The first ``n`` passages of the covering order described in the module docstring (``per_doc``:
    the documents' passages if :func:`cut_passages` already cut them)."""
    per_doc = cut_passages(documents) if per_doc is None else per_doc
    order = sorted(per_doc, key=lambda s: hashlib.sha256(f"{seed}\x00{s}".encode()).hexdigest())
    queues = {s: _spread(per_doc[s], seed, s) for s in order if per_doc[s]}
    out: list[Passage] = []
    depth = 0
    while len(out) < n and any(depth < len(q) for q in queues.values()):
        for s in order:
            q = queues.get(s, [])
            if depth < len(q):
                out.append(q[depth])
                if len(out) == n:
                    break
        depth += 1
    return out


def partner(passage: Passage, pool: Sequence[tuple[Passage, set[str]]], analyzer: Any) -> Passage | None:
    """The passage of another document (or a distant part of the same one) sharing the most content
    words with ``passage``: the second half of a two-passage question. ``pool`` holds each candidate
    with its analysed terms (computed once per run)."""
    mine = set(analyzer(passage.text))
    best, best_score = None, 0.0
    for p, theirs in pool:
        if p.source == passage.source and p.page == passage.page and abs(p.start - passage.start) < MAX_CHARS:
            continue
        score = len(mine & theirs) / (len(mine | theirs) or 1)
        if score > best_score:
            best, best_score = p, score
    return best
