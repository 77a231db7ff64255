"""Every pair of configs compared on every per-question metric of a run, with the run's primary metric
declared up front and Holm's correction over each family (see :mod:`ragkit.evaluation.metrics.stats`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.evaluation.metrics.names import LOWER_IS_BETTER, PER_QUESTION_METRICS
from ragkit.evaluation.metrics.stats import PairedComparison, compare_paired, correct_family


def default_primary(qset: Any) -> str:
    """The metric a run is decided on when the user names none, chosen from what the set labels (never
    from the results): ranking quality when relevance is labelled, else whether the answer holds the gold
    answer, else the right abstentions."""
    if qset.kind == "beir":
        return "ndcg@10"
    questions = qset.questions
    if any(q.evidence or q.relevant or q.quotes for q in questions):
        return "ndcg@10"
    if any(q.answers for q in questions):
        return "contains_gold"
    return "idk_when_absent"


def check_primary(name: str | None) -> str | None:
    """``name`` if it is a per-question metric (or None); else an error listing them."""
    if name is not None and name not in PER_QUESTION_METRICS:
        raise RagkitError(f"unknown primary metric {name!r}; choose from {', '.join(PER_QUESTION_METRICS)}")
    return name


def compare_runs(runs: Sequence[Any], metric_names: Sequence[str], primary: str) -> list[dict[str, Any]]:
    """Every pair of ``runs`` on every metric in ``metric_names``, over the questions both scored;
    the ``primary`` metric's pairs are one Holm family (confirmatory), all other tests another
    (exploratory). Each comparison is a dict with its raw and corrected p and a verdict."""
    tests: list[tuple[str, str, str, PairedComparison]] = []
    for ra, rb in itertools.combinations(runs, 2):
        for m in metric_names:
            qids = [
                q
                for q in ra.per_question
                if q in rb.per_question
                and ra.per_question[q].get(m) is not None
                and rb.per_question[q].get(m) is not None
            ]
            if not qids:
                continue
            res = compare_paired(
                [ra.per_question[q][m] for q in qids],
                [rb.per_question[q][m] for q in qids],
                higher_is_better=m not in LOWER_IS_BETTER,
            )
            tests.append((ra.config.name, rb.config.name, m, res))
    corrected: dict[int, PairedComparison] = {}
    for family, member in (("primary", lambda m: m == primary), ("exploratory", lambda m: m != primary)):
        idx = [i for i, t in enumerate(tests) if member(t[2])]
        for i, c in zip(idx, correct_family([tests[i][3] for i in idx], family), strict=True):
            corrected[i] = c
    return [
        {"a": a, "b": b, "metric": m, **corrected[i].to_dict(a, b)} for i, (a, b, m, _) in enumerate(tests)
    ]
