"""Paired statistics and calibration on known cases."""

from __future__ import annotations

import random

import numpy as np
import pytest
from scipy import stats as sps

from ragkit.evaluation.metrics.calibration import expected_calibration_error, reliability_bins, risk_coverage
from ragkit.evaluation.metrics.stats import (
    compare_paired,
    correct_family,
    holm,
    paired_bootstrap_ci,
    paired_test,
)


def test_identical_configs_are_not_different():
    rng = random.Random(1)
    a = [rng.random() for _ in range(200)]
    r = compare_paired(a, list(a))
    assert r.diff == 0 and r.ci_low <= 0 <= r.ci_high and r.p_value == 1.0 and not r.significant
    assert r.verdict() == "identical on every question; not significant"


def test_better_on_every_question_is_significant():
    rng = random.Random(2)
    a = [rng.random() * 0.5 for _ in range(60)]
    b = [x + 0.1 + rng.random() * 0.05 for x in a]
    r = compare_paired(a, b)
    assert r.significant and r.diff > 0 and r.ci_low > 0 and r.p_value < 1e-6 and r.test == "wilcoxon"
    assert r.verdict().startswith("B is better")
    assert r.verdict("bm25", "hybrid").startswith("hybrid is better")
    assert r.to_dict("bm25", "hybrid")["verdict"].startswith("hybrid is better")
    # the same in the other direction
    assert compare_paired(b, a).verdict().startswith("A is better")


def test_the_verdict_names_the_winner_by_the_sign_of_b_minus_a():
    """ "A is better" comes with B − A < 0, stated as such, and the size as a positive "by"."""
    rng = random.Random(5)
    b = [rng.random() * 0.5 for _ in range(60)]
    a = [x + 0.3 + rng.random() * 0.05 for x in b]
    r = compare_paired(a, b)
    v = r.verdict("bm25", "hybrid")
    assert r.diff < 0 and r.winner("bm25", "hybrid") == "bm25"
    assert v.startswith(f"bm25 is better: higher by {abs(r.diff):.4f} (hybrid − bm25 = -")
    # a rate where lower is better: B's lower rate makes B the winner, "lower by"
    r = compare_paired([1.0] * 20 + [0.0] * 20, [0.0] * 40, higher_is_better=False)
    assert r.verdict().startswith("B is better: lower by 0.5000 (B − A = -0.5000")


def test_holm_on_a_planted_family():
    """Holm's adjusted p-values by hand, and a family where one raw p < 0.05 is not called after
    correction while a strong one still is."""
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    rng = np.random.default_rng(11)
    strong_a = rng.random(80)
    strong = compare_paired(strong_a, strong_a + 0.2 + rng.random(80) * 0.01)
    # right on 15 more questions, wrong on 5 more: sign test p = 0.041
    weak = compare_paired([0] * 15 + [1] * 5 + [0] * 20, [1] * 15 + [0] * 5 + [0] * 20)
    assert weak.p_value == pytest.approx(sps.binomtest(15, 20, 0.5).pvalue)
    assert 0.01 < weak.p_value < 0.05 and weak.significant  # on its own, it would be called
    nulls = [compare_paired(x, x + rng.normal(0, 0.1, 80)) for x in rng.random((12, 80))]
    family = correct_family([strong, weak, *nulls], "exploratory")
    assert family[0].significant and family[0].p_holm == pytest.approx(strong.p_value * 14)
    assert not family[1].significant and family[1].p_holm > 0.05 and family[1].family_size == 14
    assert family[1].verdict().startswith("exploratory: not significant")
    assert "Holm" in family[1].verdict() and f"p = {weak.p_value:.3g}" in family[1].verdict()


def test_an_interval_and_a_test_that_disagree_are_explained():
    # a few large gains and many small losses: the mean is positive, the ranks lean negative
    a = [0.5] * 40
    b = [1.0] * 6 + [0.47] * 34
    r = compare_paired(a, b)
    assert not r.significant and r.disagreement() is not None
    assert r.disagreement() in r.verdict()


def test_binary_metric_uses_the_sign_test():
    a = [0] * 30
    b = [1] * 20 + [0] * 10  # B right on 20 more questions, never worse
    p, test = paired_test(a, b)
    assert test == "sign test" and p == pytest.approx(sps.binomtest(20, 20, 0.5).pvalue)


def test_small_sets_are_flagged():
    r = compare_paired([0.1, 0.2, 0.3], [0.5, 0.6, 0.7])
    assert (
        r.too_small
        and not r.significant
        and r.verdict().startswith("too few questions differ to tell (3 of 3)")
    )


def test_lower_is_better_metrics_name_the_right_winner():
    a = [1.0] * 20 + [0.0] * 20  # A abstains wrongly on 20 questions
    b = [0.0] * 40
    r = compare_paired(a, b, higher_is_better=False)
    assert r.significant and r.diff < 0 and r.verdict().startswith("B is better")


def test_wilcoxon_matches_scipy_and_bootstrap_brackets_the_mean():
    rng = np.random.default_rng(3)
    a = rng.random(80)
    b = a + rng.normal(0.02, 0.1, 80)
    p, test = paired_test(a, b)
    assert test == "wilcoxon" and p == pytest.approx(sps.wilcoxon(b - a).pvalue)
    mean, lo, hi = paired_bootstrap_ci(a, b)
    assert lo < mean < hi and mean == pytest.approx(float(np.mean(b - a)))


def test_unequal_lengths_rejected():
    with pytest.raises(ValueError):
        compare_paired([1, 2], [1])


def test_calibration_known_cases():
    # perfectly calibrated: in each bin the accuracy equals the confidence
    conf, corr = [], []
    for c, k in ((0.05, 1), (0.25, 5), (0.75, 15), (0.95, 19)):  # k right out of 20 = c
        conf += [c] * 20
        corr += [1] * k + [0] * (20 - k)
    assert expected_calibration_error(conf, corr) == pytest.approx(0.0, abs=1e-9)
    # always confident, always wrong: ECE is the confidence
    assert expected_calibration_error([0.9] * 10, [0] * 10) == pytest.approx(0.9)
    bins = reliability_bins([0.05, 0.95, 1.0], [0, 1, 1], n_bins=10)
    assert bins[0].count == 1 and bins[9].count == 2 and bins[9].accuracy == 1.0 and bins[5].count == 0
    rc = risk_coverage([0.2, 0.5, 0.9], [0, 1, 1])
    assert rc == [(0.2, 1.0, 2 / 3), (0.5, 2 / 3, 1.0), (0.9, 1 / 3, 1.0)]
