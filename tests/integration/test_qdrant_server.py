"""A Qdrant *server*: the real ``qdrant-client`` against an imitation of Qdrant's REST API
(``tests/fake_qdrant.py``; no Qdrant server can be installed from the registries this project reaches).
What every store must do is in ``test_vector_stores.py`` (local, embedded Qdrant, a real Milvus server);
here, what only the server path has: the wire protocol, the API key and its errors.
"""

from __future__ import annotations

import json

import pytest

from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.index.store import IndexStore
from ragkit.index.vectorstores import API_KEY_ENV, store_spec
from ragkit.index.vectorstores.qdrant_server import QdrantServerStore
from ragkit.retrievers.dense import DenseRetriever
from tests.conftest import run_ragkit
from tests.fake_qdrant import FakeQdrant
from tests.integration.test_vector_stores import build, corpus, ranking

# ------------------------------------------------------------------ server (qdrant-client over REST)


def test_server_store_through_qdrant_client(tmp_path, monkeypatch):
    files = corpus(tmp_path / "docs", n=6)
    local, emb, _ = build(tmp_path / "local", files)
    with FakeQdrant(api_key="s3cret-key") as server:
        monkeypatch.setenv(API_KEY_ENV, "s3cret-key")
        spec = store_spec("qdrant", server.url, "papers")
        remote, _, _ = build(tmp_path / "remote", files, spec, emb)
        assert ranking(remote, emb) == ranking(local, emb)
        assert ranking(remote, emb, "hybrid") == ranking(local, emb, "hybrid")
        assert len(server.collections["papers"]["points"]) == len(remote.chunks)
        manifest = json.loads((tmp_path / "remote" / "manifest.json").read_text())
        assert manifest["store"] == {"kind": "qdrant", "uri": server.url, "collection": "papers"}
        # incremental: a removed document's points are deleted on the server
        remote.remove("doc00.txt")
        remote.save()
        assert len(server.collections["papers"]["points"]) == len(remote.chunks)
        # the key is used on the wire, never written
        for p in (tmp_path / "remote").rglob("*"):
            if p.is_file():
                assert b"s3cret-key" not in p.read_bytes()
        # a wrong key: a message that says what to do and does not repeat the key
        monkeypatch.setenv(API_KEY_ENV, "wrong-key")
        with pytest.raises(IndexStoreError) as err:
            DenseRetriever(IndexStore.open(tmp_path / "remote"), emb).search("golf", 3)
        assert "HTTP 401" in str(err.value) and API_KEY_ENV in str(err.value)
        assert "wrong-key" not in str(err.value)
        monkeypatch.setenv(API_KEY_ENV, "s3cret-key")
        with pytest.raises(ModelMismatchError, match="holds 8-dimensional vectors, not 4"):
            QdrantServerStore(server.url, "papers", 4).count()
        url = server.url
    with pytest.raises(IndexStoreError, match="is unreachable"):
        QdrantServerStore(url, "papers", 8).count()


def test_cli_ingest_search_info_with_a_qdrant_server(tmp_path):
    files = corpus(tmp_path / "docs", n=3)
    index = str(tmp_path / "idx")
    with FakeQdrant(api_key="k-123") as server:
        env = {API_KEY_ENV: "k-123"}
        r = run_ragkit("ingest", "--index", index, "--store", "qdrant", "--uri", server.url,
                       "--no-progress", *map(str, files), **env)  # fmt: skip
        assert r.returncode == 0, r.stderr
        r = run_ragkit("info", "--index", index, **env)
        assert f"vectors    Qdrant server {server.url} (collection ragkit_idx)" in r.stdout
        r = run_ragkit("search", "--index", index, "--json", "hotel india", **env)
        assert r.returncode == 0, r.stderr
        hits = json.loads(r.stdout)["hits"]
        assert hits and hits[0]["scores"]["dense"] == pytest.approx(hits[0]["cosine"])
        # flags that contradict the index are refused, naming both homes
        r = run_ragkit("search", "--index", index, "--store", "local", "golf", **env)
        assert r.returncode != 0 and "keeps its vectors in Qdrant server" in r.stderr
        assert "k-123" not in r.stdout + r.stderr
