"""Unit tests of :mod:`ragkit.pipeline.answer`."""

from __future__ import annotations

import json

import pytest

from ragkit.core.types import Span
from ragkit.pipeline.answer import Answer
from tests.conftest import sample_answer as _answer


def test_answers_round_trip_through_json_with_their_provenance():
    a = _answer()
    again = Answer.from_dict(json.loads(json.dumps(a.to_dict())))
    assert again.to_dict() == a.to_dict()
    h = again.hits[0]
    assert h.chunk.spans == (Span(2, 10, 49),) and h.ranks == {"rrf": 1, "bm25": 2} and h.cosine == 0.61
    assert again.confidence.value == pytest.approx(a.confidence.value)
