"""Retrieval metrics over ranked runs, each at its name's cutoff, computed on exactly ragkit's order.

**One ranking everywhere.** A run is the list of items in the order ragkit returned them; every metric
reads that list and nothing else, so no metric breaks ties its own way (with raw tied scores, common with
RRF, evaluation tools order ties by document id and one question could report nDCG@10 = 1.0 beside
MRR@10 = 0.5).

**The cutoff is the name's.** ``mrr@10`` is the reciprocal rank of the first relevant item *within the
first 10* (0 when it ranks 11th or lower); pytrec_eval, behind ir-measures' ``RR@10``, ignores the cutoff
for reciprocal rank and reported 1/20 for an item at rank 20. The measures are therefore computed here,
by their textbook definitions (trec_eval's gains: linear in the grade, log2 discount), and tested for
parity against ir-measures (pytrec_eval for nDCG and recall, its MS MARCO provider for RR@k).

Every query in the qrels counts: a query with no retrieved item scores 0 on every measure. An item is
relevant when its grade is at least 1.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

#: every metric name this module knows: ``<measure>@<cutoff>``
MEASURE_KINDS = ("ndcg", "recall", "mrr")
#: the metrics a BEIR evaluation reports
MEASURES = ("ndcg@10", "recall@10", "recall@100", "mrr@10")

Run = Mapping[str, float] | Sequence[str]


def ranked(items: Run) -> list[str]:
    """The items of a run in rank order: a sequence as given; a score map by score, best first, ties in
    the map's own (insertion) order — which is ragkit's order when the map was built from its hits."""
    if isinstance(items, Mapping):
        order = list(items)
        pos = {d: i for i, d in enumerate(order)}
        return sorted(order, key=lambda d: (-float(items[d]), pos[d]))
    return list(dict.fromkeys(items))


def parse_metric(name: str) -> tuple[str, int]:
    """``"ndcg@10"`` -> ``("ndcg", 10)``; anything else is an error naming the known measures."""
    m = re.fullmatch(r"(ndcg|recall|mrr)@(\d+)", name)
    if not m or int(m.group(2)) < 1:
        raise ValueError(f"unknown metric {name!r}: use <{'|'.join(MEASURE_KINDS)}>@<cutoff>, e.g. ndcg@10")
    return m.group(1), int(m.group(2))


def ndcg_at(order: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """nDCG@k: gain = grade, discount log2(rank + 1), over the ideal ordering of the judged grades."""
    dcg = sum(grades.get(d, 0) / math.log2(i + 2) for i, d in enumerate(order[:k]) if grades.get(d, 0) > 0)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(order: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """Recall@k: relevant items in the first ``k`` over all relevant items."""
    relevant = {d for d, g in grades.items() if g > 0}
    return len(relevant.intersection(order[:k])) / len(relevant) if relevant else 0.0


def rr_at(order: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant item within the first ``k``; 0 when none is there."""
    return next((1.0 / (i + 1) for i, d in enumerate(order[:k]) if grades.get(d, 0) > 0), 0.0)


_MEASURE = {"ndcg": ndcg_at, "recall": recall_at, "mrr": rr_at}


def per_query_metrics(
    qrels: Mapping[str, Mapping[str, int]],
    run: Mapping[str, Run],
    metrics: tuple[str, ...] = MEASURES,
) -> dict[str, dict[str, float]]:
    """``{query_id: {metric: value}}`` for every query in ``qrels`` (missing results count as 0).

    ``run[q]`` is a ranked list of ids, or a ``{id: score}`` map (see :func:`ranked`).
    """
    parsed = [(m, *parse_metric(m)) for m in metrics]
    out = {}
    for q, grades in qrels.items():
        order = ranked(run.get(q, ()))
        out[q] = {m: _MEASURE[kind](order, grades, k) for m, kind, k in parsed}
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
