"""Retrievers on tiny corpora with a known right answer: real MiniLM, FAISS and a tiny cross-encoder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.core.errors import ModelNotAvailableError
from ragkit.index.ingest import open_or_create
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.retrievers import build_retriever
from ragkit.retrievers.rerank import CrossEncoderReranker, RerankRetriever
from tests.conftest import build_tiny_cross_encoder, ingest_bytes, run_ragkit

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]

CORPUS = {
    "pump.txt": "E4471: the pump lost pressure after the seal cracked.",
    "codes.txt": "A description of error codes and what an error code means for your system.",
    "car.txt": "Automobile maintenance: repairing a car engine that refuses to turn over in the morning.",
    "sleep.txt": "How can I fix my sleep schedule when I start work late and stay up at night?",
    "lisbon.txt": "Lisbon enjoys mild winters, and the city's trams climb steep hills above the river.",
    "bread.txt": "Sourdough bread needs a mature starter, a long fermentation and a very hot oven.",
    "seal_a.txt": "Part number XK-4471 is the replacement seal for the main pump.",
    "seal_b.txt": "Part number QZ-9902 is the replacement seal for the backup pump.",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("idx") / "tiny"
    st, chunker = open_or_create(path, embedder, SlidingChunker(size=500, overlap=0))
    ingest_bytes(st, [(n, t.encode()) for n, t in CORPUS.items()], chunker, embedder)
    return st


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    """A 2-layer BERT cross-encoder with random weights and a tiny vocabulary, saved to a temp dir."""
    words = {w.strip(".,:;?'").lower() for t in CORPUS.values() for w in t.split()} | {"pump"}
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-ce"), words)


def first_source(hits):
    return hits[0].chunk.source if hits else None


def test_exact_keyword_bm25_wins(store, embedder):
    """Two passages that mean the same and differ only by a part number: BM25 tells them apart by the
    exact identifier, dense retrieval can barely tell them apart at all."""
    query = "XK-4471 replacement seal"
    bm25 = build_retriever("bm25", store, embedder).search(query, 8)
    dense = build_retriever("dense", store, embedder).search(query, 8)
    assert first_source(bm25) == "seal_a.txt"
    by_source = {h.chunk.source: h for h in bm25}
    assert by_source["seal_a.txt"].score > 1.5 * by_source["seal_b.txt"].score
    cos = {h.chunk.source: h.cosine for h in dense}
    bm25_gap = (by_source["seal_a.txt"].score - by_source["seal_b.txt"].score) / by_source["seal_a.txt"].score
    dense_gap = (cos["seal_a.txt"] - cos["seal_b.txt"]) / cos["seal_a.txt"]
    assert bm25_gap > 3 * abs(dense_gap)  # the identifier decides BM25; meaning alone hardly separates them


def test_paraphrase_dense_wins(store, embedder):
    query = "How can I fix my vehicle when it won't start?"
    dense = build_retriever("dense", store, embedder).search(query, 6)
    bm25 = build_retriever("bm25", store, embedder).search(query, 6)
    assert first_source(dense) == "car.txt"
    assert first_source(bm25) == "sleep.txt"  # the words match, the meaning does not
    assert dense[0].scores["dense"] == pytest.approx(dense[0].cosine)
    assert -1.0 <= dense[-1].cosine <= dense[0].cosine <= 1.0


def test_hybrid_records_every_stage_and_fuses_by_hand(store, embedder):
    hybrid = build_retriever("hybrid", store, embedder, hybrid={"k": 60, "depth": 8})
    hits = hybrid.search("error code E4471", 8)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    for h in hits:
        assert h.stage == "rrf" and h.ranks["rrf"] == h.rank and h.cosine is not None
        assert "dense" in h.ranks  # dense ranks every chunk in an 8-chunk index
        expected = sum(1 / (60 + h.ranks[s]) for s in ("bm25", "dense") if s in h.ranks)
        assert h.scores["rrf"] == pytest.approx(expected)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_intent_routing_changes_weights(store, embedder):
    hybrid = build_retriever("hybrid", store, embedder, hybrid={"intent_routing": True})
    weights, intent = hybrid.weights_for("Compare sourdough and the Lisbon trams")
    assert intent == "COMPARISON" and weights == {"bm25": 0.3, "dense": 0.7}
    hits = hybrid.search("Who repaired the pump with code E4471?", 3)
    assert hybrid.last_intent == "FACT" and first_source(hits) == "pump.txt"


def test_tiny_cross_encoder_reranks_and_keeps_provenance(store, embedder, tiny_cross_encoder):
    reranker = CrossEncoderReranker(str(tiny_cross_encoder))
    base = build_retriever("hybrid", store, embedder, hybrid={"depth": 8})
    rr = RerankRetriever(base, reranker, candidates=8)
    query = "pump pressure seal"
    timings: dict[str, float] = {}
    hits = rr.search(query, 4, timings)
    raw = reranker.score(query, [h.chunk.text for h in base.search(query, 8)])
    assert [h.score for h in hits] == pytest.approx(sorted(raw, reverse=True)[:4], abs=1e-5)
    for h in hits:
        assert {"rrf", "rerank"} <= set(h.ranks) and h.ranks["rerank"] == h.rank
        assert h.movement().endswith(f"rerank #{h.rank}")
    assert {"bm25", "dense", "rrf", "rerank", "embed_query"} <= set(timings)


def test_reranker_loading_errors(tmp_path):
    with pytest.raises(ModelNotAvailableError, match="no such directory"):
        CrossEncoderReranker(str(tmp_path / "missing")).warm_up()
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelNotAvailableError, match="from that directory"):
        CrossEncoderReranker(str(empty)).warm_up()
    with pytest.raises(ModelNotAvailableError, match=r"local Hugging Face cache.*--rerank-model"):
        CrossEncoderReranker("cross-encoder/ms-marco-MiniLM-L-6-v2").warm_up()


def test_results_survive_a_round_trip_to_disk(store, embedder):
    again = IndexStore.open(store.path, model_id=embedder.model_id)
    for name in ("dense", "bm25", "hybrid"):
        a = build_retriever(name, store, embedder).search("mild winters by the river", 4)
        b = build_retriever(name, again, embedder).search("mild winters by the river", 4)
        assert [(h.chunk_id, round(h.score, 6)) for h in a] == [(h.chunk_id, round(h.score, 6)) for h in b]


def test_incremental_add_is_searchable(tmp_path, embedder):
    st, ch = open_or_create(tmp_path / "grow", embedder, SlidingChunker())
    ingest_bytes(st, [("a.txt", b"Bananas are yellow fruit.")], ch, embedder)
    dense, bm25 = build_retriever("dense", st, embedder), build_retriever("bm25", st, embedder)
    assert first_source(dense.search("yellow fruit", 1)) == "a.txt"
    ingest_bytes(st, [("b.txt", b"Quasars are distant luminous galactic nuclei.")], ch, embedder)
    assert first_source(dense.search("luminous quasars", 1)) == "b.txt"  # FAISS rebuilt on new generation
    assert first_source(bm25.search("quasars", 1)) == "b.txt"


def test_cli_search_json(store, tmp_path):
    proc = run_ragkit(
        "search",
        "--index",
        str(store.path),
        "--retriever",
        "hybrid",
        "--top-k",
        "3",
        "--json",
        "bread with a hot oven",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["hits"][0]["source"] == "bread.txt"
    assert set(out["hits"][0]["scores"]) >= {"rrf", "dense"} and out["hits"][0]["page"] == 1
    assert 0 <= out["confidence"]["value"] <= 1 and out["confidence"]["band"] in {"low", "medium", "high"}
    bad = run_ragkit(
        "search", "--index", str(store.path), "--rerank", "--rerank-model", str(tmp_path / "nope"), "bread"
    )
    assert bad.returncode == 1 and "no such directory" in bad.stderr and "Traceback" not in bad.stderr
