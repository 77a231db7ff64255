"""Pure rank-fusion functions (no I/O, no models): reciprocal rank fusion and its weights."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]],
    weights: Mapping[str, float] | None = None,
    k: float = 60.0,
) -> list[tuple[str, float]]:
    """Fuse ranked id lists: ``score(d) = sum_i w_i / (k + rank_i(d))`` with 1-based ranks.

    Ids missing from a list contribute nothing from it. Ties break by the best rank any list gave
    the id, then by the id itself, so the output is deterministic.

    Args:
        rankings: retriever name -> ids, best first.
        weights: retriever name -> weight (default 1.0 each).
        k: the RRF constant (60 in Cormack et al. 2009).
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    best: dict[str, int] = {}
    for name, ids in rankings.items():
        w = 1.0 if weights is None else float(weights.get(name, 1.0))
        for rank, doc in enumerate(ids, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
            best[doc] = min(best.get(doc, rank), rank)
    return sorted(scores.items(), key=lambda kv: (-kv[1], best[kv[0]], kv[0]))
