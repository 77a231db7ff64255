"""Comparing two pipelines on the same question: overlap of their hit lists and how shared chunks moved.

Pure functions; rank-biased overlap follows Webber, Moffat & Zobel (2010), extrapolated form (RBO_ext).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.types import Hit


def jaccard(a: Sequence[str], b: Sequence[str]) -> float:
    """|A ∩ B| / |A ∪ B| of two id lists (1.0 for two empty lists)."""
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def rank_biased_overlap(a: Sequence[str], b: Sequence[str], p: float = 0.9) -> float:
    """RBO_ext of two rankings (top-weighted agreement in [0, 1]; ``p`` sets how top-heavy).

    Lists may differ in length and hold distinct items; identical rankings give 1, disjoint ones 0.
    """
    if not 0 < p < 1:
        raise ValueError("p must be in (0, 1)")
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    s, l_ = (a, b) if len(a) <= len(b) else (b, a)
    ls, ll = len(s), len(l_)
    # X_d: overlap of the two prefixes at depth d (beyond the short list's end, all of it)
    x = [len(set(s[:d]) & set(l_[:d])) for d in range(1, ll + 1)]
    x_s, x_l = x[ls - 1], x[ll - 1]
    total = sum((x[d - 1] / d) * p**d for d in range(1, ll + 1))
    total += sum((x_s * (d - ls) / (ls * d)) * p**d for d in range(ls + 1, ll + 1))
    return float((1 - p) / p * total + ((x_l - x_s) / ll + x_s / ls) * p**ll)


@dataclass(frozen=True)
class HitComparison:
    """How two hit lists relate: shared chunk ids, rank in each, and the overlap measures."""

    shared: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    rank_a: dict[str, int]
    rank_b: dict[str, int]
    jaccard: float
    rbo: float

    def shift(self, chunk_id: str) -> int | None:
        """How many places the chunk moved from A to B (positive: higher in B); None if not shared."""
        if chunk_id in self.rank_a and chunk_id in self.rank_b:
            return self.rank_a[chunk_id] - self.rank_b[chunk_id]
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "shared": list(self.shared),
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "jaccard": self.jaccard,
            "rbo": self.rbo,
        }


def compare_hits(a: Sequence[Hit], b: Sequence[Hit], p: float = 0.9) -> HitComparison:
    ids_a = [h.chunk_id for h in a]
    ids_b = [h.chunk_id for h in b]
    sb = set(ids_b)
    sa = set(ids_a)
    return HitComparison(
        shared=tuple(i for i in ids_a if i in sb),
        only_a=tuple(i for i in ids_a if i not in sb),
        only_b=tuple(i for i in ids_b if i not in sa),
        rank_a={h.chunk_id: h.rank for h in a},
        rank_b={h.chunk_id: h.rank for h in b},
        jaccard=jaccard(ids_a, ids_b),
        rbo=rank_biased_overlap(ids_a, ids_b, p),
    )


@dataclass
class QuestionComparison:
    """Both answers to one question, how their hits overlap, and the record saved for it."""

    question: str
    a: Any  # ragkit.pipeline.Answer (typed loosely to keep this module free of the pipeline import)
    b: Any
    hits: HitComparison

    def row(self) -> dict[str, Any]:
        """A flat summary row for the batch table."""

        def conf(ans: Any) -> float | None:
            return round(ans.confidence.value, 3) if ans.confidence is not None else None

        return {
            "question": self.question,
            "A confidence": conf(self.a),
            "B confidence": conf(self.b),
            "A abstained": self.a.abstained,
            "B abstained": self.b.abstained,
            "jaccard": round(self.hits.jaccard, 3),
            "rbo": round(self.hits.rbo, 3),
            "A latency ms": round(self.a.timings_ms.get("total", 0.0), 1),
            "B latency ms": round(self.b.timings_ms.get("total", 0.0), 1),
            "A answer": self.a.text,
            "B answer": self.b.text,
        }

    def record(self, config_a: Any, config_b: Any, better: str | None = None) -> dict[str, Any]:
        """What is appended to the collection's comparisons.jsonl: both configs in full."""
        import datetime as dt

        return {
            "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "question": self.question,
            "config_a": config_a.to_dict(),
            "config_a_hash": config_a.cache_key(),
            "config_b": config_b.to_dict(),
            "config_b_hash": config_b.cache_key(),
            "answer_a": self.a.to_dict(),
            "answer_b": self.b.to_dict(),
            "overlap": self.hits.to_dict(),
            "better": better,
        }


def compare_question(pipe_a: Any, pipe_b: Any, question: str) -> QuestionComparison:
    """Ask both pipelines the same question."""
    a = pipe_a.ask(question)
    b = pipe_b.ask(question)
    return QuestionComparison(question, a, b, compare_hits(a.hits, b.hits))


def batch_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Means and counts over a batch of comparison rows (``better`` votes counted when present)."""
    import statistics

    n = len(rows)
    if n == 0:
        return {"questions": 0}

    def mean(key: str) -> float | None:
        vals = [r[key] for r in rows if r.get(key) is not None]
        return round(statistics.fmean(vals), 3) if vals else None

    votes = [r.get("better") or "" for r in rows]
    return {
        "questions": n,
        "A mean confidence": mean("A confidence"),
        "B mean confidence": mean("B confidence"),
        "A abstention rate": round(sum(bool(r["A abstained"]) for r in rows) / n, 3),
        "B abstention rate": round(sum(bool(r["B abstained"]) for r in rows) / n, 3),
        "mean jaccard": mean("jaccard"),
        "mean rbo": mean("rbo"),
        "A median latency ms": round(statistics.median(r["A latency ms"] for r in rows), 1),
        "B median latency ms": round(statistics.median(r["B latency ms"] for r in rows), 1),
        "A better": votes.count("A"),
        "B better": votes.count("B"),
        "tie": votes.count("tie"),
        "unjudged": sum(1 for v in votes if v not in ("A", "B", "tie")),
    }


def parse_questions(text: str, filename: str | None = None) -> list[str]:
    """Questions from pasted text (one per line) or an uploaded .txt / .csv (a ``question`` column)."""
    if filename and filename.lower().endswith(".csv"):
        import csv
        import io

        reader = csv.DictReader(io.StringIO(text))
        field = next((f for f in (reader.fieldnames or []) if f.strip().lower() == "question"), None)
        if field is None:
            from ragkit.errors import ConfigError

            raise ConfigError(f"{filename}: a CSV of questions needs a 'question' column")
        return [r[field].strip() for r in reader if (r.get(field) or "").strip()]
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
