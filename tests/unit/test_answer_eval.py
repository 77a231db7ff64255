"""Answer evaluation's pure parts: judge-reply parsing, RAGAS formulas, SimpleQA grades and summary,
agreement statistics, calibration maps (fit, cross-validation, storage in the config), and the offline
citation check on hand-built sentences."""

from __future__ import annotations

import itertools
import json
import math
import random
from dataclasses import replace

import numpy as np
import pytest

from ragkit.core.errors import ConfigError, RagkitError
from ragkit.evaluation.answer_metrics import (
    cohen_kappa,
    context_precision_score,
    f1_from_counts,
    first_json,
    load_simpleqa,
    parse_metrics,
    parse_simpleqa_grade,
    simpleqa_summary,
    spearman,
)
from ragkit.evaluation.calibration import (
    cross_validated_calibration,
    expected_calibration_error,
    fit_calibration,
)
from ragkit.evaluation.citations_check import cited_sentences
from ragkit.pipeline.calibration import CalibrationMap
from ragkit.pipeline.config import PipelineConfig


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


def test_load_simpleqa_csv(tmp_path):
    p = tmp_path / "simple_qa_test_set.csv"
    p.write_text(
        "metadata,problem,answer\n\"{'topic': 'Art'}\",Who painted the ceiling?,Michelangelo\n"
        '"{}","In what year did X happen?","1868"\n"{}",,ignored\n',
        encoding="utf-8",
    )
    qs = load_simpleqa(p)
    assert [(q.question, q.answers) for q in qs] == [
        ("Who painted the ceiling?", ("Michelangelo",)),
        ("In what year did X happen?", ("1868",)),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("question,gold\nq,a\n")
    with pytest.raises(RagkitError, match=r"bad.csv: a SimpleQA CSV has 'problem' and 'answer' columns"):
        load_simpleqa(bad)


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


# ------------------------------------------------------------------ calibration


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
    with pytest.raises(ValueError, match="at least 10 labelled questions"):
        fit_calibration([0.5] * 4, [1, 0, 1, 0])
    with pytest.raises(ValueError, match="same outcome"):
        fit_calibration([i / 20 for i in range(20)], [1.0] * 20)


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


def test_apply_calibration_moves_value_band_and_abstention_and_keeps_the_raw_value():
    from ragkit.pipeline.confidence import Confidence, ConfidenceConfig, apply_calibration

    m = CalibrationMap("isotonic", (0.0, 0.2, 1.0), (0.0, 0.7, 0.9), fitted_on="SciFact", n=300)
    cfg = ConfidenceConfig(threshold=0.25)
    raw = Confidence(0.2, "low", True, 0.25, {"hits": 3})
    c = apply_calibration(raw, m, cfg)
    assert c.value == pytest.approx(0.7) and c.band == "high" and not c.abstain
    assert c.inputs["raw_value"] == 0.2 and "SciFact" in c.calibration and raw.calibration is None
    empty = Confidence(0.0, "low", True, 0.25, {"hits": 0})
    assert apply_calibration(empty, m, cfg) is empty  # nothing retrieved stays 0
    assert math.isclose(CalibrationMap("platt", a=0.0, b=0.0).apply(0.9), 0.5)


# ------------------------------------------------------------------ citations


@pytest.mark.parametrize(
    ("style", "text", "expected"),
    [
        (
            "numbered",
            "Paris is the capital of France [1]. It lies on the Seine. [2] Yes.",
            [("Paris is the capital of France.", [1]), ("It lies on the Seine.", [2]), ("Yes.", [])],
        ),
        ("numbered", "Both hold [1, 3].", [("Both hold.", [1, 3])]),
        (
            "context-i",
            "As Context 2 says, tides follow the moon.",
            [("As says, tides follow the moon.", [2])],
        ),
        ("xml", 'The moon pulls the sea <source id="1"/>.', [("The moon pulls the sea.", [1])]),
    ],
)
def test_cited_sentences_in_every_prompt_style(style, text, expected):
    got = cited_sentences(text, 5, style)
    assert [(" ".join(s.replace(" .", ".").split()), c) for s, c in got] == expected


@pytest.fixture(scope="module")
def sources():
    return [
        "The Eiffel Tower was completed in 1889. It is 330 metres tall and stands in Paris.",
        "Mount Everest is the highest mountain above sea level, at 8,849 metres, in the Himalayas.",
    ]


def test_citation_check_flags_a_citation_that_does_not_support_its_sentence(sources, embedder):
    from ragkit.evaluation.citations_check import check_citations

    good = check_citations("The Eiffel Tower was completed in 1889 [1].", sources, embedder)
    assert good.precision == 1.0 and good.recall == 1.0 and good.unsupported == []
    wrong = check_citations("The Eiffel Tower was completed in 1889 [2].", sources, embedder)
    s = wrong.sentences[0]
    assert wrong.precision == 0.0 and wrong.unsupported == [2] and s.supportable  # [1] would have done
    assert wrong.recall == 0.0  # a supportable sentence without a supporting citation
    mixed = check_citations(
        "The Eiffel Tower is 330 metres tall [1]. Everest is 8,849 metres high [1].", sources, embedder
    )
    assert mixed.precision == pytest.approx(0.5) and mixed.unsupported == [1]
    assert [x.supported_by for x in mixed.sentences] == [[1], []]
    uncited = check_citations("The Eiffel Tower was completed in 1889.", sources, embedder)
    assert uncited.precision is None and uncited.recall == 0.0  # supportable but cites nothing


def test_citation_check_with_a_decider_replaces_the_offline_decision(sources, embedder):
    from ragkit.evaluation.citations_check import check_citations

    never = check_citations(
        "The Eiffel Tower was completed in 1889 [1].", sources, embedder, lambda s, c: False
    )
    assert never.method == "llm" and never.precision == 0.0 and never.unsupported == [1]


def test_unsupported_citations_are_marked_where_they_occur(sources, embedder):
    from ragkit.app.presentation import answer_html, renumbered_refs
    from ragkit.evaluation.citations_check import (
        CitationCheck,
        check_citations,
        unsupported_markers,
    )

    text = "The Eiffel Tower was completed in 1889 [2]. Everest is 8,849 metres high [2]."
    check = check_citations(text, sources, embedder)
    flags = unsupported_markers(text, check)
    assert flags == [[2], []]  # the same source: wrong for the first sentence, right for the second
    html, mapping = answer_html(text, 2, "k", unsupported=flags)
    assert mapping == {2: 1}  # renumbered in the order cited
    assert html.count('class="rk-ref rk-bad"') == 1 and html.index("rk-bad") < html.index("Everest")
    assert renumbered_refs(check.summary(), mapping).endswith("[1] cited without support.")
    assert "1 of 2 citations support their sentence" in check.summary()
    back = CitationCheck.from_dict(json.loads(json.dumps(check.to_dict())))
    assert unsupported_markers(text, back) == flags and back.precision == check.precision
