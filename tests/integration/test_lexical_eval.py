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
