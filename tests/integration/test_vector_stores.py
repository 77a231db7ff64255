"""One suite, every vector store: local files (FAISS), Qdrant's engine embedded (``qdrant-edge-py``, for
real) and a real Milvus server (the session's ``milvus_server``: Milvus 2.3.5 standalone).

The contract: the same rankings and cosines as the local store, the same incremental guarantees
(unchanged skipped, changed replaced, removed deleted: the store holds exactly the manifest's chunks),
points a crashed writer left are never shown and are deleted by the next save, a reader never fails while
another process saves, ``copy`` moves an index in and out without embedding, and the CLI's ``--store`` /
``--uri`` flags give the same answers as the local store. The Qdrant *server* path has its own tests
against an imitation of its REST API (``test_qdrant_server.py``); Milvus here is the real server.
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
from ragkit.index.vectorstores import open_vector_store, store_spec
from ragkit.index.vectorstores.milvus import TOKEN_ENV
from ragkit.retrievers import build_retriever
from ragkit.retrievers.dense import DenseRetriever
from tests.conftest import ROOT, FakeEmbedder, run_ragkit
from tests.milvus_server import ROOT_TOKEN

WORDS = (
    "apple banana cherry delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu"
).split()
QUERIES = ["hotel india tango", "apple banana", "zulu xray yankee whiskey", "golf", "mike november oscar"]
KINDS = ["local", "qdrant", "milvus"]
REMOTE = ["qdrant", "milvus"]


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


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("local", "http://localhost:6333"), "--uri applies to --store qdrant or milvus only, not local"),
        (("qdrant", "localhost:6333"), "must look like http://host:6333"),
        (("qdrant", "http://user:key@localhost:6333"), "QDRANT_API_KEY"),
        (("qdrant", None, "bad name!"), "collection names"),
        (("milvus",), "needs the server's URI"),
        (("milvus", "http://root:Milvus@localhost:19530"), "MILVUS_TOKEN"),
        (("milvus", "http://localhost:19530", "ragkit-papers"), "start with a letter or '_'"),
        (("milvus", "http://localhost:19530/my-db"), "database names"),
        (("qdrant", None, None, {"index": "hnsw"}), "--milvus-index applies to --store milvus only"),
        (("chroma",), "store must be one of local, qdrant, milvus"),
    ],
)
def test_store_specs_are_validated_by_the_declarations(args, message):
    *positional, options = args if isinstance(args[-1], dict) else (*args, {})
    with pytest.raises(ConfigError, match=message):
        store_spec(*positional, **options)


def test_a_milvus_uri_names_the_database_and_each_index_gets_a_collection_of_its_own(tmp_path):
    from ragkit.index.vectorstores import index_spec

    spec = store_spec("milvus", "http://milvus:19530/lab")
    assert spec == {"kind": "milvus", "uri": "http://milvus:19530", "database": "lab"}
    a, b = (index_spec(spec, tmp_path / d / "papers", "org/model-x") for d in ("a", "b"))
    assert a["collection"].startswith("ragkit_papers_model_x_") and a["collection"] != b["collection"]
    assert index_spec(a, tmp_path / "a" / "papers", "org/model-x") == a  # named once, kept


def test_a_milvus_database_named_by_the_uri_is_made_on_first_write(tmp_path, milvus_server, monkeypatch):
    from pymilvus import MilvusClient

    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    files = corpus(tmp_path / "docs", n=2)
    store, emb, _ = build(tmp_path / "idx", files, store_spec("milvus", f"{milvus_server.uri}/lab"))
    assert store.store["database"] == "lab" and store.vector_store.count() == len(store.chunks)
    store.close()
    client = MilvusClient(uri=milvus_server.uri, token=ROOT_TOKEN, dedicated=True)
    try:
        assert "lab" in client.list_databases()
        assert store.store["collection"] not in client.list_collections()  # not in the default database
    finally:
        client.close()
    assert len(DenseRetriever(IndexStore.open(tmp_path / "idx"), emb).search("golf", 3)) == 3


@pytest.fixture(params=KINDS)
def kind(request, monkeypatch) -> str:
    if request.param == "milvus":
        request.getfixturevalue("milvus_server")
        monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)  # subprocesses inherit it; never written anywhere
    return request.param


@pytest.fixture
def spec(kind, request) -> dict:
    """The store spec of a new index of this kind (a Milvus collection named after the index's path)."""
    if kind == "milvus":
        return store_spec("milvus", request.getfixturevalue("milvus_server").uri)
    return store_spec(kind)


def build(index: Path, files: list[Path], spec=None, emb=None):
    emb = emb or FakeEmbedder()
    store, chunker = open_or_create(index, emb, None, spec)
    report = ingest_paths(store, files, chunker, emb)
    return store, emb, report


def ranking(store: IndexStore, emb, kind: str = "dense", k: int = 8):
    r = build_retriever(kind, store, emb)
    return {q: [(h.chunk_id, round(h.score, 5)) for h in r.search(q, k)] for q in QUERIES}


def _chunker_emb(store: IndexStore, emb):
    from ragkit.ingestion.chunkers import chunker_from_spec

    return chunker_from_spec(store.chunker), emb


def test_ranks_and_scores_as_the_local_store(tmp_path, kind, spec):
    files = corpus(tmp_path / "docs")
    local, emb, _ = build(tmp_path / "local", files)
    other, _, _ = build(tmp_path / "other", files, spec, emb)
    assert other.holds_vectors == (kind == "local")
    for retriever in ("dense", "hybrid"):
        assert ranking(other, emb, retriever) == ranking(local, emb, retriever)
    # reopened from its manifest, it knows where its vectors are
    again = IndexStore.open(tmp_path / "other")
    assert again.store == other.store and again.store["kind"] == kind
    assert again.vector_store.count() == len(again.chunks)
    assert ranking(again, emb) == ranking(local, emb)
    rows = [0, 3, len(local.chunks) - 1]
    np.testing.assert_allclose(again.vectors_at(rows), local.vectors[rows], atol=1e-6)
    if kind != "local":
        assert not list((tmp_path / "other").glob("vectors-*.npy"))  # the vectors live in the store only
        with pytest.raises(IndexStoreError, match="keeps its vectors in"):
            _ = again.vectors
    again.close()


def test_incremental_ingest_keeps_exactly_the_manifest_s_points(tmp_path, spec):
    files = corpus(tmp_path / "docs", n=4)
    store, emb, _ = build(tmp_path / "idx", files, spec)
    assert store.vector_store.count() == len(store.chunks)
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
    reopened.close()
    store.close()


@pytest.mark.parametrize("kind", REMOTE, indirect=True)
def test_points_left_by_a_crashed_writer_are_never_shown_and_are_deleted_by_the_next_save(tmp_path, spec):
    files = corpus(tmp_path / "docs", n=3)
    store, emb, _ = build(tmp_path / "idx", files, spec)
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
    store.close()


READER_WRITER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.conftest import FakeEmbedder
    from ragkit.index.ingest import ingest_paths, open_or_create
    emb = FakeEmbedder()
    for i in range(12):
        p = Path({folder!r}) / f"w{{i}}.txt"
        p.write_text(f"writer document {{i}} about hotel india tango " * 30, encoding="utf-8")
        store, chunker = open_or_create({index!r}, emb, None)
        ingest_paths(store, [p], chunker, emb)
        store.close()  # let go of an embedded shard now (else after the idle time)
        time.sleep(0.1)
    """
)


def test_a_reader_in_this_process_never_fails_while_another_process_saves(tmp_path, spec):
    files = corpus(tmp_path / "docs", n=2)
    store, emb, _ = build(tmp_path / "idx", files, spec)
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
    assert len(final.documents) == 14 and final.vector_store.count() == len(final.chunks)
    final.close()


@pytest.mark.parametrize("kind", REMOTE, indirect=True)
def test_a_store_refuses_vectors_of_another_dimension(tmp_path, spec):
    store, _, _ = build(tmp_path / "idx", corpus(tmp_path / "docs", n=1), spec)
    store.close()
    with pytest.raises(ModelMismatchError, match="8-dimensional vectors, not 16"):
        open_vector_store(store.store, tmp_path / "idx", 16).count()


def test_copy_moves_an_index_in_and_back_out_without_embedding(tmp_path, kind, spec):
    from ragkit.index.maintenance import copy_index

    files = corpus(tmp_path / "docs", n=5)
    local, emb, _ = build(tmp_path / "local", files)
    before = emb.new_embeddings
    moved = copy_index(tmp_path / "local", tmp_path / "moved", spec)
    back = copy_index(tmp_path / "moved", tmp_path / "back")  # and out again, to local files
    assert emb.new_embeddings == before
    assert moved.doc_info == local.doc_info and moved.store["kind"] == kind
    assert back.store == {"kind": "local"}
    for store in (moved, back):
        assert ranking(store, emb, "hybrid") == ranking(local, emb, "hybrid")
    np.testing.assert_allclose(back.vectors, local.vectors, atol=1e-6)
    with pytest.raises(IndexStoreError, match="already exists"):
        copy_index(tmp_path / "local", tmp_path / "moved", spec)
    moved.close()


CRASHING_WRITER = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.conftest import FakeEmbedder
    from ragkit.ingestion.parse import load_document
    from ragkit.index.ingest import open_or_create
    emb = FakeEmbedder()
    store, chunker = open_or_create({index!r}, emb, None)
    doc = load_document(Path({file!r}))
    chunks = chunker.split(doc)
    store.add(doc, chunks, emb.embed([c.text for c in chunks]), {{}})
    store._write_points()  # the points are in the store ...
    os._exit(3)  # ... and the process dies before the manifest switch (no flush, no close)
    """
)


@pytest.mark.parametrize("kind", REMOTE, indirect=True)
def test_a_writer_killed_between_its_points_and_its_manifest_leaves_a_working_index(tmp_path, spec):
    files = corpus(tmp_path / "docs", n=2)
    store, emb, _ = build(tmp_path / "idx", files, spec)
    n = len(store.chunks)
    store.close()
    victim = tmp_path / "victim.txt"
    victim.write_text("hotel india tango " * 200, encoding="utf-8")
    script = CRASHING_WRITER.format(root=str(ROOT), index=str(tmp_path / "idx"), file=str(victim))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr[-2000:]
    reader = IndexStore.open(tmp_path / "idx")
    assert len(reader.chunks) == n  # the manifest never saw the victim
    assert reader.vector_store.count() > n  # but its points survived the crash
    hits = DenseRetriever(reader, emb).search("hotel india tango", 5)
    assert len(hits) == 5 and all(h.chunk.source != "victim.txt" for h in hits)
    ingest_paths(reader, corpus(tmp_path / "more", n=1, seed=3), *_chunker_emb(reader, emb))
    assert reader.vector_store.count() == len(reader.chunks)  # the victim's points are gone
    reader.close()


# ------------------------------------------------------------------ the CLI, with the real model

QA_CSV = ROOT / "tests" / "fixtures" / "web" / "qa.csv"
QUESTION = "python code to reverse a list without changing it"


def cli_answers(index: str, *store_flags: str) -> dict:
    """``ingest`` (with ``store_flags``), then ``search`` (hybrid, and dense ``--where kind=code``) and
    ``ask``: the hits with their scores, and the answer with its hits."""
    r = run_ragkit("ingest", "--index", index, "--no-progress", *store_flags, str(QA_CSV))
    assert r.returncode == 0, r.stderr
    out: dict = {}
    for flags in (["--retriever", "hybrid"], ["--retriever", "dense", "--where", "kind=code"]):
        r = run_ragkit("search", "--index", index, "--top-k", "3", *flags, "--json", QUESTION)
        assert r.returncode == 0, r.stderr
        hits = json.loads(r.stdout)["hits"]
        assert hits and ("--where" not in flags or all(h["text"].startswith("```") for h in hits))
        out[flags[1]] = [(h["chunk_id"], {k: round(v, 5) for k, v in h["scores"].items()}) for h in hits]
    # what the reader reads and quotes over each store, whatever the answer confidence decides
    ask = ["ask", "--index", index, "--llm", "extractive", "--answer-threshold", "0", "--json", QUESTION]
    r = run_ragkit(*ask)
    assert r.returncode == 0, r.stderr
    answer = json.loads(r.stdout)
    out["ask"] = (answer["answer"], [h["chunk_id"] for h in answer["hits"]])
    return out


@pytest.mark.slow
def test_the_cli_over_a_milvus_server_answers_as_the_local_store(tmp_path, milvus_server, monkeypatch):
    """``ingest --store milvus --uri …`` then ``search`` (filtered or not) and ``ask`` give the same hits,
    scores and answer as the same commands over local files."""
    monkeypatch.setenv(TOKEN_ENV, ROOT_TOKEN)
    local = cli_answers(str(tmp_path / "local"))
    index = str(tmp_path / "idx")
    got = cli_answers(index, "--store", "milvus", "--uri", milvus_server.uri)
    assert got == local
    assert "xs[::-1]" in got["ask"][0]
    info = run_ragkit("info", "--index", index)
    assert info.returncode == 0 and f"Milvus server {milvus_server.uri}" in info.stdout
    # flags that contradict the index are refused, naming both homes
    r = run_ragkit("search", "--index", index, "--store", "local", "golf")
    assert r.returncode != 0 and "keeps its vectors in Milvus server" in r.stderr
    for p in Path(index).rglob("*"):
        assert not p.is_file() or ROOT_TOKEN.encode() not in p.read_bytes()  # the token is never written
