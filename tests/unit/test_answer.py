"""Unit tests of :mod:`ragkit.pipeline.answer`."""

from __future__ import annotations

import json

import pytest

from ragkit.core.types import Chunk, Hit, Span
from ragkit.pipeline.answer import Answer


def _answer(text: str = "Sholes patented it in 1868 [1].") -> Answer:
    chunk = Chunk("d-k-00001", "d", "a.pdf", 1, "Sholes patented the typewriter in 1868.", (Span(2, 10, 49),))
    hit = Hit(chunk, 1, 0.03, "rrf", {"rrf": 0.03, "bm25": 4.2}, {"rrf": 1, "bm25": 2}, cosine=0.61)
    from ragkit.pipeline.answer import Citation
    from ragkit.pipeline.confidence import retrieval_confidence

    return Answer(
        "Who?", "Who?", text, False, None, [Citation(1, chunk.chunk_id, "a.pdf", 2)], [], False, [hit],
        retrieval_confidence([hit]), "extractive", "m", "rag", "abc", timings_ms={"total": 12.5},
    )  # fmt: skip


def test_answers_round_trip_through_json_with_their_provenance():
    a = _answer()
    again = Answer.from_dict(json.loads(json.dumps(a.to_dict())))
    assert again.to_dict() == a.to_dict()
    h = again.hits[0]
    assert h.chunk.spans == (Span(2, 10, 49),) and h.ranks == {"rrf": 1, "bm25": 2} and h.cosine == 0.61
    assert again.confidence.value == pytest.approx(a.confidence.value)
