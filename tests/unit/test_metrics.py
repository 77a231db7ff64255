"""Unit tests of :mod:`ragkit.evaluation.metrics`."""

from __future__ import annotations

import pytest

from ragkit.evaluation.metrics import max_by_document, mean_metrics, per_query_metrics
from ragkit.evaluation.retrieval import latency_summary


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


def test_latency_summary():
    s = latency_summary([float(x) for x in range(1, 101)])
    assert s["p50"] == 50.5 and s["p95"] == 95.0
