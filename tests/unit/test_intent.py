"""Unit tests of :mod:`ragkit.retrievers.intent`."""

from __future__ import annotations

import pytest

from ragkit.retrievers.intent import COMPARISON, CONCEPT, FACT, classify_intent


@pytest.mark.parametrize(
    "query, intent",
    [
        ("Who patented the typewriter, and when?", FACT),
        ("How many parameters does the model have?", FACT),
        ("What year was S2ORC released?", FACT),
        ("Why does reciprocal rank fusion work?", CONCEPT),
        ("How does dense retrieval handle paraphrases?", CONCEPT),
        ("What is retrieval augmented generation?", CONCEPT),
        ("Explain the role of the cross-encoder", CONCEPT),
        ("Compare BM25 and dense retrieval", COMPARISON),
        ("BM25 vs dense: which is better?", COMPARISON),
        ("What is the difference between recall and precision?", COMPARISON),
        ("Is hybrid retrieval more accurate than BM25?", COMPARISON),
        ("typewriter patent", FACT),
    ],
)
def test_intent_rules(query, intent):
    assert classify_intent(query) == intent
