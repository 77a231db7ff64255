"""Unit tests of :mod:`ragkit.retrievers.dense`."""

from __future__ import annotations

import numpy as np
import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.types import Chunk, Document, Page, Span
from ragkit.index.store import IndexStore
from ragkit.retrievers import dense as dense_mod
from ragkit.retrievers.dense import DenseRetriever


class VecEmbedder:
    """Query vectors looked up by text (the test picks them)."""

    model_id = "fake/vectors"
    dimension = 32

    def __init__(self, queries: dict[str, np.ndarray]) -> None:
        self.queries = queries

    def embed_query(self, q: str) -> np.ndarray:
        return self.queries[q]


def clustered(n: int, dim: int = 32, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(20, dim))
    v = centres[rng.integers(0, 20, n)] + 0.3 * rng.normal(size=(n, dim))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def store_of(vectors: np.ndarray, tmp_path) -> IndexStore:
    store = IndexStore(tmp_path / "idx", "fake/vectors", vectors.shape[1], {"name": "sliding"})
    chunks = [Chunk(f"c{i}", "d", "d.txt", i, f"t{i}", (Span(1, 0, 1),)) for i in range(len(vectors))]
    store.add(Document("d", "d.txt", "0" * 64, (Page(1, "x"),), "txt"), chunks, vectors, {})
    return store


def test_hnsw_finds_what_exact_search_finds_with_exact_cosines(tmp_path):
    vectors = clustered(3000)
    queries = {f"q{i}": v for i, v in enumerate(clustered(50, seed=1))}
    store = store_of(vectors, tmp_path)
    emb = VecEmbedder(queries)
    exact = DenseRetriever(store, emb, index="flat")
    approx = DenseRetriever(store, emb, index="hnsw", hnsw_m=16, hnsw_ef_search=64)
    overlap = []
    for q, v in queries.items():
        a, b = exact.search(q, 10), approx.search(q, 10)
        overlap.append(len({h.chunk_id for h in a} & {h.chunk_id for h in b}) / 10)
        for h in b:  # HNSW may miss a candidate, but the score it reports is the true cosine
            assert h.score == pytest.approx(float(vectors[int(h.chunk_id[1:])] @ v), abs=1e-5)
            assert h.scores["dense"] == h.cosine == h.score
        assert [h.rank for h in b] == list(range(1, len(b) + 1))
    assert np.mean(overlap) >= 0.9
    assert approx.uses_hnsw() and not exact.uses_hnsw()


def test_auto_switches_at_the_documented_size_and_an_in_memory_add_is_seen(tmp_path, monkeypatch):
    vectors = clustered(200)
    store = store_of(vectors, tmp_path)
    q = {"q": vectors[7]}
    auto = DenseRetriever(store, VecEmbedder(q), index="auto")
    assert not auto.uses_hnsw()
    monkeypatch.setattr(dense_mod, "HNSW_FROM", 100)
    assert auto.uses_hnsw()
    assert auto.search("q", 1)[0].chunk_id == "c7"
    # a document added in memory (not saved) is searchable at once: the FAISS index is rebuilt
    new = clustered(1, seed=9)
    store.add(
        Document("e", "e.txt", "1" * 64, (Page(1, "y"),), "txt"),
        [Chunk("e0", "e", "e.txt", 0, "n", (Span(1, 0, 1),))],
        new,
        {},
    )
    auto.embedder.queries["new"] = new[0]
    assert auto.search("new", 1)[0].chunk_id == "e0"
    with pytest.raises(ConfigError, match="dense index must be one of flat, hnsw, auto"):
        DenseRetriever(store, VecEmbedder(q), index="ivf")
