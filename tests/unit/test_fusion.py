"""Unit tests of :mod:`ragkit.retrievers.fusion`."""

from __future__ import annotations

import pytest

from ragkit.retrievers.fusion import reciprocal_rank_fusion


def test_rrf_by_hand():
    fused = reciprocal_rank_fusion({"bm25": ["a", "b", "c"], "dense": ["c", "a"]}, k=60)
    expected = {
        "a": 1 / 61 + 1 / 62,
        "b": 1 / 62,
        "c": 1 / 63 + 1 / 61,
    }
    assert [d for d, _ in fused] == ["a", "c", "b"]
    for d, s in fused:
        assert s == pytest.approx(expected[d], abs=1e-15)


def test_rrf_weights_and_k():
    fused = dict(
        reciprocal_rank_fusion(
            {"bm25": ["a", "b"], "dense": ["b", "a"]}, weights={"bm25": 0.8, "dense": 0.2}, k=10
        )
    )
    assert fused["a"] == pytest.approx(0.8 / 11 + 0.2 / 12)
    assert fused["b"] == pytest.approx(0.8 / 12 + 0.2 / 11)
    assert fused["a"] > fused["b"]
    zero = dict(reciprocal_rank_fusion({"x": ["a"], "y": ["b"]}, weights={"x": 0.0, "y": 1.0}))
    assert zero["a"] == 0.0 and zero["b"] > 0


def test_rrf_ties_are_deterministic():
    fused = reciprocal_rank_fusion({"x": ["b", "a"], "y": ["a", "b"]})
    assert fused[0][1] == fused[1][1]
    assert [d for d, _ in fused] == ["a", "b"]  # same score, same best rank: by id


def test_rrf_rejects_negative_k():
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"x": ["a"]}, k=-1)
