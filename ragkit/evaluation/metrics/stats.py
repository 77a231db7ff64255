"""Paired comparison of two configurations over the same questions, and the run's correction for multiple
comparisons (pure; numpy + scipy).

For per-question scores ``a`` and ``b`` (same questions, same order): the mean difference ``b - a``, a
paired bootstrap 95 % confidence interval for it (resampling questions), and a paired significance test
(Wilcoxon signed-rank; the exact sign test when every non-zero difference has the same size, where the
rank test has nothing to rank).

**One run, many tests.** A run of 4 configs over 14 metrics makes 84 tests; at p < 0.05 about four come
out "significant" by chance. The run therefore declares its **primary metric** before it starts: the
pairs on that metric form the confirmatory family, corrected by Holm's step-down method over the pairs;
every other (pair, metric) test is **exploratory**, corrected by Holm over all of them together. A
difference is called when its Holm-corrected p is below alpha *and* its bootstrap interval excludes 0
(the two can disagree: the signed-rank test weighs the ranks of the per-question differences, the
interval their mean; the verdict then says so and calls nothing).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from ragkit.core.optional import require
from ragkit.evaluation.metrics.ranktests import signed_rank_p

#: below this many questions with a non-zero difference, no test can reach p < 0.05 reliably
MIN_INFORMATIVE = 6
ALPHA = 0.05


@dataclass(frozen=True)
class PairedComparison:
    n: int
    mean_a: float
    mean_b: float
    diff: float  # mean of b - a
    ci_low: float
    ci_high: float
    p_value: float  # raw, this test alone
    test: str
    too_small: bool
    differing: int = 0  # questions on which the two configs score differently
    higher_is_better: bool = True
    #: Holm-corrected p over the test's family (None: not corrected, a single comparison)
    p_holm: float | None = None
    family: str = ""  # "primary" or "exploratory" (empty: a comparison on its own)
    family_size: int = 1
    alpha: float = ALPHA

    @property
    def p_decisive(self) -> float:
        """The p-value the verdict is decided on: Holm's when corrected, else the raw one."""
        return self.p_value if self.p_holm is None else self.p_holm

    @property
    def ci_excludes_zero(self) -> bool:
        return not (self.ci_low <= 0 <= self.ci_high)

    @property
    def significant(self) -> bool:
        return self.p_decisive < self.alpha and not self.too_small and self.ci_excludes_zero

    def winner(self, a: str = "A", b: str = "B") -> str | None:
        """The name of the better config when the difference is significant, else None."""
        if not self.significant:
            return None
        return b if (self.diff > 0) == self.higher_is_better else a

    def _p_text(self) -> str:
        if self.p_holm is None:
            return f"p = {self.p_value:.3g}"
        return f"p = {self.p_value:.3g}, Holm {self.p_holm:.3g} over {self.family_size}"

    def disagreement(self) -> str | None:
        """One line when the interval and the test point different ways (nothing is called then)."""
        if self.too_small or self.differing == 0:
            return None
        test_says = self.p_decisive < self.alpha
        if self.ci_excludes_zero and not test_says:
            return (
                "the bootstrap interval excludes 0 but the signed-rank test does not reach "
                f"p < {self.alpha:g}{' after correction' if self.p_holm is not None else ''}: a mean "
                "carried by a few large differences, not a consistent one"
            )
        if test_says and not self.ci_excludes_zero:
            return (
                "the signed-rank test is below the threshold but the bootstrap interval of the mean "
                "includes 0: many small differences one way, offset by larger ones the other way"
            )
        return None

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """A plain sentence for the page naming the better config by the sign of ``b - a`` (and of the
        metric's direction), its raw and corrected p; exploratory tests say so."""
        tag = "exploratory: " if self.family == "exploratory" else ""
        if self.differing == 0:
            return f"{tag}identical on every question; not significant"
        if self.too_small:
            return f"{tag}too few questions differ to tell ({self.differing} of {self.n}); not significant"
        diff = f"{b} − {a} = {self.diff:+.4f}, 95 % CI {self.ci_low:+.4f} to {self.ci_high:+.4f}"
        winner = self.winner(a, b)
        if winner is None:
            why = self.disagreement()
            return f"{tag}not significant ({diff}; {self._p_text()})" + (f" — {why}" if why else "")
        direction = "higher" if self.higher_is_better else "lower"  # the winner's score, against the other
        return f"{tag}{winner} is better: {direction} by {abs(self.diff):.4f} ({diff}; {self._p_text()})"

    def to_dict(self, a: str = "A", b: str = "B") -> dict:
        return {
            **asdict(self),
            "significant": self.significant,
            "winner": self.winner(a, b),
            "disagreement": self.disagreement(),
            "verdict": self.verdict(a, b),
        }


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (same order as given): controls the family-wise error rate
    under any dependence between the tests, and is uniformly more powerful than Bonferroni."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def correct_family(comparisons: Sequence[PairedComparison], family: str) -> list[PairedComparison]:
    """The comparisons with Holm-corrected p-values over them all, marked as ``family``."""
    adjusted = holm([c.p_value for c in comparisons])
    return [
        replace(c, p_holm=p, family=family, family_size=len(comparisons))
        for c, p in zip(comparisons, adjusted, strict=True)
    ]


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


def mean_ci(values: Sequence[float], n_resamples: int = 10_000, seed: int = 0) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95 % percentile bootstrap interval (resampling the values)."""
    return paired_bootstrap_ci([0.0] * len(values), values, n_resamples, 0.95, seed)


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
    return signed_rank_p(nz), "wilcoxon"


def compare_paired(
    a: Sequence[float],
    b: Sequence[float],
    alpha: float = ALPHA,
    n_resamples: int = 10_000,
    seed: int = 0,
    higher_is_better: bool = True,
) -> PairedComparison:
    """Everything the comparison table shows for one metric, uncorrected (``higher_is_better=False`` for
    rates such as wrong abstentions, so the verdict names the right winner); a run corrects its tests
    with :func:`correct_family`."""
    if len(a) != len(b):
        raise ValueError(f"paired scores need equal lengths, got {len(a)} and {len(b)}")
    diff, lo, hi = paired_bootstrap_ci(a, b, n_resamples, 1 - alpha, seed)
    p, test = paired_test(a, b)
    nonzero = int(np.count_nonzero(np.asarray(b, float) - np.asarray(a, float)))
    mean_a = float(np.mean(a)) if len(a) else 0.0
    mean_b = float(np.mean(b)) if len(b) else 0.0
    return PairedComparison(
        len(a),
        mean_a,
        mean_b,
        diff,
        lo,
        hi,
        p,
        test,
        nonzero < MIN_INFORMATIVE,
        nonzero,
        higher_is_better,
        alpha=alpha,
    )
