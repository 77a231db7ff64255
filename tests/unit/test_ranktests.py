"""The rank tests racing and comparisons use give scipy's p-values, on every branch of scipy's
``method="auto"`` (exact, every sign pattern, normal approximation) and on Friedman's tie correction."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

from ragkit.evaluation.metrics.ranktests import (
    EXACT_MAX,
    PERMUTATION_MAX,
    average_ranks,
    friedman_p_value,
    signed_rank_p,
)


def _scipy_wilcoxon(d: np.ndarray) -> float:
    return float(sps.wilcoxon(d, zero_method="wilcox", alternative="two-sided").pvalue)


def _cases() -> list[np.ndarray]:
    """Differences on each side of each of scipy's limits, tied and untied."""
    rng = np.random.default_rng(7)
    out = []
    for n in (1, 2, 5, 9, PERMUTATION_MAX, PERMUTATION_MAX + 1, 30, EXACT_MAX, EXACT_MAX + 1, 120):
        out.append(rng.normal(0.2, 1.0, size=n))  # untied
        tied = rng.choice([-1.0, -0.5, 0.25, 0.5, 1.0], size=n)
        if n <= 9 or n > PERMUTATION_MAX:  # scipy's own permutation test is slow at 2**13 patterns
            out.append(tied)
    out.append(np.array([0.5] * 8 + [-0.25, 1.0]))  # one-sided, tied: the smallest p
    out.append(np.array([1.0, -1.0, 2.0, -2.0, 3.0, -3.0]))  # balanced: p = 1
    return out


@pytest.mark.parametrize(
    "d", _cases(), ids=lambda d: f"n{d.size}-{'tied' if len(set(np.abs(d))) < d.size else 'untied'}"
)
def test_signed_rank_p_is_scipys_wilcoxon(d):
    assert signed_rank_p(d) == pytest.approx(_scipy_wilcoxon(d), rel=1e-12, abs=1e-300)


def test_the_every_pattern_branch_at_thirteen_tied_differences_is_scipys():
    """The largest tied sample scipy still enumerates (2**13 sign patterns)."""
    d = np.array([1.0, 1.0, 0.5, -0.5, 2.0, 2.0, 2.0, -1.0, 0.25, 1.5, 1.5, 3.0, 0.5])
    assert d.size == PERMUTATION_MAX
    assert signed_rank_p(d) == pytest.approx(_scipy_wilcoxon(d), rel=1e-12)


def test_zeros_are_refused_not_silently_ranked():
    with pytest.raises(ValueError, match="non-zero"):
        signed_rank_p([0.5, 0.0, -1.0])


def test_average_ranks_give_ties_their_mean_rank():
    ranks, groups = average_ranks(np.array([3.0, 1.0, 3.0, 2.0, 3.0]))
    assert ranks.tolist() == [4.0, 1.0, 4.0, 2.0, 4.0]
    assert sorted(groups.tolist()) == [1, 1, 3]


@pytest.mark.parametrize("seed", range(6))
def test_friedman_p_value_is_scipys(seed):
    rng = np.random.default_rng(seed)
    k, n = 3 + seed, 5 + 7 * seed
    cols = rng.integers(0, 3, size=(k, n)).astype(float) if seed % 2 else rng.random((k, n))
    assert friedman_p_value(cols) == pytest.approx(float(sps.friedmanchisquare(*cols).pvalue), rel=1e-12)


def test_friedman_with_every_row_tied_is_nan_as_in_scipy():
    cols = [[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = float(sps.friedmanchisquare(*cols).pvalue)
    assert math.isnan(expected) and math.isnan(friedman_p_value(cols))


def test_friedman_needs_three_candidates():
    with pytest.raises(ValueError, match="3\\+ candidates"):
        friedman_p_value([[1.0, 2.0], [2.0, 1.0]])


def test_friedman_in_blocks_of_rows_is_the_same(monkeypatch):
    """Many questions are ranked a block of rows at a time (memory bounded); blocks change nothing."""
    from ragkit.evaluation.metrics import ranktests

    rng = np.random.default_rng(11)
    cols = rng.integers(0, 4, size=(5, 97)).astype(float)
    whole = friedman_p_value(cols)
    monkeypatch.setattr(ranktests, "PAIRS_PER_BLOCK", 3 * 25)  # 3 rows per block, the last one short
    assert friedman_p_value(cols) == whole == pytest.approx(float(sps.friedmanchisquare(*cols).pvalue))
