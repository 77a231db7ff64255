"""Paired comparison of two configurations over the same questions (pure; numpy + scipy).

For per-question scores ``a`` and ``b`` (same questions, same order): the mean difference ``b - a``, a
paired bootstrap 95 % confidence interval for it (resampling questions), and a paired significance test
(Wilcoxon signed-rank; the exact sign test when every non-zero difference has the same size, where the
rank test has nothing to rank).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from ragkit.core.optional import require

#: below this many questions with a non-zero difference, no test can reach p < 0.05 reliably
MIN_INFORMATIVE = 6


@dataclass(frozen=True)
class PairedComparison:
    n: int
    mean_a: float
    mean_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    test: str
    significant: bool
    too_small: bool
    differing: int = 0  # questions on which the two configs score differently
    higher_is_better: bool = True

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """A plain sentence for the page, naming the configs ``a`` and ``b``."""
        if self.differing == 0:
            return "identical on every question; not significant"
        if self.too_small:
            return f"too few questions differ to tell ({self.differing} of {self.n}); not significant"
        if not self.significant:
            return f"not significant (p = {self.p_value:.3f})"
        better = b if (self.diff > 0) == self.higher_is_better else a
        ci = f"95 % CI {self.ci_low:+.4f} to {self.ci_high:+.4f}"
        return f"{better} is better: {self.diff:+.4f} ({ci}, p = {self.p_value:.3g})"

    def to_dict(self, a: str = "A", b: str = "B") -> dict:
        return {**asdict(self), "verdict": self.verdict(a, b)}


def paired_bootstrap_ci(
    a: Sequence[float], b: Sequence[float], n_resamples: int = 10_000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of ``b - a`` and its percentile bootstrap interval, resampling questions with replacement."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    if d.size == 0:
        return 0.0, 0.0, 0.0
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(n_resamples, d.size))
    means = d[idx].mean(axis=1)
    alpha = (1 - confidence) / 2
    return float(d.mean()), float(np.quantile(means, alpha)), float(np.quantile(means, 1 - alpha))


def paired_test(a: Sequence[float], b: Sequence[float]) -> tuple[float, str]:
    """Two-sided p-value of a paired test of ``a`` vs ``b`` and the test's name."""
    stats = require("scipy.stats", "significance tests")

    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0, "none (identical)"
    if np.unique(np.abs(nz)).size == 1:  # all differences the same size: count signs
        k = int((nz > 0).sum())
        return float(stats.binomtest(k, nz.size, 0.5).pvalue), "sign test"
    return float(stats.wilcoxon(nz, zero_method="wilcox", alternative="two-sided").pvalue), "wilcoxon"


def compare_paired(
    a: Sequence[float],
    b: Sequence[float],
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    higher_is_better: bool = True,
) -> PairedComparison:
    """Everything the comparison table shows for one metric (``higher_is_better=False`` for rates such as
    wrong abstentions, so the verdict names the right winner)."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths, got {len(a)} and {len(b)}")
    diff, lo, hi = paired_bootstrap_ci(a, b, n_resamples, 1 - alpha, seed)
    p, test = paired_test(a, b)
    nonzero = int(np.count_nonzero(np.asarray(b, float) - np.asarray(a, float)))
    too_small = nonzero < MIN_INFORMATIVE
    significant = (p < alpha) and not too_small and not (lo <= 0 <= hi)
    mean_a = float(np.mean(a)) if len(a) else 0.0
    mean_b = float(np.mean(b)) if len(b) else 0.0
    return PairedComparison(
        len(a), mean_a, mean_b, diff, lo, hi, p, test, significant, too_small, nonzero, higher_is_better
    )
