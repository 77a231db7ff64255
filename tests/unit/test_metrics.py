"""Unit tests of :mod:`ragkit.evaluation.metrics.retrieval`: cutoffs as named, and parity with ir-measures."""

from __future__ import annotations

import random

import pytest

from ragkit.evaluation.metrics.retrieval import (
    max_by_document,
    mean_metrics,
    parse_metric,
    per_query_metrics,
)
from ragkit.evaluation.runs.beir import latency_summary


def test_max_by_document():
    run = max_by_document([("d1", 0.2), ("d2", 0.9), ("d1", 0.95), ("d3", 0.1)], limit=2)
    assert run == {"d1": 0.95, "d2": 0.9}


def test_metrics_count_every_query():
    qrels = {"q1": {"d1": 1}, "q2": {"d5": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 3.0, "d5": 2.0}}  # q3 retrieved nothing
    per = per_query_metrics(qrels, run)
    assert per["q1"]["mrr@10"] == 1.0 and per["q2"]["mrr@10"] == 0.5 and per["q3"]["mrr@10"] == 0.0
    assert per["q2"]["ndcg@10"] == pytest.approx(1 / 1.5849625, rel=1e-6)  # 1/log2(3)
    assert mean_metrics(per)["mrr@10"] == pytest.approx(0.5)
    assert mean_metrics(per)["recall@10"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("rank", [11, 12, 20, 100])
def test_rr_at_10_is_zero_below_the_cutoff(rank):
    order = [f"n{i}" for i in range(1, rank)] + ["rel"]
    per = per_query_metrics({"q": {"rel": 1}}, {"q": order}, ("mrr@10", "ndcg@10", "recall@10"))["q"]
    assert per == {"mrr@10": 0.0, "ndcg@10": 0.0, "recall@10": 0.0}


def test_rr_at_10_counts_rank_10():
    order = [f"n{i}" for i in range(1, 10)] + ["rel"]
    assert per_query_metrics({"q": {"rel": 1}}, {"q": order}, ("mrr@10", "mrr@5"))["q"] == {
        "mrr@10": 0.1,
        "mrr@5": 0.0,
    }


def test_metric_names_parse_with_their_depth():
    assert parse_metric("recall@100") == ("recall", 100)
    with pytest.raises(ValueError, match="unknown metric 'map'"):
        parse_metric("map")


def test_parity_with_ir_measures_on_random_runs():
    """nDCG@k and recall@k agree with pytrec_eval, RR@10 with ir-measures' MS MARCO provider (which, unlike
    pytrec_eval, honours the cutoff), on graded qrels and runs of every length."""
    ir = pytest.importorskip("ir_measures")
    rng = random.Random(7)
    qrels, run = {}, {}
    for q in range(300):
        docs = [f"d{i}" for i in range(60)]
        qrels[f"q{q}"] = {d: rng.choice((0, 1, 1, 2)) for d in rng.sample(docs, rng.randint(1, 6))}
        order = rng.sample(docs, rng.randint(0, 40))
        if order:  # strictly decreasing scores: the providers see ragkit's order, no ties to break
            run[f"q{q}"] = {d: float(len(order) - i) for i, d in enumerate(order)}
    ours = per_query_metrics(qrels, run, ("ndcg@10", "recall@10", "recall@100", "mrr@10", "ndcg@3"))
    names = {"nDCG@10": "ndcg@10", "R@10": "recall@10", "R@100": "recall@100", "nDCG@3": "ndcg@3"}
    measures = [ir.parse_measure(m) for m in names]
    seen = 0
    for m in ir.pytrec_eval.iter_calc(measures, qrels, run):
        assert ours[m.query_id][names[str(m.measure)]] == pytest.approx(m.value, abs=1e-9)
        seen += 1
    for m in ir.msmarco.iter_calc([ir.RR @ 10], qrels, run):
        assert ours[m.query_id]["mrr@10"] == pytest.approx(m.value, abs=1e-9)
        seen += 1
    assert seen > 1000
    # the planted disagreement: pytrec_eval's RR@10 credits ranks past 10, ours does not
    late = [q for q in run if all(qrels[q].get(d, 0) < 1 for d in list(run[q])[:10])]
    rel_late = [q for q in late if any(qrels[q].get(d, 0) >= 1 for d in run[q])]
    assert rel_late and all(ours[q]["mrr@10"] == 0.0 for q in rel_late)


def test_latency_summary():
    s = latency_summary([float(x) for x in range(1, 101)])
    assert s["p50"] == 50.5 and s["p95"] == 95.0
