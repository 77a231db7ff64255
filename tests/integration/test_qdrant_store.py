"""Indexes whose vectors live in Qdrant: the embedded engine (``qdrant-edge-py``, for real) and a server
through the real ``qdrant-client`` against a loopback server speaking Qdrant's REST API
(``tests/fake_qdrant.py``; no Qdrant server can be installed on this machine).

The contract: the same rankings and cosines as the local store, the same incremental guarantees
(unchanged skipped, changed replaced, removed deleted: the collection holds exactly the manifest's
chunks), points a crashed writer left are never shown and are deleted by the next save, a reader in
another process never fails while a writer saves, and clear errors that never hold the API key.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ragkit.core.errors import ConfigError, IndexStoreError, ModelMismatchError
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore
from ragkit.index.vectorstores.base import API_KEY_ENV, store_spec
from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore
from ragkit.index.vectorstores.qdrant_server import QdrantServerStore
from ragkit.retrievers import build_retriever
from ragkit.retrievers.dense import DenseRetriever
from tests.conftest import ROOT, FakeEmbedder, run_ragkit
from tests.fake_qdrant import FakeQdrant

WORDS = (
    "apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split()


def corpus(folder: Path, n: int = 12, seed: int = 0) -> list[Path]:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        paras = ["{}.".format(" ".join(rng.choice(WORDS, 60))) for _ in range(4)]
        p = folder / f"doc{i:02d}.txt"
        p.write_text("\n\n".join(paras), encoding="utf-8")
        paths.append(p)
    return paths


QUERIES = ["hotel india tango", "apple banana", "zulu xray yankee whiskey", "golf", "mike november oscar"]


def build(index: Path, files: list[Path], spec=None, emb=None):
    emb = emb or FakeEmbedder()
    store, chunker = open_or_create(index, emb, None, spec)
    report = ingest_paths(store, files, chunker, emb)
    return store, emb, report


def ranking(store: IndexStore, emb, kind: str = "dense", k: int = 8):
    r = build_retriever(kind, store, emb)
    return {q: [(h.chunk_id, round(h.score, 5)) for h in r.search(q, k)] for q in QUERIES}


def test_embedded_qdrant_ranks_and_scores_as_the_local_store(tmp_path):
    files = corpus(tmp_path / "docs")
    local, emb, _ = build(tmp_path / "local", files)
    remote, _, _ = build(tmp_path / "qdrant", files, store_spec("qdrant"), emb)
    assert not remote.holds_vectors and local.holds_vectors
    assert (tmp_path / "qdrant" / "qdrant").is_dir()
    assert not list((tmp_path / "qdrant").glob("vectors-*.npy"))  # the vectors live in Qdrant only
    for kind in ("dense", "hybrid"):
        assert ranking(remote, emb, kind) == ranking(local, emb, kind)
    # reopened from its manifest, it knows where its vectors are
    again = IndexStore.open(tmp_path / "qdrant")
    assert again.store == {"kind": "qdrant"} and again.vector_store.count() == len(again.chunks)
    assert ranking(again, emb) == ranking(local, emb)
    rows = [0, 3, len(local.chunks) - 1]
    np.testing.assert_allclose(again.vectors_at(rows), local.vectors[rows], atol=1e-6)
    with pytest.raises(IndexStoreError, match="keeps its vectors in Qdrant embedded"):
        _ = again.vectors


def test_incremental_ingest_keeps_exactly_the_manifest_s_points(tmp_path):
    files = corpus(tmp_path / "docs", n=4)
    store, emb, _ = build(tmp_path / "idx", files, store_spec("qdrant"))
    backend = store.vector_store
    assert backend.count() == len(store.chunks)
    # unchanged files are skipped; a changed one is replaced (its old points go)
    files[1].write_text("hotel hotel hotel. A changed document about hotels only.", encoding="utf-8")
    report = ingest_paths(store, files, *_chunker_emb(store, emb))
    actions = {Path(f.file).name: f.action for f in report.files}
    assert actions["doc00.txt"] == "unchanged" and actions["doc01.txt"] == "replaced"
    assert store.vector_store.count() == len(store.chunks)
    # removed documents' points go too
    store.remove("doc02.txt")
    store.save()
    reopened = IndexStore.open(tmp_path / "idx")
    assert reopened.vector_store.count() == len(reopened.chunks)
    sources = {h.chunk.source for q in QUERIES for h in DenseRetriever(reopened, emb).search(q, 50)}
    assert "doc02.txt" not in sources and "doc01.txt" in sources


def _chunker_emb(store: IndexStore, emb):
    from ragkit.ingestion.chunkers import chunker_from_spec

    return chunker_from_spec(store.chunker), emb


def test_points_left_by_a_crashed_writer_are_never_shown_and_are_deleted_by_the_next_save(tmp_path):
    files = corpus(tmp_path / "docs", n=3)
    store, emb, _ = build(tmp_path / "idx", files, store_spec("qdrant"))
    n = len(store.chunks)
    # a writer upserted 30 points for a document, then died before switching the manifest
    q = emb.embed_query("hotel india tango")
    ghosts = np.repeat(q[None, :], 30, axis=0)
    store.vector_store.upsert("ghost", [f"ghost-{i}" for i in range(30)], ghosts, ["x"] * 30)
    store.vector_store.commit()
    reader = IndexStore.open(tmp_path / "idx")
    hits = DenseRetriever(reader, emb).search("hotel india tango", 5)
    assert len(hits) == 5 and all(h.chunk.doc_id in reader.documents for h in hits)  # asked for more
    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    reader.close()
    extra = corpus(tmp_path / "more", n=1, seed=7)
    ingest_paths(store, extra, *_chunker_emb(store, emb))
    assert store.vector_store.count() == len(store.chunks) > n


READER_WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.conftest import FakeEmbedder
    from ragkit.index.ingest import ingest_paths, open_or_create
    emb = FakeEmbedder()
    for i in range(15):
        p = Path({folder!r}) / f"w{{i}}.txt"
        p.write_text(f"writer document {{i}} about hotel india tango " * 30, encoding="utf-8")
        store, chunker = open_or_create({index!r}, emb, None)
        ingest_paths(store, [p], chunker, emb)
        store.close()  # let go of the shard now (else after the idle time)
        time.sleep(0.1)
    """
)


def test_a_reader_in_this_process_never_fails_while_another_process_saves(tmp_path):
    files = corpus(tmp_path / "docs", n=2)
    store, emb, _ = build(tmp_path / "idx", files, store_spec("qdrant"))
    store.close()
    folder = tmp_path / "w"
    folder.mkdir()
    script = READER_WRITER.format(root=str(ROOT), folder=str(folder), index=str(tmp_path / "idx"))
    writer = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    searches, failures, generations = 0, [], set()
    while writer.poll() is None:
        try:
            s = IndexStore.open(tmp_path / "idx")
            hits = DenseRetriever(s, emb).search("hotel india tango", 5)
            assert all(h.chunk.doc_id in s.documents for h in hits)
            generations.add(s.generation)
            searches += 1
            s.close()
        except Exception as e:  # any failure is what this test counts
            failures.append(repr(e))
    assert writer.returncode == 0, writer.stderr.read()[-2000:]
    assert failures == []
    assert searches > 10 and len(generations) > 3
    final = IndexStore.open(tmp_path / "idx")
    assert len(final.documents) == 17 and final.vector_store.count() == len(final.chunks)


def test_embedded_store_refuses_another_dimension(tmp_path):
    files = corpus(tmp_path / "docs", n=1)
    build(tmp_path / "idx", files, store_spec("qdrant"))
    with pytest.raises(ModelMismatchError, match="8-dimensional vectors, not 16"):
        QdrantEdgeStore(tmp_path / "idx" / "qdrant", 16).count()


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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("local", "http://localhost:6333"), "--uri and --collection apply to --store qdrant only"),
        (("qdrant", "localhost:6333"), "must look like http://host:6333"),
        (("qdrant", "http://user:key@localhost:6333"), "QDRANT_API_KEY"),
        (("qdrant", None, "bad name!"), "collection names"),
        (("chroma",), "store must be one of local, qdrant"),
    ],
)
def test_store_specs_are_validated(args, message):
    with pytest.raises(ConfigError, match=message):
        store_spec(*args)


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


def test_copy_moves_an_index_into_qdrant_and_back_without_embedding(tmp_path):
    from ragkit.index.maintenance import copy_index

    files = corpus(tmp_path / "docs", n=5)
    local, emb, _ = build(tmp_path / "local", files)
    before = emb.new_embeddings
    remote = copy_index(tmp_path / "local", tmp_path / "remote", store_spec("qdrant"))
    back = copy_index(tmp_path / "remote", tmp_path / "back")  # and out again, to local files
    assert emb.new_embeddings == before
    assert remote.doc_info == local.doc_info and back.store == {"kind": "local"}
    for store in (remote, back):
        assert ranking(store, emb, "hybrid") == ranking(local, emb, "hybrid")
    np.testing.assert_allclose(back.vectors, local.vectors, atol=1e-6)
    with pytest.raises(IndexStoreError, match="already exists"):
        copy_index(tmp_path / "local", tmp_path / "remote", store_spec("qdrant"))


CRASHING_WRITER = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.conftest import FakeEmbedder
    from ragkit.ingestion.chunkers import chunker_from_spec
    from ragkit.ingestion.parse import load_document
    from ragkit.index.ingest import open_or_create
    emb = FakeEmbedder()
    store, chunker = open_or_create({index!r}, emb, None)
    doc = load_document(Path({file!r}))
    chunks = chunker.split(doc)
    store.add(doc, chunks, emb.embed([c.text for c in chunks]), {{}})
    store._write_points()  # the points are in Qdrant ...
    os._exit(3)  # ... and the process dies before the manifest switch (no flush, no close)
    """
)


def test_a_writer_killed_between_its_points_and_its_manifest_leaves_a_working_index(tmp_path):
    files = corpus(tmp_path / "docs", n=2)
    store, emb, _ = build(tmp_path / "idx", files, store_spec("qdrant"))
    n = len(store.chunks)
    store.close()
    victim = tmp_path / "victim.txt"
    victim.write_text("hotel india tango " * 200, encoding="utf-8")
    script = CRASHING_WRITER.format(root=str(ROOT), index=str(tmp_path / "idx"), file=str(victim))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr[-2000:]
    reader = IndexStore.open(tmp_path / "idx")
    assert len(reader.chunks) == n  # the manifest never saw the victim
    assert reader.vector_store.count() > n  # but its points survived the crash (Qdrant's write-ahead log)
    hits = DenseRetriever(reader, emb).search("hotel india tango", 5)
    assert len(hits) == 5 and all(h.chunk.source != "victim.txt" for h in hits)
    ingest_paths(reader, corpus(tmp_path / "more", n=1, seed=3), *_chunker_emb(reader, emb))
    assert reader.vector_store.count() == len(reader.chunks)  # the victim's points are gone
