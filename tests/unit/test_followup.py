"""Unit tests of :mod:`ragkit.pipeline.followup`: a question is rewritten only when it cannot stand
alone, and the pipeline says what it searched (round-3 regression: an unrelated question was searched
with the previous question's terms)."""

from __future__ import annotations

import pytest

from ragkit.core.types import Message
from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.followup import follow_up_reason, keeps_question
from ragkit.pipeline.rag import RagPipeline
from tests.conftest import ingest_bytes

HISTORY = [
    Message("user", "Why does DPR perform worse than BM25 on SQuAD?"),
    Message("assistant", "Because SQuAD questions share words with their passages [1]."),
]


@pytest.mark.parametrize(
    "question, reason",
    [
        ("Why does XYLayoutLM use dilated convolutions in its position encoding?", None),  # names its subject
        ("How many passages did the Wikipedia pre-processing produce?", None),
        ("What is the capital of France?", None),
        ("And on Natural Questions?", "starts with “And”"),
        ("Why?", "three words or fewer"),
        ("How does it compare with BM25?", "“it” refers back"),
        ("What do they use for negatives?", "“they” refers back"),
        # "their" refers to the question's own plural subject (a browser session: the previous question's
        # words were searched with it, and the abstention named them)
        ("How many deaf participants completed their ballots?", None),
        ("How do the authors evaluate their method?", None),
        ("What is the accuracy of their method?", "“their” refers back"),
        ("What is the status of their application?", "“their” refers back"),
    ],
)
def test_only_questions_that_cannot_stand_alone_are_follow_ups(question, reason):
    got = follow_up_reason(question, HISTORY)
    assert (got is None) if reason is None else (reason in got)
    assert follow_up_reason(question, []) is None  # nothing to lean on: never a follow-up


def test_a_rewrite_that_drops_the_questions_own_words_is_refused():
    assert keeps_question("DPR negatives BM25 hard negatives", "What does it use for negatives?")
    assert not keeps_question("DPR perform worse BM25 SQuAD", "What does it use for negatives?")


@pytest.fixture
def pipeline(tmp_path, fake_embedder):
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=300, overlap=0))
    ingest_bytes(
        store,
        [
            (
                "dpr.txt",
                b"DPR performs worse than BM25 on SQuAD because its questions copy the passage words.",
            ),
            ("xy.txt", b"XYLayoutLM uses dilated convolutions in its position encoding to widen the field."),
        ],
        chunker,
        fake_embedder,
    )
    return lambda **kw: RagPipeline(PipelineConfig(confidence_threshold=0.0, **kw), store, fake_embedder)


def test_an_unrelated_question_after_another_is_searched_as_asked(pipeline):
    question = "Why does XYLayoutLM use dilated convolutions in its position encoding?"
    answer = pipeline().ask(question, HISTORY)
    assert answer.query == question and "follow_up" not in answer.trace


def test_a_real_follow_up_is_rewritten_and_says_so_unless_rewriting_is_off(pipeline):
    answer = pipeline().ask("And its reason?", HISTORY)
    assert answer.query != "And its reason?" and "DPR" in answer.query
    assert answer.trace["follow_up"]["rewritten"] and "starts with" in answer.trace["follow_up"]["why"]
    off = pipeline(rewrite_follow_ups=False).ask("And its reason?", HISTORY)
    assert off.query == "And its reason?" and off.trace["follow_up"]["rewritten"] is False
