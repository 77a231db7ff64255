"""Selection and report on different questions: a sweep races on one part of the question set and re-scores
the set-ups it keeps on the other, which the race never saw (pure; the winner's curse).

Picking the best of N noisy means on some questions and reporting its mean on the same questions
overstates it: the pick favours set-ups whose noise happened to be kind. The held-out mean of the same
set-up is unbiased, and the difference, the *optimism*, says how much the pick flattered it.

**The split** is seeded and stratified by document: questions are grouped by the document their evidence
is in (the first relevant one), and every group gives its share (default 30 %) to the held-out part,
rounded so the whole set gives exactly ``round(n × share)``: small groups take turns (systematic sampling
over the groups in a seeded order). It depends on the questions, the seed and the share only, so a
resumed sweep holds out the same questions.

**Too few questions**: below :data:`MIN_HOLDOUT` held-out or :data:`MIN_SELECTION` racing questions the
set is not split (a held-out mean over fewer than ten questions has a 95 % interval about ±0.3 wide for a
0/1 metric, too wide to tell any optimism from noise; racing looks first after ten questions, so fewer
than twenty leaves it one look). The race then runs on every question and its scores are labelled
optimistic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.evaluation.metrics.stats import mean_ci

#: the share of the questions held out by default, and the most that may be (the race needs the rest)
DEFAULT_SHARE = 0.3
MAX_SHARE = 0.5
#: fewest held-out questions worth a mean with an interval (see the module docstring)
MIN_HOLDOUT = 10
#: fewest questions to race on: two looks of the default first batch
MIN_SELECTION = 20
#: bootstrap resamples for the means' intervals
RESAMPLES = 4000
NO_DOCUMENT = "(no evidence)"


def stratum(qset: Any, item: Any) -> str:
    """The document a question's evidence is in (its stratum): the highest-graded relevant document of a
    BEIR query, else the first relevant file or evidence passage's file; absent questions share one."""
    if qset.kind == "beir":
        rel = qset.beir.qrels.get(str(getattr(item, "qid", item)), {})
        return min(rel, key=lambda d: (-rel[d], d)) if rel else NO_DOCUMENT
    if item.relevant:
        return str(item.relevant[0][0])
    if item.evidence:
        return str(item.evidence[0].source)
    return NO_DOCUMENT


def min_questions(share: float) -> int:
    """The fewest questions that split into at least ``MIN_HOLDOUT`` held out and ``MIN_SELECTION`` raced."""
    if share <= 0:
        return 0
    n = MIN_SELECTION + MIN_HOLDOUT
    while not (held_count(n, share) >= MIN_HOLDOUT and n - held_count(n, share) >= MIN_SELECTION):
        n += 1
    return n


def held_count(n: int, share: float) -> int:
    """How many of ``n`` questions a share holds out: ``round(n × share)``, halves up."""
    return math.floor(n * share + 0.5)


def split(
    ids: Sequence[str], strata: Callable[[str], str], share: float, seed: int
) -> tuple[list[str], list[str], str]:
    """``ids`` split into (selection, held out), each in the given order, and the split's status:
    ``split``, ``off`` (share 0) or ``too few questions`` (then every question is raced)."""
    if not 0 <= share <= MAX_SHARE:
        raise ConfigError(f"the held-out share must be between 0 and {MAX_SHARE:g}, got {share:g}")
    if share <= 0:
        return list(ids), [], "off"
    n = len(ids)
    if n < min_questions(share):
        return list(ids), [], "too few questions"
    rng = random.Random(f"holdout-{seed}")  # its own stream: the question order's is not disturbed
    groups: dict[str, list[str]] = {}
    for q in ids:
        groups.setdefault(strata(q), []).append(q)
    keys = sorted(groups)
    rng.shuffle(keys)
    ordered: list[str] = []
    for k in keys:
        members = sorted(groups[k])
        rng.shuffle(members)
        ordered += members
    # systematic sampling: position i is held out when the running count of round(i × share) steps
    held = {q for i, q in enumerate(ordered) if held_count(i + 1, share) > held_count(i, share)}
    return [q for q in ids if q not in held], [q for q in ids if q in held], "split"


def mean_interval(values: Sequence[float], seed: int = 0) -> tuple[float, float, float] | None:
    """The mean and its bootstrap 95 % percentile interval (None for no values)."""
    return mean_ci(values, RESAMPLES, seed) if len(values) else None


def optimism(
    selection: Sequence[float], held_out: Sequence[float], higher_is_better: bool = True, seed: int = 0
) -> tuple[float, float, float] | None:
    """How much better a set-up looks on the questions it was picked on than on held-out ones (selection
    minus held-out, turned for metrics where lower is better: positive means the pick flattered it), with
    a 95 % interval from resampling both parts independently (they share no question)."""
    if not selection or not held_out:
        return None
    sign = 1.0 if higher_is_better else -1.0
    a, b = np.asarray(selection, dtype=float), np.asarray(held_out, dtype=float)
    rng = np.random.default_rng(seed)
    da = a[rng.integers(0, len(a), (RESAMPLES, len(a)))].mean(axis=1)
    db = b[rng.integers(0, len(b), (RESAMPLES, len(b)))].mean(axis=1)
    lo, hi = np.percentile(sign * (da - db), [2.5, 97.5])
    return float(sign * (a.mean() - b.mean())), float(lo), float(hi)


def split_note(status: str, n: int, share: float) -> str:
    """One line for the report and the page: what the split did, and why the scores are optimistic when
    nothing was held out."""
    if status == "split":
        held = held_count(n, share)
        return (
            f"{n - held} questions raced (selection), {held} held out and never seen by the race: the "
            "best set re-scored on them (stratified by document, seeded)"
        )
    why = (
        "no questions held out (share 0)"
        if status == "off"
        else f"{n} questions are too few to hold {share:.0%} out (at least {min_questions(share)}: "
        f"{MIN_HOLDOUT} held out, {MIN_SELECTION} to race on)"
    )
    return f"{why}: the scores below picked the winner on the same questions, so they are optimistic"
