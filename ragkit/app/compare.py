"""Comparing two pipelines on the same question: overlap of their hit lists and how shared chunks moved.

Overlap is measured by **content**, not chunk ids: two configs with different chunkers never share an id,
yet they often retrieve the same passage. A hit of A and a hit of B match when they share characters of the
same document by the evidence rule (overlap ≥ half of either chunk; same chunker: same id). Hits are paired
greedily in A's rank order, each with the unpaired B hit it overlaps most; Jaccard and rank-biased overlap
are computed over those pairs (a pair counts as one shared item).

Pure functions; rank-biased overlap follows Webber, Moffat & Zobel (2010), extrapolated form (RBO_ext).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.core.types import Hit
from ragkit.evaluation.datasets.evidence import COVER_SHARE, chunk_size, chunk_spans, overlap


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
    """How two hit lists relate: the pairs of hits holding the same passage, rank in each, overlap."""

    shared: tuple[str, ...]  # A's ids of the paired hits, in A's order
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]
    rank_a: dict[str, int]
    rank_b: dict[str, int]
    jaccard: float
    rbo: float
    pairs: dict[str, str] = field(default_factory=dict)  # A's chunk id -> B's chunk id it matches
    by: str = "content"  # "id" (same chunker) or "content" (character overlap)

    def shift(self, chunk_id: str) -> int | None:
        """How many places the passage moved from A to B (positive: higher in B); None if not shared.
        ``chunk_id`` may be A's or B's id of the pair."""
        back = {b: a for a, b in self.pairs.items()}
        a_id = chunk_id if chunk_id in self.pairs else back.get(chunk_id)
        if a_id is None:
            return None
        return self.rank_a[a_id] - self.rank_b[self.pairs[a_id]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "shared": list(self.shared),
            "pairs": dict(self.pairs),
            "only_a": list(self.only_a),
            "only_b": list(self.only_b),
            "jaccard": self.jaccard,
            "rbo": self.rbo,
            "by": self.by,
        }


def _same_passage(a: Any, b: Any) -> int:
    """Characters hits ``a`` and ``b`` share when they hold the same passage by the evidence rule, else 0."""
    if a.chunk.chunk_id == b.chunk.chunk_id:
        return max(1, chunk_size(a.chunk))
    if a.chunk.source != b.chunk.source:
        return 0
    ov = overlap(chunk_spans(a.chunk), chunk_spans(b.chunk))
    if ov and (ov >= COVER_SHARE * chunk_size(a.chunk) or ov >= COVER_SHARE * chunk_size(b.chunk)):
        return ov
    return 0


def compare_hits(a: Sequence[Hit], b: Sequence[Hit], p: float = 0.9) -> HitComparison:
    """Pair A's and B's hits that hold the same passage, and measure the overlap of the two lists."""
    ids_a = [h.chunk_id for h in a]
    ids_b = [h.chunk_id for h in b]
    pairs: dict[str, str] = {}
    used: set[int] = set()
    for ha in a:
        best, best_ov = None, 0
        for j, hb in enumerate(b):
            if j in used:
                continue
            ov = _same_passage(ha, hb)
            if ov > best_ov:
                best, best_ov = j, ov
        if best is not None:
            used.add(best)
            pairs[ha.chunk_id] = b[best].chunk_id
    back = {v: k for k, v in pairs.items()}
    # B's list in A's vocabulary: a paired hit takes A's id, so overlap measures count it as shared
    mapped_b = [back.get(i, f"b:{i}") for i in ids_b]
    same_chunker = bool(ids_a and ids_b) and {i.rsplit("-", 2)[-2] for i in ids_a if i.count("-") >= 2} == {
        i.rsplit("-", 2)[-2] for i in ids_b if i.count("-") >= 2
    }
    return HitComparison(
        shared=tuple(i for i in ids_a if i in pairs),
        only_a=tuple(i for i in ids_a if i not in pairs),
        only_b=tuple(i for i in ids_b if i not in back),
        rank_a={h.chunk_id: h.rank for h in a},
        rank_b={h.chunk_id: h.rank for h in b},
        jaccard=jaccard(ids_a, mapped_b),
        rbo=rank_biased_overlap(ids_a, mapped_b, p),
        pairs=pairs,
        by="id" if same_chunker else "content",
    )


@dataclass
class QuestionComparison:
    """Both answers to one question, how their hits overlap, and the record saved for it."""

    question: str
    a: Any  # ragkit.pipeline.Answer (typed loosely to keep this module free of the pipeline import)
    b: Any
    hits: HitComparison
    gold: tuple[str, ...] = ()  # gold answers from the batch file, when it has them

    def gold_verdict(self) -> str:
        """Which answer holds a gold answer (SQuAD-normalised; an abstention holds none): "A", "B",
        "tie" (both or neither), or "" without gold answers."""
        if not self.gold:
            return ""
        from ragkit.evaluation.metrics.answers import contains_gold

        hit_a, hit_b = (not x.abstained and contains_gold(x.text, self.gold) > 0 for x in (self.a, self.b))
        return "A" if hit_a and not hit_b else "B" if hit_b and not hit_a else "tie"

    def row(self) -> dict[str, Any]:
        """A flat summary row for the batch table."""

        def conf(ans: Any) -> float | None:
            return round(ans.confidence.value, 3) if ans.confidence is not None else None

        return {
            "question": self.question,
            "gold": " | ".join(self.gold),
            "by gold": self.gold_verdict(),
            "A confidence": conf(self.a),
            "B confidence": conf(self.b),
            "A abstained": self.a.abstained,
            "B abstained": self.b.abstained,
            "jaccard": round(self.hits.jaccard, 3),
            "rbo": round(self.hits.rbo, 3),
            "A latency ms": round(self.a.latency_ms, 1),
            "B latency ms": round(self.b.latency_ms, 1),
            "A cached": ", ".join(self.a.cached_stages),
            "B cached": ", ".join(self.b.cached_stages),
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


def compare_question(
    pipe_a: Any, pipe_b: Any, question: str, *, swap: bool = False, gold: Sequence[str] = ()
) -> QuestionComparison:
    """Ask both pipelines the same question, each cold: models are loaded first (outside any latency)
    and each config embeds its own query, so neither is timed on the other's (or an earlier page's)
    cached work. ``swap`` asks B first (alternate it over a batch so drifts fall on both alike)."""
    for pipe in (pipe_a, pipe_b):
        pipe.warm_up()
    answers: dict[str, Any] = {}
    for name, pipe in (("b", pipe_b), ("a", pipe_a)) if swap else (("a", pipe_a), ("b", pipe_b)):
        clear = getattr(pipe.embedder, "clear_query_cache", None)
        if clear is not None:
            clear()
        answers[name] = pipe.ask(question)
    a, b = answers["a"], answers["b"]
    return QuestionComparison(question, a, b, compare_hits(a.hits, b.hits), tuple(gold))


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

    def median_latency(side: str) -> float | None:
        # an answer with a cached stage is not a fair latency sample: left out of the median
        vals = [r[f"{side} latency ms"] for r in rows if not r.get(f"{side} cached")]
        return round(statistics.median(vals), 1) if vals else None

    return {
        "questions": n,
        "A mean confidence": mean("A confidence"),
        "B mean confidence": mean("B confidence"),
        "A abstention rate": round(sum(bool(r["A abstained"]) for r in rows) / n, 3),
        "B abstention rate": round(sum(bool(r["B abstained"]) for r in rows) / n, 3),
        "mean jaccard": mean("jaccard"),
        "mean rbo": mean("rbo"),
        "A median latency ms": median_latency("A"),
        "B median latency ms": median_latency("B"),
        "latency samples left out (cached)": sum(
            bool(r.get(k)) for r in rows for k in ("A cached", "B cached")
        ),
        "A better": votes.count("A"),
        "B better": votes.count("B"),
        "tie": votes.count("tie"),
        "unjudged": sum(1 for v in votes if v not in ("A", "B", "tie")),
    }


def parse_batch(text: str, filename: str | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """``(question, gold answers)`` from pasted text (one question per line, ``#`` comments) or an uploaded
    .txt / .csv (a ``question`` column, optional ``gold_answer`` with several separated by ``|``; SimpleQA's
    ``problem, answer`` as published)."""
    if filename and filename.lower().endswith(".csv"):
        import csv
        import io

        reader = csv.DictReader(io.StringIO(text))
        fields = {f.strip().lower(): f for f in reader.fieldnames or []}
        q_col = fields.get("question") or fields.get("problem")
        gold_col = fields.get("gold_answer") or (fields.get("answer") if "problem" in fields else None)
        if q_col is None:
            from ragkit.core.errors import ConfigError

            raise ConfigError(f"{filename}: a CSV of questions needs a 'question' column")
        out = []
        for r in reader:
            q = (r.get(q_col) or "").strip()
            if q:
                gold = (r.get(gold_col) or "") if gold_col else ""
                out.append((q, tuple(g.strip() for g in gold.split("|") if g.strip())))
        return out
    return [(line.strip(), ()) for line in text.splitlines() if line.strip() and not line.startswith("#")]
