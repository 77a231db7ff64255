"""Retrieval metrics over document-level runs, computed by ``ir-measures`` (pytrec_eval underneath).

Every query in the qrels counts: a query with no retrieved document scores 0 on every measure.
"""

from __future__ import annotations

from collections.abc import Mapping

#: our metric names -> ir-measures names
MEASURES = {"ndcg@10": "nDCG@10", "recall@10": "R@10", "recall@100": "R@100", "mrr@10": "RR@10"}


def per_query_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Mapping[str, float]],
    metrics: tuple[str, ...] = tuple(MEASURES),
) -> dict[str, dict[str, float]]:
    """``{query_id: {metric: value}}`` for every query in ``qrels`` (missing results count as 0)."""
    import ir_measures

    measures = [ir_measures.parse_measure(MEASURES[m]) for m in metrics]
    names = {str(ir_measures.parse_measure(MEASURES[m])): m for m in metrics}
    out = {qid: dict.fromkeys(metrics, 0.0) for qid in qrels}
    run = {q: dict(docs) for q, docs in run.items() if q in qrels and docs}
    qrels = {q: dict(d) for q, d in qrels.items()}
    for m in ir_measures.iter_calc(measures, qrels, run):
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
    """Aggregate chunk scores to documents by their best chunk (max), keeping the top ``limit`` documents."""
    best: dict[str, float] = {}
    for doc, score in hits_scores:
        if doc not in best or score > best[doc]:
            best[doc] = score
    ranked = sorted(best.items(), key=lambda kv: -kv[1])[:limit]
    return dict(ranked)
