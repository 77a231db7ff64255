"""Unit tests of :mod:`ragkit.evaluation.metrics.calibration` (fitting) and
:mod:`ragkit.pipeline.calibration`."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace

import numpy as np
import pytest

from ragkit.core.errors import ConfigError
from ragkit.evaluation.metrics.calibration import (
    calibration_offer,
    cross_validated_calibration,
    expected_calibration_error,
    fit_calibration,
)
from ragkit.pipeline.calibration import CalibrationMap
from ragkit.pipeline.config import PipelineConfig


def miscalibrated(n: int, seed: int = 0) -> tuple[list[float], list[float]]:
    """A gauge that under-states its probability above 0.4 (like ragkit's raw gauge on XQuAD): outcome
    probability p, gauge p**2."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    correct = (rng.uniform(0, 1, n) < p).astype(float)
    return (p**2).tolist(), correct.tolist()


def test_isotonic_calibration_cuts_cross_validated_ece_and_is_monotone():
    conf, correct = miscalibrated(2000)
    cv = cross_validated_calibration(conf, correct, "isotonic", folds=5)
    assert cv["ece_raw"] == pytest.approx(expected_calibration_error(conf, correct))
    assert cv["ece_raw"] > 0.1 and cv["ece_calibrated"] < cv["ece_raw"] / 2
    m = fit_calibration(conf, correct, "isotonic", fitted_on="synthetic", target="p")
    xs = np.linspace(0, 1, 101)
    ys = [m.apply(float(x)) for x in xs]
    assert all(b >= a for a, b in itertools.pairwise(ys)) and min(ys) >= 0 and max(ys) <= 1
    assert m.apply(0.25) == pytest.approx(0.5, abs=0.1)  # gauge 0.25 <=> p = 0.5
    assert (m.ece_raw_cv, m.ece_calibrated_cv, m.n, m.folds) == (cv["ece_raw"], cv["ece_calibrated"], 2000, 5)


def test_platt_calibration_and_out_of_fold_honesty():
    conf, correct = miscalibrated(1500, seed=1)
    platt = cross_validated_calibration(conf, correct, "platt")
    assert platt["ece_calibrated"] < platt["ece_raw"]
    # the cross-validated figure is never the in-sample one: scoring the map on its own training data
    # looks better than it is
    m = fit_calibration(conf, correct, "isotonic")
    in_sample = expected_calibration_error([m.apply(c) for c in conf], correct)
    assert in_sample <= m.ece_calibrated_cv


def test_calibration_needs_both_outcomes_and_enough_questions():
    with pytest.raises(ValueError, match="14 labelled questions: a calibration needs at least 30"):
        fit_calibration([0.5] * 14, [1, 0] * 7)
    with pytest.raises(ValueError, match="same outcome"):
        fit_calibration([i / 40 for i in range(40)], [1.0] * 40)


def test_a_map_that_does_not_beat_the_raw_gauge_beyond_the_noise_is_refused():
    """A gauge that is already calibrated: an isotonic map only adds out-of-fold noise, so it is refused
    with the figures; a badly calibrated gauge on enough questions is offered."""
    rng = np.random.default_rng(4)
    p = rng.uniform(0, 1, 200)
    correct = (rng.uniform(0, 1, 200) < p).astype(float).tolist()
    offer = calibration_offer(p.tolist(), correct)
    assert not offer["offered"] and offer["improvement_ci"][0] <= 0
    with pytest.raises(ValueError, match=r"no calibration: 5-fold ECE 0\.\d+ → 0\.\d+"):
        fit_calibration(p.tolist(), correct)
    conf, correct = miscalibrated(400, seed=5)
    offer = calibration_offer(conf, correct)
    assert offer["offered"] and offer["improvement_ci"][0] > 0 and offer["ece_calibrated"] < offer["ece_raw"]
    # a gauge that is exactly right (0.5, right half the time): the map makes it no better
    perfect = calibration_offer([0.5] * 40, [1, 0] * 20)
    assert not perfect["offered"] and "the map makes the gauge no better" in perfect["why"]


def test_calibration_map_round_trips_in_the_config_and_changes_its_hash():
    conf, correct = miscalibrated(400, seed=2)
    m = fit_calibration(conf, correct, "isotonic", fitted_on="mine.csv")
    base = PipelineConfig(name="x")
    cal = replace(base, confidence_calibration=m.to_dict())
    assert cal.cache_key() != base.cache_key()  # the map is part of the pipeline, stamped on results
    back = PipelineConfig.from_json(cal.to_json())
    assert back == cal and CalibrationMap.from_dict(back.confidence_calibration) == m
    assert json.loads(cal.to_json())["confidence_calibration"]["method"] == "isotonic"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("isotonic", "is a JSON object"),
        ({"method": "magic"}, "method must be one of"),
        ({"method": "isotonic"}, "needs its points"),
        ({"method": "isotonic", "x": [0, 1], "y": [0.5]}, "same length"),
        ({"method": "isotonic", "x": [0.5, 0.2], "y": [0.1, 0.2]}, "non-decreasing"),
        ({"method": "isotonic", "x": [0, 1], "y": [0.9, 0.1]}, "non-decreasing"),
        ({"method": "isotonic", "x": [0, 2], "y": [0, 1]}, r"in \[0, 1\]"),
        ({"method": "platt", "a": float("nan")}, "finite"),
        ({"method": "platt", "a": "big"}, "must be numbers"),
        ({"method": "platt", "pickle": "x"}, "unknown calibration keys"),
    ],
)
def test_hand_edited_calibration_maps_are_rejected_naming_the_field(bad, message):
    with pytest.raises(ConfigError, match=rf"config 'x': confidence_calibration: .*{message}"):
        PipelineConfig(name="x", confidence_calibration=bad)


def test_apply_calibration_moves_value_and_band_keeps_the_raw_value_and_the_raw_decision():
    from ragkit.pipeline.confidence import Confidence, ConfidenceConfig, apply_calibration

    m = CalibrationMap("isotonic", (0.0, 0.2, 1.0), (0.0, 0.7, 0.9), fitted_on="SciFact", n=300)
    cfg = ConfidenceConfig(threshold=0.25)
    raw = Confidence(0.2, "low", True, 0.25, {"hits": 3})
    c = apply_calibration(raw, m, cfg)
    assert c.value == pytest.approx(0.7) and c.band == "high"
    assert c.inputs["raw_value"] == 0.2 and "SciFact" in c.calibration and raw.calibration is None
    # a map whose floor is above the threshold must not remove abstention: the raw gauge decides
    floor = CalibrationMap("isotonic", (0.0, 1.0), (0.67, 0.95), fitted_on="all answerable", n=300)
    low = apply_calibration(Confidence(0.05, "low", True, 0.25, {"hits": 3}), floor, cfg)
    assert low.value >= 0.67 and low.abstain and "0.05 (raw; calibrated probability 0.68)" in low.reason
    empty = Confidence(0.0, "low", True, 0.25, {"hits": 0})
    assert apply_calibration(empty, m, cfg) is empty  # nothing retrieved stays 0
    assert math.isclose(CalibrationMap("platt", a=0.0, b=0.0).apply(0.9), 0.5)


def test_a_map_applies_only_to_the_collection_it_was_fitted_on(tmp_path, fake_embedder):
    from ragkit.index.ingest import open_or_create
    from ragkit.ingestion.chunkers import SlidingChunker
    from ragkit.pipeline.rag import RagPipeline
    from tests.conftest import ingest_bytes

    st, ch = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=200, overlap=0))
    ingest_bytes(st, [("a.txt", b"The harbour held forty ships in 1901.")], ch, fake_embedder)
    m = CalibrationMap("isotonic", (0.0, 1.0), (0.5, 0.9), fitted_on="x", n=300, scope="collection:papers")
    cfg = PipelineConfig(llm="extractive", confidence_calibration=m.to_dict())
    here = RagPipeline(cfg, st, fake_embedder, scope="collection:papers").ask("How many ships?")
    assert here.confidence.calibration and "calibration" not in here.trace
    there = RagPipeline(cfg, st, fake_embedder, scope="collection:notes").ask("How many ships?")
    assert there.confidence.calibration is None and "raw_value" not in there.confidence.inputs
    assert "fitted on 'collection:papers', not 'collection:notes'" in there.trace["calibration"]
    assert m.applies_to(None)  # a caller that does not say (the CLI with an explicit config) vouches for it
