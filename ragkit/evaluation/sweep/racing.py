"""Racing: after each batch of questions, drop the candidates significantly worse than the current best
(pure; numpy + scipy). The decisions of :mod:`ragkit.evaluation.sweep.runner`, kept apart so they can be
tested with planted scores.

**One look.** Over the questions every live candidate has answered, the *best* is the one with the best
mean. With three or more candidates, Friedman's test first asks whether they differ at all (as F-Race
does): without that, nothing is dropped. Then the best is compared with each other candidate by the
paired test of :mod:`ragkit.evaluation.metrics.stats` (Wilcoxon signed-rank, or the sign test), its p
multiplied
by the k - 1 comparisons (Bonferroni, single step, as in Hsu's multiple comparisons with the best: a
step-down correction is not safe when the best is picked by the same data). A candidate is dropped when
its corrected p is below the look's alpha *and* the paired bootstrap interval of its difference to the
best excludes 0 (the rule every verdict in ragkit follows).

**Many looks.** Testing after every batch gives chance many tries. The schedule therefore splits the
family-wise alpha: half of it is shared equally by the interim looks (Bonferroni), the other half goes to
the final look, on all questions. Whatever the number of looks, the chance of ever dropping a candidate
that is in truth as good as the best stays at or below alpha (the tests simulate this over null grids).
A sweep without racing is one look at the full alpha: the exhaustive reference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

import numpy as np

from ragkit.evaluation.metrics.ranktests import friedman_p_value
from ragkit.evaluation.metrics.stats import ALPHA, PairedComparison, compare_paired, paired_test

#: bootstrap resamples for a drop's interval (the verdict's CI; the p-value decides first)
RESAMPLES = 4000


@dataclass(frozen=True)
class Schedule:
    """When to look: after ``first`` questions, then every ``step`` more, until ``n``; and each look's
    alpha (see the module docstring)."""

    n: int
    first: int
    step: int
    alpha: float = ALPHA
    racing: bool = True

    def looks(self) -> list[int]:
        """The number of questions seen at each look (the last is ``n``)."""
        if not self.racing or self.n <= 0:
            return [max(self.n, 0)]
        out = [min(self.first, self.n)]
        while out[-1] < self.n:
            out.append(min(self.n, out[-1] + self.step))
        return out

    def alpha_at(self, look: int) -> float:
        """The alpha of look ``look`` (0-based): interim looks share alpha/2, the last gets alpha/2."""
        count = len(self.looks())
        if count == 1:
            return self.alpha
        if look == count - 1:
            return self.alpha / 2
        return self.alpha / 2 / (count - 1)

    def to_dict(self) -> dict:
        return {**asdict(self), "looks": self.looks()}


def default_schedule(
    n: int, alpha: float = ALPHA, racing: bool = True, first: int | None = None, step: int | None = None
) -> Schedule:
    """A tenth of the questions (at least 10) first, then batches of the same size: about ten looks."""
    first = first or max(10, math.ceil(n / 10))
    return Schedule(n, min(first, n), step or first, alpha, racing)


@dataclass(frozen=True)
class Drop:
    """Why a candidate left the race: at which look, on how many questions, against which best."""

    candidate: str
    look: int
    questions: int
    reason: str  # "worse than the best" or "constraint"
    best: str = ""
    diff: float = 0.0  # candidate minus best (in the metric's own units)
    ci_low: float = 0.0
    ci_high: float = 0.0
    p_value: float = 1.0
    p_corrected: float = 1.0  # p times the comparisons with the best
    alpha: float = ALPHA
    gate_p: float | None = None  # Friedman's p over the live candidates (None: two of them)
    detail: str = ""

    def to_dict(self) -> dict:
        return asdict(self)

    def sentence(self) -> str:
        """One line for the page: when, against whom, by what evidence."""
        if self.reason != "worse than the best":
            return f"dropped after {self.questions} questions: {self.detail}"
        gate = f"; Friedman p = {self.gate_p:.2g}" if self.gate_p is not None else ""
        return (
            f"dropped after {self.questions} questions: worse than {self.best} by {abs(self.diff):.4f} "
            f"(95 % CI {self.ci_low:+.4f} to {self.ci_high:+.4f}; p = {self.p_value:.2g}, corrected "
            f"{self.p_corrected:.2g} < {self.alpha:.2g}{gate})"
        )


def best_of(scores: Mapping[str, Sequence[float]], higher_is_better: bool = True) -> str:
    """The candidate with the best mean (ties: the first given)."""
    sign = 1.0 if higher_is_better else -1.0
    return max(scores, key=lambda c: sign * float(np.mean(scores[c])) if len(scores[c]) else -math.inf)


def friedman_p(scores: Mapping[str, Sequence[float]]) -> float | None:
    """Friedman's p over the candidates (rows: questions), or None with fewer than three; 1.0 when the
    scores are identical everywhere."""
    if len(scores) < 3:
        return None
    columns = [np.asarray(v, dtype=float) for v in scores.values()]
    if len(columns[0]) < 2 or all(np.array_equal(columns[0], c) for c in columns[1:]):
        return 1.0
    p = friedman_p_value(columns)
    return 1.0 if math.isnan(p) else p


def versus_best(
    scores: Mapping[str, Sequence[float]],
    best: str,
    alpha: float,
    higher_is_better: bool = True,
    seed: int = 0,
    intervals: bool = True,
) -> dict[str, PairedComparison]:
    """Each other candidate against ``best`` (``diff`` = candidate - best), its p-value multiplied by
    the k - 1 comparisons (Bonferroni, single step): Hsu's multiple comparisons with the best, which stay
    valid although the best is picked by the same data (a step-down correction would not). With
    ``intervals=False`` bootstrap intervals are drawn only where the corrected p is below alpha: what a
    look needs, at a fraction of the cost."""
    others = [c for c in scores if c != best]
    out = {}
    for c in others:
        raw = paired_test(scores[best], scores[c])[0]
        p_corrected = min(1.0, raw * len(others))
        if intervals or p_corrected < alpha:
            cmp = compare_paired(scores[best], scores[c], alpha, RESAMPLES, seed, higher_is_better)
        else:
            cmp = PairedComparison(
                len(scores[c]),
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                raw,
                "",
                False,
                higher_is_better=higher_is_better,
                alpha=alpha,
            )
        out[c] = replace(cmp, p_holm=p_corrected, family="race", family_size=len(others))
    return out


def look(
    scores: Mapping[str, Sequence[float]],
    look_index: int,
    alpha: float,
    higher_is_better: bool = True,
    seed: int = 0,
) -> tuple[str, list[Drop], float | None]:
    """One look over the live candidates' scores (same questions, same order): the best, the drops, and
    Friedman's p (None with two candidates)."""
    best = best_of(scores, higher_is_better)
    gate = friedman_p(scores)
    if gate is not None and gate >= alpha:
        return best, [], gate  # no evidence that the candidates differ at all: nothing to drop
    drops = []
    for c, cmp in versus_best(scores, best, alpha, higher_is_better, seed, intervals=False).items():
        worse = (cmp.diff < 0) == higher_is_better and cmp.diff != 0
        if cmp.significant and worse:
            drops.append(
                Drop(
                    c,
                    look_index,
                    len(scores[c]),
                    "worse than the best",
                    best,
                    cmp.diff,
                    cmp.ci_low,
                    cmp.ci_high,
                    cmp.p_value,
                    cmp.p_decisive,
                    alpha,
                    gate,
                )
            )
    return best, drops, gate


def race(
    scores: Mapping[str, Sequence[float]],
    schedule: Schedule,
    higher_is_better: bool = True,
    seed: int = 0,
) -> tuple[list[str], list[Drop], int]:
    """Race fully known per-question scores (every candidate on every question, in question order):
    the survivors, the drops, and the question evaluations racing would have used. What a sweep does
    look by look, in one call: for tests and simulations."""
    alive = list(scores)
    drops: list[Drop] = []
    used = 0
    seen = 0
    for i, upto in enumerate(schedule.looks()):
        used += (upto - seen) * len(alive)
        seen = upto
        now = {c: scores[c][:upto] for c in alive}
        _, dropped, _ = look(now, i, schedule.alpha_at(i), higher_is_better, seed)
        drops += dropped
        gone = {d.candidate for d in dropped}
        alive = [c for c in alive if c not in gone]
        if len(alive) == 1:
            break
    return alive, drops, used
