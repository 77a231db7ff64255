"""Vectors only when something needs them (issue 25): BM25 alone on a BEIR set — `eval retrieval` and a
sweep — chunks the corpus in memory and embeds nothing: no model is loaded (the model path named does
not even exist), no embedding cache or index is written; a dense retriever on the same set needs it."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_ragkit

pytestmark = pytest.mark.slow
MISSING = "/nonexistent/embedding-model"


def test_bm25_alone_evaluates_without_any_embedding(tmp_path, evaldata):
    scifact = str(evaldata / "scifact")
    cache, root = tmp_path / "cache", tmp_path / "indexes"
    env = {"RAGKIT_CACHE_DIR": str(cache)}
    common = ("--dataset", scifact, "--limit", "30", "--model", MISSING, "--index-root", str(root))
    bm25 = run_ragkit(
        "eval", "retrieval", *common, "--retriever", "bm25", "--json", str(tmp_path / "b.json"), **env
    )
    assert bm25.returncode == 0, bm25.stderr
    out = json.loads((tmp_path / "b.json").read_text())
    assert out["queries"] == 30 and 0 < out["metrics"]["ndcg@10"] <= 1
    assert out["config"]["embedding"].startswith("none") and out["index"]["chunks"] > 5000
    assert not cache.exists() and not root.exists()  # nothing embedded, nothing written
    dense = run_ragkit("eval", "retrieval", *common, "--retriever", "dense", **env)
    assert dense.returncode != 0 and MISSING in dense.stderr  # the dense retriever does need the model

    grid = tmp_path / "grid.json"
    grid.write_text(
        json.dumps(
            {"base": {"embedding_model": MISSING, "retriever": "bm25"}, "vary": {"bm25_k1": [0.9, 1.5]}}
        )
    )
    sweep = run_ragkit(
        "sweep",
        "--dataset",
        scifact,
        "--grid",
        str(grid),
        "--limit",
        "30",
        "--index-root",
        str(root),
        "--json",
        str(tmp_path / "s.json"),
        **env,
    )
    assert sweep.returncode == 0, sweep.stderr
    result = json.loads((tmp_path / "s.json").read_text())
    assert len(result["candidates"]) == 2 and all(c["mean"] > 0 for c in result["candidates"])
    assert not cache.exists()


def test_a_collection_indexed_for_bm25_alone_embeds_nothing_and_its_gauge_matches(tmp_path, embedder):
    """A collection's index for BM25 alone is text only: built with no model, its vectors have no
    components; over it the gauge embeds only the chunks a
    question retrieved and reads the same cosines as over the embedded index; a dense config builds its
    own embedded index beside it."""
    import numpy as np

    from ragkit.index.collections import Collection
    from ragkit.index.lexical import TEXT_ONLY
    from ragkit.ingestion.chunkers import chunker_for
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.rag import RagPipeline
    from tests.integration.test_eval_run import DOCS

    c = Collection.create("notes", tmp_path / "root")
    assert not c.add_files([(f"{k}.txt", f"{t}\n\n{x}".encode()) for k, (t, x) in DOCS.items()]).failed
    cfg = PipelineConfig(retriever="bm25", llm="extractive")
    chunker = chunker_for(cfg)
    text, _ = c.index(chunker, TEXT_ONLY)
    assert text.dimension == 0 and text.vectors.shape == (len(text.chunks), 0) and len(text.chunks) >= 6
    assert c.is_indexed(chunker, TEXT_ONLY) and not c.is_indexed(chunker, embedder)
    assert text.path.name.endswith("text-only")

    question = "Which hormone regulates blood glucose?"
    over_text = RagPipeline(cfg, text, embedder).ask(question)
    embedded, _ = c.index(chunker, embedder)
    assert embedded.dimension == 384 and embedded.path != text.path
    over_vectors = RagPipeline(cfg, embedded, embedder).ask(question)
    hits_t, hits_v = over_text.hits, over_vectors.hits
    assert [h.chunk.chunk_id for h in hits_t] == [h.chunk.chunk_id for h in hits_v]
    assert np.allclose([h.cosine for h in hits_t], [h.cosine for h in hits_v], atol=1e-5)
    assert over_text.confidence.value == pytest.approx(over_vectors.confidence.value, abs=1e-4)
    assert "embed_chunks" in over_text.timings_ms and "embed_chunks" not in over_vectors.timings_ms
    assert "Insulin" in over_text.text


def test_the_cli_on_a_collections_text_only_index(tmp_path):
    """`info`, `search` and `ask` on a text-only index: BM25 answers (the gauge embeds with the default
    model), a dense retriever is an error that says why, `info` says it holds no vectors."""
    from ragkit.index.collections import Collection
    from ragkit.index.lexical import TEXT_ONLY
    from ragkit.ingestion.chunkers import SlidingChunker
    from tests.integration.test_eval_run import DOCS

    c = Collection.create("notes", tmp_path / "root")
    c.add_files([(f"{k}.txt", f"{t}\n\n{x}".encode()) for k, (t, x) in DOCS.items()])
    store, _ = c.index(SlidingChunker(), TEXT_ONLY)
    index = str(store.path)
    info = run_ragkit("info", "--index", index)
    assert info.returncode == 0 and "vectors    none: text only, for BM25 alone" in info.stdout
    ask = run_ragkit("ask", "--index", index, "--retriever", "bm25", "--llm", "extractive", "--json",
                     "Which hormone regulates blood glucose?")  # fmt: skip
    assert ask.returncode == 0, ask.stderr
    answer = json.loads(ask.stdout)
    assert "Insulin" in answer["answer"] and answer["confidence"]["value"] > 0
    assert "embed_chunks" in answer["timings_ms"]
    dense = run_ragkit("search", "--index", index, "--retriever", "dense", "blood glucose")
    assert dense.returncode != 0 and "is text only (built for BM25 alone)" in dense.stderr
