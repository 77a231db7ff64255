"""Wilcoxon's signed-rank test and Friedman's test, as scipy computes them, without scipy's per-call cost
(pure; numpy + scipy.special).

A racing sweep tests every live set-up against the best at every look, and its simulations do that for
hundreds of grids; ``scipy.stats.wilcoxon`` spends most of its time in array-API dispatch and, for a few
tied differences, in a general permutation test that re-ranks the data for every sign pattern. Here the
same p-values come from the exact null distribution of the (doubled, so integral) rank sum, counted once
per call. The method is chosen as scipy 1.17's ``method="auto"`` (the pinned version) chooses it: exact
below 51 differences without ties, every sign pattern when tied and at most 13, otherwise the
tie-corrected normal approximation (no continuity correction, scipy's default).
``tests/unit/test_ranktests.py`` holds the two to the same p-values.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from ragkit.core.optional import require

#: scipy's limits for ``method="auto"``: exact without ties up to here ...
EXACT_MAX = 50
#: ... and every one of the 2**n sign patterns, when tied, up to here
PERMUTATION_MAX = 13
#: Friedman's ranks compare each question's k scores pairwise, this many comparisons at a time
PAIRS_PER_BLOCK = 1 << 20


def average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """1-based ranks of ``values`` with ties given their average rank, and the size of each tie group
    (one entry per distinct value)."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    first = np.cumsum(counts) - counts  # 0-based sorted position of each group's first member
    return (first + (counts + 1) / 2.0)[inverse], counts


@lru_cache(maxsize=EXACT_MAX + 1)
def _wilcoxon_pmf(n: int) -> np.ndarray:
    """P(R+ = r) for r = 0 .. n(n+1)/2 without ties, built as scipy builds it (so sums agree bit for bit);
    cached per n (read-only), since a race asks for the same few sizes thousands of times."""
    c = np.ones(1, dtype=np.float64)
    for k in range(1, n + 1):
        prev = c
        c = np.zeros(k * (k + 1) // 2 + 1, dtype=np.float64)
        m = len(prev)
        c[:m] = prev * 0.5
        c[-m:] += prev * 0.5
    c.flags.writeable = False
    return c


def _exact_two_sided(r_plus: float, n: int) -> float:
    """scipy's exact two-sided p for the untied rank sum ``r_plus`` of ``n`` differences."""
    pmf = _wilcoxon_pmf(n)
    mean = n * (n + 1) / 4

    def cdf(k: int) -> float:
        return float(pmf[: k + 1].sum()) if k <= mean else 1 - float(pmf[k + 1 :].sum())

    def sf(k: int) -> float:
        return float(pmf[k:].sum()) if k <= mean else 1 - float(pmf[:k].sum())

    p = 2 * min(sf(int(np.floor(r_plus))), cdf(int(np.ceil(r_plus))))
    return float(np.clip(p, 0.0, 1.0))


def _sign_pattern_counts(doubled_ranks: np.ndarray) -> np.ndarray:
    """How many of the 2**n sign patterns give each doubled rank sum 0 .. sum(doubled_ranks)."""
    counts = np.zeros(int(doubled_ranks.sum()) + 1, dtype=np.int64)
    counts[0] = 1
    top = 0
    for r in doubled_ranks.astype(int):
        counts[r : top + r + 1] += counts[: top + 1].copy()
        top += r
    return counts


def _every_pattern_two_sided(ranks: np.ndarray, r_plus: float) -> float:
    """The two-sided p of a permutation test over every sign pattern (what scipy runs for tied n <= 13)."""
    doubled = np.rint(2 * ranks).astype(int)
    counts = _sign_pattern_counts(doubled)
    total = float(2**ranks.size)
    at = round(2 * r_plus)
    less = counts[: at + 1].sum() / total
    greater = counts[at:].sum() / total
    return float(np.clip(min(less, greater) * 2, 0.0, 1.0))


def signed_rank_p(differences: Sequence[float]) -> float:
    """Two-sided p of Wilcoxon's signed-rank test on non-zero paired ``differences`` (zeros must already
    be dropped, as ``zero_method="wilcox"`` does), equal to ``scipy.stats.wilcoxon(d).pvalue``."""
    d = np.asarray(differences, dtype=float)
    if d.size == 0 or np.any(d == 0):
        raise ValueError("signed_rank_p needs non-zero differences (drop the zeros first)")
    n = d.size
    ranks, ties = average_ranks(np.abs(d))
    r_plus = float(np.sum((d > 0).astype(float) * ranks))
    tied = bool(np.any(ties > 1))
    if n <= EXACT_MAX and not tied:
        return _exact_two_sided(r_plus, n)
    if tied and n <= PERMUTATION_MAX:
        return _every_pattern_two_sided(ranks, r_plus)
    special = require("scipy.special", "significance tests")
    t = ties.astype(float)
    se = np.sqrt((n * (n + 1.0) * (2.0 * n + 1.0) - np.sum(t**3 - t) / 2) / 24)
    z = (r_plus - n * (n + 1.0) * 0.25) / se
    return float(2 * special.ndtr(-abs(z)))


def friedman_p_value(columns: Sequence[Sequence[float]]) -> float:
    """Friedman's p for k >= 3 candidates (``columns``, each one candidate's scores over the same
    questions), equal to ``scipy.stats.friedmanchisquare(*columns).pvalue`` (nan when every row ties)."""
    special = require("scipy.special", "significance tests")
    data = np.asarray(columns, dtype=float).T  # rows: questions; columns: candidates
    n, k = data.shape
    if k < 3 or n == 0:
        raise ValueError(f"Friedman's test needs 3+ candidates over 1+ questions, got {k} x {n}")
    less, equal = np.empty((n, k), dtype=np.int64), np.empty((n, k), dtype=np.int64)
    block = max(1, PAIRS_PER_BLOCK // (k * k))  # rows compared k x k at a time, memory bounded
    for start in range(0, n, block):
        rows = data[start : start + block]
        less[start : start + block] = (rows[:, None, :] < rows[:, :, None]).sum(axis=2)
        equal[start : start + block] = (rows[:, None, :] == rows[:, :, None]).sum(axis=2)
    ranks = less + (equal + 1) / 2.0
    # each member of a tie group of size t adds t**2 - 1, so a group adds t * (t*t - 1) in all
    ties = float(np.sum(equal.astype(float) ** 2 - 1))
    c = 1 - ties / (k * (k * k - 1) * n)
    ssbn = np.sum(np.sum(ranks, axis=0) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        statistic = (12.0 / (k * n * (k + 1)) * ssbn - 3 * n * (k + 1)) / c
    return float(special.chdtrc(k - 1, statistic))
