"""Unit tests of :mod:`ragkit.evaluation.runs.report`."""

from __future__ import annotations

import csv
import io

from ragkit.evaluation.metrics.pareto import Point, overlapping, pareto_front, quality_latency_points
from ragkit.evaluation.runs.report import (
    intent_slices,
    per_question_csv,
    per_question_rows,
    warnings,
)
from ragkit.evaluation.runs.report_markdown import markdown_report


def fake_result(n: int = 4) -> dict:
    intents = ["FACT", "FACT", "CONCEPT", "COMPARISON"]

    def pq(vals, lat):
        return {
            f"q{i}": {"question": f"question {i}", "intent": intents[i % 4], "f1": v, "latency_ms": lat}
            for i, v in enumerate(vals)
        }

    a = [0.0, 0.5, 1.0, 0.0][:n]
    b = [1.0, 0.5, 0.0, 0.0][:n]
    return {
        "dataset": "x.json",
        "dataset_kind": "squad",
        "dataset_hash": "0" * 64,
        "ragkit_version": "0",
        "questions": n,
        "metric_names": ["f1"],
        "lower_is_better": [],
        "configs": [
            {
                "name": n_,
                "hash": "h" * 12,
                "metrics": {"f1": sum(v) / n},
                "latency_ms": {"p50": lat, "p95": lat},
                "per_question": pq(v, lat),
            }
            for n_, v, lat in (("A", a, 5.0), ("B", b, 9.0))
        ],
        "comparisons": [
            {
                "a": "A",
                "b": "B",
                "metric": "f1",
                "n": n,
                "diff": 0.0,
                "ci_low": -0.5,
                "ci_high": 0.5,
                "p_value": 1.0,
                "test": "sign test",
                "significant": False,
                "too_small": True,
                "differing": 2,
                "verdict": "too few questions differ to tell (2 of 4); not significant",
            }
        ],
    }


def test_pareto_front():
    pts = [("fast-bad", 10, 0.5), ("slow-good", 100, 0.9), ("dominated", 120, 0.8), ("mid", 50, 0.7)]
    assert pareto_front(pts) == ["fast-bad", "slow-good", "mid"]
    assert pareto_front([("a", 10, 0.5), ("b", 10, 0.5)]) == ["a", "b"]  # equal points dominate neither
    assert pareto_front([("a", 10, 0.5), ("b", 10, 0.6)]) == ["b"]


def test_pareto_front_does_not_follow_noise():
    """Latencies whose interquartile ranges overlap are equally fast: the slower-looking but better config
    is not dominated, and a config better beyond both intervals is."""
    fast = Point("hybrid", 89.0, 0.70, 60.0, 520.0, 0.62, 0.78)
    noisy = Point("bm25", 486.0, 0.69, 70.0, 510.0, 0.61, 0.77)
    assert pareto_front([fast, noisy]) == ["hybrid", "bm25"]  # by p50 alone bm25 would be dominated
    assert overlapping([fast, noisy]) == [("hybrid", "bm25")]
    clear = Point("dense", 20.0, 0.90, 18.0, 22.0, 0.85, 0.95)
    assert pareto_front([fast, noisy, clear]) == ["dense"] and overlapping([fast, clear]) == []


def test_quality_latency_points_carry_their_intervals():
    r = fake_result()
    for c in r["configs"]:
        for i, v in enumerate(c["per_question"].values()):
            v["latency_ms"] = 10.0 * (i + 1)
    (p, *_) = quality_latency_points(r, "f1")
    assert p.latency_lo == 17.5 and p.latency_hi == 32.5  # quartiles of 10, 20, 30, 40
    assert p.quality_lo <= p.quality <= p.quality_hi


def test_intent_slices_name_the_winner_per_intent():
    rows = {r["intent"]: r for r in intent_slices(fake_result(), "f1")}
    assert rows["FACT"]["A"] == 0.25 and rows["FACT"]["B"] == 0.75 and rows["FACT"]["best"] == "B"
    assert rows["CONCEPT"]["best"] == "A" and rows["COMPARISON"]["best"] == "tie"
    assert rows["FACT"]["questions"] == 2


def test_warnings_and_markdown_say_too_small_plainly():
    r = fake_result()
    w = warnings(r)
    assert any("Only 4 questions" in x for x in w) and any("Too few questions differ" in x for x in w)
    md = markdown_report(r)
    assert "**Warning:**" in md and "not significant" in md and "| FACT | 2 |" in md
    assert "95 % interval of the mean): A\n" in md  # same mean f1, B slower on every question: dominated


def test_per_question_csv_round_trips():
    r = fake_result()
    rows = list(csv.DictReader(io.StringIO(per_question_csv(r))))
    assert len(rows) == 4 and rows[0]["A: f1"] == "0.0" and rows[0]["B: f1"] == "1.0"
    assert [x["id"] for x in rows] == [x["id"] for x in per_question_rows(r)]
