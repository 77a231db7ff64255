"""Unit tests of :mod:`ragkit.evaluation.metrics.judge`."""

from __future__ import annotations

import random

import pytest

from ragkit.core.errors import ConfigError
from ragkit.evaluation.metrics.judge import (
    cohen_kappa,
    context_precision_score,
    f1_from_counts,
    first_json,
    parse_metrics,
    parse_simpleqa_grade,
    simpleqa_summary,
    spearman,
)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"verdict": 1}', {"verdict": 1}),
        ('Sure.\n```json\n{"statements": ["a", "b"]}\n```\nDone.', {"statements": ["a", "b"]}),
        ('["x", "y"]', ["x", "y"]),
        ('noise {bad json} then {"ok": {"nested": [1, 2]}}', {"ok": {"nested": [1, 2]}}),
        ("no json at all", None),
        ('{"unterminated": ', None),
    ],
)
def test_first_json_finds_the_object_around_prose(reply, expected):
    assert first_json(reply) == expected


def test_ragas_context_precision_and_factual_f1_formulas():
    # RAGAS: sum_k precision@k * v_k / number of useful contexts
    assert context_precision_score([1, 0, 1]) == pytest.approx((1 / 1 + 2 / 3) / 2)
    assert context_precision_score([0, 1]) == pytest.approx(0.5)
    assert context_precision_score([0, 0, 0]) == 0.0 and context_precision_score([1, 1]) == 1.0
    # moving the useful context down the ranking lowers it
    assert (
        context_precision_score([0, 0, 1])
        < context_precision_score([0, 1, 0])
        < context_precision_score([1, 0, 0])
    )
    assert f1_from_counts(2, 1, 1) == pytest.approx(2 / 3) and f1_from_counts(0, 0, 0) == 0.0


@pytest.mark.parametrize(
    ("reply", "grade"),
    [
        ("CORRECT", "CORRECT"),
        ("  incorrect.", "INCORRECT"),
        ("NOT_ATTEMPTED", "NOT_ATTEMPTED"),
        ("Not attempted", "NOT_ATTEMPTED"),
        ("The grade is: INCORRECT", "INCORRECT"),
        ("A", "CORRECT"),
        ("C", "NOT_ATTEMPTED"),
        ("maybe", None),
        ("", None),
    ],
)
def test_simpleqa_grades_parse_words_and_letters(reply, grade):
    assert parse_simpleqa_grade(reply) == grade


def test_simpleqa_summary_matches_its_definitions():
    grades = ["CORRECT"] * 3 + ["INCORRECT"] * 1 + ["NOT_ATTEMPTED"] * 4
    s = simpleqa_summary(grades)
    assert s["accuracy"] == pytest.approx(3 / 8) and s["attempted"] == pytest.approx(4 / 8)
    assert s["accuracy_given_attempted"] == pytest.approx(3 / 4)
    assert s["f_score"] == pytest.approx(2 * (3 / 8) * (3 / 4) / (3 / 8 + 3 / 4))
    # abstaining more never raises accuracy, but can raise accuracy given attempted
    s2 = simpleqa_summary(["CORRECT"] * 3 + ["NOT_ATTEMPTED"] * 5)
    assert s2["accuracy"] == s["accuracy"] and s2["accuracy_given_attempted"] > s["accuracy_given_attempted"]
    assert simpleqa_summary([]) == {}


def test_agreement_statistics_match_scipy_and_sklearn():
    from scipy.stats import spearmanr
    from sklearn.metrics import cohen_kappa_score

    rng = random.Random(3)
    a = [rng.random() for _ in range(40)]
    b = [x + rng.gauss(0, 0.2) for x in a]
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic)
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # no variance: undefined, not 0
    grades = ["CORRECT", "INCORRECT", "NOT_ATTEMPTED"]
    g1 = [rng.choice(grades) for _ in range(60)]
    g2 = [g if rng.random() < 0.7 else rng.choice(grades) for g in g1]
    assert cohen_kappa(g1, g2) == pytest.approx(cohen_kappa_score(g1, g2))
    assert cohen_kappa(g1, g1) == 1.0


def test_parse_metrics():
    assert parse_metrics("faithfulness, simpleqa") == ("faithfulness", "simpleqa")
    assert "context_recall" in parse_metrics("all") and parse_metrics(None) == parse_metrics("")
    with pytest.raises(ConfigError, match="unknown judge metrics"):
        parse_metrics("faithfulness,truthiness")
