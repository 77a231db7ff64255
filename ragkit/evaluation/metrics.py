"""Retrieval metrics over ranked runs, computed by ``ir-measures`` (pytrec_eval) on exactly ragkit's order.

**One ranking everywhere.** A run is the list of items in the order ragkit returned them. It is handed to
pytrec_eval with strictly decreasing scores (n, n-1, …, 1), so no metric breaks ties its own way: with
raw tied scores (common with RRF: 1/61 + 1/62 either way round) pytrec_eval orders ties by document id
and other providers differently, and one question could report nDCG@10 = 1.0 beside MRR@10 = 0.5. Every
measure comes from the same provider for the same reason.

Every query in the qrels counts: a query with no retrieved item scores 0 on every measure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: our metric names -> ir-measures names
MEASURES = {"ndcg@10": "nDCG@10", "recall@10": "R@10", "recall@100": "R@100", "mrr@10": "RR@10"}

Run = Mapping[str, float] | Sequence[str]


def ranked(items: Run) -> list[str]:
    """The items of a run in rank order: a sequence as given; a score map by score, best first, ties in
    the map's own (insertion) order — which is ragkit's order when the map was built from its hits."""
    if isinstance(items, Mapping):
        order = list(items)
        pos = {d: i for i, d in enumerate(order)}
        return sorted(order, key=lambda d: (-float(items[d]), pos[d]))
    return list(dict.fromkeys(items))


def per_query_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Run],
    metrics: tuple[str, ...] = tuple(MEASURES),
) -> dict[str, dict[str, float]]:
    """``{query_id: {metric: value}}`` for every query in ``qrels`` (missing results count as 0).

    ``run[q]`` is a ranked list of ids, or a ``{id: score}`` map (see :func:`ranked`).
    """
    import ir_measures

    measures = [ir_measures.parse_measure(MEASURES[m]) for m in metrics]
    names = {str(ir_measures.parse_measure(MEASURES[m])): m for m in metrics}
    out = {qid: dict.fromkeys(metrics, 0.0) for qid in qrels}
    strict: dict[str, dict[str, float]] = {}
    for q, items in run.items():
        order = ranked(items)
        if q in qrels and order:
            strict[q] = {d: float(len(order) - i) for i, d in enumerate(order)}
    qrels = {q: dict(d) for q, d in qrels.items()}
    for m in ir_measures.pytrec_eval.iter_calc(measures, qrels, strict):
        out[m.query_id][names[str(m.measure)]] = float(m.value)
    return out


def mean_metrics(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Average each metric over all queries."""
    if not per_query:
        return {}
    keys = next(iter(per_query.values())).keys()
    n = len(per_query)
    return {k: sum(v[k] for v in per_query.values()) / n for k in keys}


def max_by_document(hits_scores: list[tuple[str, float]], limit: int = 100) -> dict[str, float]:
    """Chunk hits -> documents, each at the rank of its best chunk (a document is as relevant as its best
    chunk). ``hits_scores`` must be in ragkit's rank order; the result keeps that order (equal scores stay
    in the order ragkit ranked them), the top ``limit`` documents."""
    best: dict[str, float] = {}
    for doc, score in hits_scores:
        if doc not in best or score > best[doc]:
            best[doc] = score
    return {d: best[d] for d in ranked(best)[:limit]}
