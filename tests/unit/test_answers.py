"""Unit tests of :mod:`ragkit.evaluation.metrics.answers`."""

from __future__ import annotations

import pytest


def test_answer_metrics():
    from ragkit.evaluation.metrics.answers import contains_gold, exact_match, normalize_answer, token_f1

    assert normalize_answer("The  Eiffel Tower! [1]") == "eiffel tower"
    assert exact_match("the Eiffel tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    assert token_f1("Eiffel", ["Eiffel Tower"]) == pytest.approx(2 / 3)
    assert token_f1("completely wrong", ["Eiffel Tower", "tower"]) == 0.0
    assert contains_gold("It was built in 1889 [2].", ["1889"]) == 1.0
    assert contains_gold("It was built in 18890.", ["1889"]) == 0.0  # word boundaries
    assert contains_gold("anything", [""]) == 0.0
