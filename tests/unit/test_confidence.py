"""Unit tests of :mod:`ragkit.pipeline.confidence`."""

from __future__ import annotations

import random

import pytest

from ragkit.core.types import Chunk, Hit, Span
from ragkit.pipeline.confidence import ConfidenceConfig, retrieval_confidence


def hit(rank, doc="d1", cosine=None, scores=None, ranks=None):
    chunk = Chunk(f"{doc}-c{rank}", doc, f"{doc}.pdf", rank, "text", (Span(1, 0, 4),))
    scores = scores or {}
    return Hit(chunk, rank, scores.get("x", 0.0), "dense", scores, ranks or {"dense": rank}, cosine)


def test_confidence_empty_is_zero_and_abstains():
    c = retrieval_confidence([])
    assert c.value == 0 and c.band == "low" and c.abstain
    assert "nothing was retrieved" in c.reason


def test_confidence_strong_vs_weak_and_bands():
    strong = retrieval_confidence([hit(1, cosine=0.8), hit(2, cosine=0.7), hit(3, cosine=0.65)])
    weak = retrieval_confidence([hit(1, cosine=0.1), hit(2, cosine=0.05), hit(3, cosine=0.0)])
    assert strong.band == "high" and not strong.abstain
    assert weak.band == "low" and weak.abstain and "below the threshold" in weak.reason
    assert 0 <= weak.value < strong.value <= 1
    assert strong.inputs["basis"] == "cosine" and strong.inputs["top_signal"] == 0.8


def test_confidence_prefers_rerank_scores():
    c = retrieval_confidence([hit(1, cosine=0.1, scores={"rerank": 6.0}, ranks={"rerank": 1, "rrf": 1})])
    assert c.inputs["basis"] == "rerank" and c.value > 0.7


@pytest.mark.parametrize("seed", range(25))
def test_confidence_is_monotone_in_scores(seed):
    rng = random.Random(seed)
    cos = sorted((rng.uniform(-0.2, 0.9) for _ in range(5)), reverse=True)
    docs = [rng.choice("ab") for _ in cos]
    hits = [hit(i + 1, docs[i], cosine=c) for i, c in enumerate(cos)]
    base = retrieval_confidence(hits).value
    bump = rng.uniform(0.0, 0.3)
    stronger = [hit(i + 1, docs[i], cosine=c + bump) for i, c in enumerate(cos)]
    assert retrieval_confidence(stronger).value >= base
    # raising one hit's score (keeping the order) never lowers it either
    j = rng.randrange(len(cos))
    ceiling = cos[j - 1] if j > 0 else 1.0
    one = [hit(i + 1, docs[i], cosine=(ceiling if i == j else c)) for i, c in enumerate(cos)]
    assert retrieval_confidence(one).value >= base


def test_confidence_agreement_raises_it():
    same = [hit(1, "a", 0.5), hit(2, "a", 0.5), hit(3, "a", 0.5)]
    mixed = [hit(1, "a", 0.5), hit(2, "b", 0.5), hit(3, "c", 0.5)]
    assert retrieval_confidence(same).value > retrieval_confidence(mixed).value
    agree = hit(1, "a", 0.5, ranks={"rrf": 1, "bm25": 1, "dense": 2})
    disagree = hit(1, "a", 0.5, ranks={"rrf": 1, "bm25": 1, "dense": 40})
    assert retrieval_confidence([agree]).value > retrieval_confidence([disagree]).value


def test_confidence_threshold_config():
    hits = [hit(1, cosine=0.35)]
    assert retrieval_confidence(hits, ConfidenceConfig(threshold=0.0)).abstain is False
    assert retrieval_confidence(hits, ConfidenceConfig(threshold=1.0)).abstain is True
