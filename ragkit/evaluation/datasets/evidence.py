"""Evidence as passages, not chunk ids: how any chunk of any chunker is judged against the same labels.

A label marks a **passage**: character spans ``(page, start, end)`` of one document — a labelled chunk's
own spans, or a quote the user searched for. Overlapping or touching passages of one document are merged
into one **evidence unit**. The rule that judges a retrieved chunk (pure, stated once, used everywhere):

    chunk *covers* unit  ⇔  overlap ≥ 50 % of the unit  or  overlap ≥ 50 % of the chunk

(overlap = characters the chunk and the unit share). The first clause credits a chunk that holds most of
the evidence (a big chunk around it); the second a chunk that lies mostly inside it (a sentence of a
labelled paragraph). So labels made from a 500-character window score a 3-sentence chunker and a Markdown
chunker fairly, instead of only the chunker that made them.

**Ranking.** The metrics run on ragkit's own order of hits, expanded to units: each hit in turn stands for
the units it newly covers (most overlap first), or for a non-relevant item when it covers none. A chunk
covering two units is two relevant items in a row; a second chunk covering an already credited unit is
non-relevant (a duplicate, as for documents). nDCG/Recall/MRR are then computed by ir-measures on that
list against qrels ``{unit: 1}``.

**Gold-answer passages** are a second, clearly named relevance source: a hit is relevant when its text
contains the SQuAD-normalised gold answer; only the first such hit counts (one unit, "gold").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.core.folding import find_folded, fold
from ragkit.evaluation.metrics.answers import contains_gold, normalize_answer

COVER_SHARE = 0.5
SpanT = tuple[int, int, int]  # (page, start, end)


@dataclass(frozen=True)
class Evidence:
    """One evidence unit: merged character spans of one document."""

    unit_id: str
    source: str
    spans: tuple[SpanT, ...]

    @property
    def size(self) -> int:
        return sum(e - s for _, s, e in self.spans)

    def to_list(self) -> list:
        return [self.unit_id, self.source, [list(s) for s in self.spans]]

    @classmethod
    def from_list(cls, x: Sequence) -> Evidence:
        return cls(str(x[0]), str(x[1]), tuple(tuple(s) for s in x[2]))  # type: ignore[misc]


def merge_passages(passages: Iterable[tuple[str, Sequence[SpanT]]]) -> list[Evidence]:
    """Passages ``(source, spans)`` -> evidence units ``e1, e2, …``: overlapping or touching spans of one
    document and page merge, and passages that share a merged span become one unit."""
    by_source: dict[str, list[list[SpanT]]] = {}
    for source, spans in passages:
        if spans:
            by_source.setdefault(source, []).append([tuple(s) for s in spans])  # type: ignore[misc]
    units: list[tuple[str, tuple[SpanT, ...]]] = []
    for source in sorted(by_source):
        groups = by_source[source]
        # union-find over passages that overlap on some page
        parent = list(range(len(groups)))
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                if _touch(groups[i], groups[j]):
                    parent[_find(parent, i)] = _find(parent, j)
        merged: dict[int, list[SpanT]] = {}
        for i, spans in enumerate(groups):
            merged.setdefault(_find(parent, i), []).extend(spans)
        for spans in merged.values():
            units.append((source, _union(spans)))
    units.sort(key=lambda u: (u[0], u[1][0]))
    return [Evidence(f"e{i}", s, spans) for i, (s, spans) in enumerate(units, start=1)]


def _find(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _touch(a: Sequence[SpanT], b: Sequence[SpanT]) -> bool:
    return any(pa == pb and sa <= eb and sb <= ea for pa, sa, ea in a for pb, sb, eb in b)


def _union(spans: Iterable[SpanT]) -> tuple[SpanT, ...]:
    out: list[list[int]] = []
    for page, start, end in sorted(spans):
        if out and out[-1][0] == page and start <= out[-1][2]:
            out[-1][2] = max(out[-1][2], end)
        else:
            out.append([page, start, end])
    return tuple((p, s, e) for p, s, e in out)


def chunk_spans(chunk: Any) -> tuple[SpanT, ...]:
    return tuple((s.page, s.start, s.end) for s in chunk.spans)


def chunk_size(chunk: Any) -> int:
    return sum(e - s for _, s, e in chunk_spans(chunk)) or 1


def overlap(spans_a: Sequence[SpanT], spans_b: Sequence[SpanT]) -> int:
    """Characters two span lists share (same page, intersecting ranges)."""
    total = 0
    for pa, sa, ea in spans_a:
        for pb, sb, eb in spans_b:
            if pa == pb:
                total += max(0, min(ea, eb) - max(sa, sb))
    return total


def chunk_overlap(chunk: Any, unit: Evidence) -> int:
    if chunk.source != unit.source:
        return 0
    return overlap(chunk_spans(chunk), unit.spans)


def covers(chunk: Any, unit: Evidence) -> bool:
    """The coverage rule of the module docstring."""
    ov = chunk_overlap(chunk, unit)
    return ov > 0 and (ov >= COVER_SHARE * unit.size or ov >= COVER_SHARE * chunk_size(chunk))


def covered_units(chunk: Any, units: Sequence[Evidence]) -> list[Evidence]:
    """The units ``chunk`` covers, most overlap first."""
    found = [(chunk_overlap(chunk, u), u) for u in units if covers(chunk, u)]
    return [u for _, u in sorted(found, key=lambda x: (-x[0], x[1].unit_id))]


def evidence_ranking(chunks: Sequence[Any], units: Sequence[Evidence]) -> list[str]:
    """ragkit's ranking of ``chunks`` expanded to evidence units (see the module docstring): unit ids for
    newly covered units, ``_n<rank>`` placeholders for chunks that cover nothing new."""
    seen: set[str] = set()
    out: list[str] = []
    for rank, c in enumerate(chunks, start=1):
        new = [u.unit_id for u in covered_units(c, units) if u.unit_id not in seen]
        if new:
            out.extend(new)
            seen.update(new)
        else:
            out.append(f"_n{rank}")
    return out


def evidence_precision(chunks: Sequence[Any], units: Sequence[Evidence]) -> float:
    """Share of the retrieved characters that are labelled evidence (how much of what the LLM reads is
    the passage itself): high for precise chunks, low for big ones around a short passage."""
    total = sum(chunk_size(c) for c in chunks)
    if not total:
        return 0.0
    inside = 0
    for c in chunks:
        spans = [s for u in units if u.source == c.source for s in u.spans]
        inside += min(chunk_size(c), overlap(chunk_spans(c), spans))
    return inside / total


def gold_ranking(texts: Sequence[str], answers: Sequence[str]) -> list[str]:
    """``"gold"`` at the rank of the first text that contains a gold answer; placeholders elsewhere."""
    out: list[str] = []
    found = False
    for rank, t in enumerate(texts, start=1):
        if not found and contains_gold(t, answers):
            out.append("gold")
            found = True
        else:
            out.append(f"_n{rank}")
    return out


def locate_quote(
    quote: str, documents: Iterable[Any], source: str | None = None
) -> list[tuple[str, list[SpanT]]]:
    """Where ``quote`` occurs in the documents (compared as :func:`locate_in_text` does): ``(source,
    spans)`` per occurrence, at most one per page. Used for evidence typed as a quote (the Label tab, CSV
    sets)."""
    if len(fold(quote)) < 3:
        return []
    out: list[tuple[str, list[SpanT]]] = []
    for doc in documents:
        if source is not None and doc.source != source:
            continue
        for page in doc.pages:
            found = locate_in_text(quote, page.text)
            if found is not None:
                out.append((doc.source, [(page.number, *found)]))
    return out


def locate_in_text(quote: str, text: str) -> tuple[int, int] | None:
    """``(start, end)`` of the first occurrence of ``quote`` in ``text``, compared as a person compares a
    quote with a page (case, spacing, dashes, quote marks and Markdown markup ignored: see
    :mod:`ragkit.core.folding`)."""
    return find_folded(quote, text)


__all__ = [
    "COVER_SHARE",
    "Evidence",
    "chunk_overlap",
    "covered_units",
    "covers",
    "evidence_precision",
    "evidence_ranking",
    "gold_ranking",
    "locate_in_text",
    "locate_quote",
    "merge_passages",
    "normalize_answer",
    "overlap",
]
