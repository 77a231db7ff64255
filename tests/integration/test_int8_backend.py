"""The onnx-int8 embedding backend on the real packaged MiniLM: converted once per test session (its
cache reused by every later construction), close to float32 and deterministic, kept apart from float32
vectors in the cache and the index, and raced against torch by a sweep."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from ragkit.core.errors import ModelMismatchError
from ragkit.index.embeddings import Embedder, EmbeddingCache

pytestmark = pytest.mark.slow

SENTENCES = [
    "Aspirin lowers the risk of a heart attack in older adults.",
    "The kiln reached 1,200 degrees before the glaze melted.",
    "Paris is the capital and largest city of France.",
    "Who wrote the first paper on transformers for translation?",
    "Mitochondria produce most of the chemical energy of a cell.",
]


@pytest.fixture(scope="session")
def int8(tmp_path_factory: pytest.TempPathFactory) -> tuple[Embedder, list[tuple[str, int, int]]]:
    """The int8 embedder, converted here, in a cache dir of its own (the progress it reported on the way;
    the session's shared conversion may have been made already)."""
    seen: list[tuple[str, int, int]] = []
    session_cache = os.environ["RAGKIT_CACHE_DIR"]
    os.environ["RAGKIT_CACHE_DIR"] = own = str(tmp_path_factory.mktemp("int8-conversion"))
    try:
        emb = Embedder(backend="onnx-int8", cache=EmbeddingCache(tmp_path_factory.mktemp("i8") / "e.sqlite"))
        emb.load_progress = lambda stage, done, total: seen.append((stage, done, total))
        _ = emb.dimension
    finally:
        os.environ["RAGKIT_CACHE_DIR"] = session_cache
    emb.conversion_dir = own  # type: ignore[attr-defined]
    return emb, seen


def test_the_conversion_reports_progress_and_its_cache_is_reused(int8, monkeypatch):
    from ragkit.index.embedders import convert

    emb, seen = int8
    monkeypatch.setenv("RAGKIT_CACHE_DIR", emb.conversion_dir)  # where the fixture converted it
    assert [(d, t) for _, d, t in seen] == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    assert "int8" in seen[0][0]
    meta = json.loads(next(convert.models_dir().glob("*onnx-int8*/meta.json")).read_text())
    assert meta["recipe"] == convert.RECIPE and meta["pooling"] == "mean" and meta["dimension"] == 384

    def no_second_conversion(*args, **kwargs):
        raise AssertionError("converted again")

    monkeypatch.setattr(convert, "_convert", no_second_conversion)
    again = Embedder(backend="onnx-int8", cache=False)
    vecs = again.embed(SENTENCES)  # loads the cached int8 model
    np.testing.assert_array_equal(vecs, emb.embed(SENTENCES))


def test_int8_vectors_are_close_to_float32_deterministic_and_rank_alike(int8, embedder):
    a = Embedder(backend="onnx-int8", cache=False)
    v8, v8_again = a.embed(SENTENCES), a.embed(list(reversed(SENTENCES)))[::-1]
    v32 = embedder.embed(SENTENCES)
    np.testing.assert_array_equal(v8, v8_again)  # the same text gives the same vector, in any batch
    np.testing.assert_allclose(np.linalg.norm(v8, axis=1), 1.0, atol=1e-5)
    cos = np.sum(v8 * v32, axis=1)
    assert cos.min() > 0.95, cos  # a broken model (wrong pooling, tokens, weights) falls far below
    q8 = a.embed_query("What is the capital of France?")
    assert (
        int(np.argmax(v8 @ q8))
        == 2
        == int(np.argmax(v32 @ embedder.embed_query("What is the capital of France?")))
    )


def test_the_cache_keeps_backends_apart(tmp_path, embedder):
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    torch_emb = Embedder(cache=cache)
    torch_emb._model = embedder.model
    int8_emb = Embedder(backend="onnx-int8", cache=cache)
    torch_emb.embed(SENTENCES)
    int8_emb.embed(SENTENCES)
    assert int8_emb.new_embeddings == len(SENTENCES)  # torch's cached vectors were not served to it
    assert len(cache) == 2 * len(SENTENCES)


def test_an_int8_index_refuses_float32_queries_and_float32_chunks(tmp_path, evaldata, embedder, int8):
    from ragkit.index.ingest import ingest_paths, open_or_create
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.rag import RagPipeline
    from ragkit.retrievers.dense import DenseRetriever

    doc = tmp_path / "note.txt"
    doc.write_text(" ".join(SENTENCES), encoding="utf-8")
    emb, _ = int8
    store, chunker = open_or_create(tmp_path / "idx", emb)
    ingest_paths(store, [doc], chunker, emb)
    assert json.loads((tmp_path / "idx" / "manifest.json").read_text())["embedding"]["backend"] == "onnx-int8"
    with pytest.raises(
        ModelMismatchError, match=r"onnx-int8 backend, not torch.*--embedding-backend onnx-int8"
    ):
        open_or_create(tmp_path / "idx", embedder)  # chunks of float32 into it
    with pytest.raises(ModelMismatchError, match="never mixed"):
        DenseRetriever(store, embedder)  # float32 queries against it
    # a pipeline opened on the index embeds its questions with the index's own backend
    pipe = RagPipeline.from_index(tmp_path / "idx", PipelineConfig(retriever="dense"))
    assert pipe.config.embedding_backend == "onnx-int8"
    assert pipe.ask("What is the capital of France?").hits[0].chunk.text


def test_a_sweep_races_the_two_backends(tmp_path, evaldata, embedder, int8):
    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.sweep.grid import Grid
    from ragkit.evaluation.sweep.runner import Sweep

    article = json.loads((evaldata / "xquad_en" / "xquad.en.json").read_text(encoding="utf-8"))["data"][0]
    paragraphs = article["paragraphs"][:4]
    for p in paragraphs:
        p["qas"] = p["qas"][:2]
    squad = tmp_path / "mini.json"
    squad.write_text(json.dumps({"data": [{"title": article["title"], "paragraphs": paragraphs}]}))
    grid = Grid.from_dict(
        {"base": {"retriever": "dense"}, "vary": {"embedding_backend": ["torch", "onnx-int8"]}}
    )
    cands, merged = grid.candidates()
    assert [c.config.embedding_backend for c in cands] == ["torch", "onnx-int8"] and not merged
    embedders = {(embedder.model_id, "torch"): embedder, (embedder.model_id, "onnx-int8"): int8[0]}
    sweep = Sweep(
        load_question_set(squad), grid, racing=False, index_root=tmp_path / "eval", embedders=embedders
    )
    result = sweep.run(checkpoint=False)
    by_backend = {c["config"]["embedding_backend"]: c for c in result["candidates"]}
    assert set(by_backend) == {"torch", "onnx-int8"}
    for c in by_backend.values():
        assert c["questions_evaluated"] == 8 and c["mean"] is not None and c["failure"] is None
    indexes = sorted(p.name for p in (tmp_path / "eval").rglob("manifest.json"))
    assert len({p.parent for p in (tmp_path / "eval").rglob("manifest.json")}) == 2, indexes
