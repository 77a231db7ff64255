"""Index store: round trip, incremental ingest, removal, atomic writes under a kill, model mismatch."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.maintenance import list_indexes
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import SentenceChunker, SlidingChunker
from tests.conftest import FakeEmbedder, ingest_bytes, run_ragkit
from tests.ingest_processes import finish, run_ingest

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def build(index: Path, files: list[Path], embedder: FakeEmbedder, chunker=None):
    store, chunker = open_or_create(index, embedder, chunker)
    return store, ingest_paths(store, files, chunker, embedder)


def test_round_trip(tmp_path, fake_embedder):
    a = write(tmp_path, "a.txt", "Alpha beta gamma. " * 50)
    b = write(tmp_path, "b.md", "# B\n\nDelta epsilon. " * 20)
    index = tmp_path / "idx"
    store, report = build(index, [a, b], fake_embedder, SlidingChunker(size=200, overlap=20))
    assert not report.failed and report.totals()["chunks"] == len(store.chunks) > 2
    again = IndexStore.open(index, model_id=fake_embedder.model_id, dimension=8)
    assert [c.to_dict() for c in again.chunks] == [c.to_dict() for c in store.chunks]
    np.testing.assert_array_equal(again.vectors, store.vectors)
    assert {d.source for d in again.documents.values()} == {"a.txt", "b.md"}
    m = json.loads((index / "manifest.json").read_text())
    assert m["schema_version"] == 1 and m["ragkit_version"]
    assert m["embedding"] == {
        "model": "fake/hash-embedder",
        "dimension": 8,
        "dtype": "float32",
        "backend": "torch",
    }
    assert m["chunker"] == {"name": "sliding", "config": {"size": 200, "overlap": 20}}
    doc = {d["source"]: d for d in m["documents"]}["a.txt"]
    assert doc["sha256"] and doc["chunks"] > 0 and doc["ingested_at"]
    assert oct((index / "manifest.json").stat().st_mode & 0o777) == "0o644"


def test_incremental_reingest_embeds_nothing_new(tmp_path, fake_embedder):
    a = write(tmp_path, "a.txt", "Alpha beta gamma. " * 50)
    index = tmp_path / "idx"
    _, first = build(index, [a], fake_embedder)
    assert first.totals()["new_embeddings"] > 0
    gen = json.loads((index / "manifest.json").read_text())["generation"]
    emb2 = FakeEmbedder()  # a fresh embedder: nothing may even reach it
    _, second = build(index, [a], emb2)
    assert second.files[0].action == "unchanged" and second.totals()["new_embeddings"] == 0
    assert emb2.new_embeddings == 0 and emb2.cache_hits == 0
    assert json.loads((index / "manifest.json").read_text())["generation"] == gen  # nothing rewritten


def test_changed_file_replaces_old_version(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    a = write(tmp_path, "a.txt", "old content here. " * 10)
    build(index, [a], fake_embedder)
    write(tmp_path, "a.txt", "new content here. " * 10)
    store, report = build(index, [a], fake_embedder)
    assert report.files[0].action == "replaced"
    store = IndexStore.open(index)
    assert len(store.documents) == 1
    assert all("new content" in c.text for c in store.chunks)


def test_remove_and_duplicates(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    a = write(tmp_path, "a.txt", "same bytes")
    b = write(tmp_path, "b.txt", "same bytes")
    c = write(tmp_path, "c.txt", "other bytes")
    store, report = build(index, [a, b, c], fake_embedder)
    actions = {f.file: f.action for f in report.files}
    assert actions == {"a.txt": "added", "b.txt": "duplicate", "c.txt": "added"}
    assert "same content as a.txt in this batch" in report.files[1].warnings[0]
    with store.lock():
        assert store.remove("a.txt") and not store.remove("nope.txt")
        store.save()
    assert [d.source for d in IndexStore.open(index).documents.values()] == ["c.txt"]


def test_bad_files_reported_good_ones_indexed(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    store, _ = open_or_create(index, fake_embedder, SlidingChunker())
    report = ingest_bytes(
        store,
        [
            ("good.txt", b"good text " * 20),
            ("empty.txt", b""),
            ("bin.txt", b"\x00\x01\x02" * 50),
            ("scan.pdf", b"%PDF-1.4 broken"),
        ],
        SlidingChunker(),
        fake_embedder,
    )
    by = {f.file: f for f in report.files}
    assert by["good.txt"].status == "ok" and by["good.txt"].chunks > 0
    assert by["empty.txt"].status == "error" and "empty.txt: the file is empty" in by["empty.txt"].error
    assert "binary data" in by["bin.txt"].error
    assert "not a readable PDF" in by["scan.pdf"].error
    assert report.totals() == {
        "files": 4,
        "failed": 3,
        "chunks": by["good.txt"].chunks,
        "new_embeddings": by["good.txt"].chunks,
    }
    assert [d.source for d in IndexStore.open(index).documents.values()] == ["good.txt"]


def test_model_mismatch_is_a_clear_error(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    build(index, [write(tmp_path, "a.txt", "text " * 30)], fake_embedder)
    with pytest.raises(ModelMismatchError, match="built with embedding model 'fake/hash-embedder'"):
        IndexStore.open(index, model_id="sentence-transformers/all-MiniLM-L6-v2")
    with pytest.raises(ModelMismatchError, match="8-dimensional vectors but the embedder produces 384"):
        IndexStore.open(index, model_id="fake/hash-embedder", dimension=384)
    with pytest.raises(ModelMismatchError):
        open_or_create(index, FakeEmbedder(model_id="other/model", dimension=8))


def test_chunker_mismatch_is_a_clear_error(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    build(index, [write(tmp_path, "a.txt", "text " * 30)], fake_embedder, SlidingChunker())
    with pytest.raises(IndexStoreError, match=r"chunked with sliding\(size=500, overlap=100\), not sentence"):
        open_or_create(index, fake_embedder, SentenceChunker())
    _, chunker = open_or_create(index, fake_embedder, None)  # no chunker given: keep the index's own
    assert chunker.spec() == SlidingChunker().spec()


def test_missing_and_damaged_indexes(tmp_path):
    with pytest.raises(IndexStoreError, match="no ragkit index at"):
        IndexStore.open(tmp_path / "nothing")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("{not json")
    with pytest.raises(IndexStoreError, match=r"manifest\.json is unreadable"):
        IndexStore.open(bad)
    (bad / "manifest.json").write_text(json.dumps({"schema_version": 99}))
    with pytest.raises(IndexStoreError, match="schema version 99"):
        IndexStore.open(bad)
    listed = list_indexes(tmp_path)
    assert [r["name"] for r in listed] == ["bad"] and "schema version 99" in listed[0]["error"]


def test_vectors_not_matching_chunks_is_damage(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    build(index, [write(tmp_path, "a.txt", "text " * 300)], fake_embedder)
    m = json.loads((index / "manifest.json").read_text())
    np.save(index / m["files"]["vectors"], np.zeros((1, 8), np.float32))
    with pytest.raises(IndexStoreError, match="damaged"):
        IndexStore.open(index)


def test_second_writer_waits_then_gives_up_with_a_message(tmp_path, fake_embedder):
    store, _ = build(tmp_path / "idx", [write(tmp_path, "a.txt", "x " * 10)], fake_embedder)
    other = IndexStore.open(tmp_path / "idx")
    told = []
    with (
        store.lock(),
        pytest.raises(
            IndexStoreError, match=r"being written by another process; gave up after waiting 0\.3 s"
        ),
        other.lock(timeout=0.3, on_wait=told.append),
    ):
        pass
    assert told and "waiting for it to finish" in told[0]
    with other.lock(timeout=0.3):  # free again
        pass


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {root!r})
    from tests.conftest import FakeEmbedder, run_ragkit
    from ragkit.index.ingest import ingest_paths, open_or_create

    real_replace = os.replace
    def replace(src, dst):
        if str(dst).endswith({target!r}):
            os.kill(os.getpid(), signal.SIGKILL)  # die exactly mid-save
        return real_replace(src, dst)
    os.replace = replace

    emb = FakeEmbedder()
    store, chunker = open_or_create({index!r}, emb, None)
    ingest_paths(store, [{new!r}], chunker, emb)
    """
)


@pytest.mark.parametrize("target", ["chunks-000002.jsonl", "vectors-000002.npy", "manifest.json"])
def test_killed_mid_save_leaves_previous_index_intact(tmp_path, fake_embedder, target):
    index = tmp_path / "idx"
    build(index, [write(tmp_path, "a.txt", "first document text. " * 40)], fake_embedder)
    before = IndexStore.open(index)
    new = write(tmp_path, "b.txt", "second document text. " * 40)
    script = KILL_SCRIPT.format(root=str(ROOT), target=target, index=str(index), new=str(new))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == -9, proc.stderr  # really killed
    after = IndexStore.open(index)
    assert [d.source for d in after.documents.values()] == ["a.txt"]
    assert [c.to_dict() for c in after.chunks] == [c.to_dict() for c in before.chunks]
    # the next successful ingest still works and cleans up the debris
    _store, report = build(index, [new], FakeEmbedder())
    assert not report.failed and len(IndexStore.open(index).documents) == 2
    assert [p.name for p in index.iterdir() if p.name.endswith(".tmp")] == []  # the dead writer's debris
    # generation 1 stays one save longer, for readers that read its manifest just before the switch
    assert (index / "chunks-000001.jsonl").exists()
    build(index, [write(tmp_path, "c.txt", "third document. " * 40)], FakeEmbedder())
    assert not [p.name for p in index.iterdir() if "000001" in p.name]


def test_ctrl_c_during_embedding_changes_nothing(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    build(index, [write(tmp_path, "a.txt", "first. " * 40)], fake_embedder)
    manifest = (index / "manifest.json").read_bytes()

    class Interrupting(FakeEmbedder):
        def embed(self, texts, progress=None):
            raise KeyboardInterrupt

    store, chunker = open_or_create(index, fake_embedder, None)
    with pytest.raises(KeyboardInterrupt):
        ingest_paths(store, [write(tmp_path, "b.txt", "second. " * 40)], chunker, Interrupting())
    assert (index / "manifest.json").read_bytes() == manifest
    assert len(IndexStore.open(index).documents) == 1


def test_cli_ingest_json_report_and_exit_code(tmp_path):
    good = write(tmp_path, "good.md", "# Title\n\nSome text here. " * 10)
    # a model path that does not exist must fail clearly, before anything is written
    proc = run_ragkit(
        "ingest",
        "--index",
        str(tmp_path / "idx"),
        "--json",
        "--model",
        str(tmp_path / "no-such-model"),
        str(good),
    )
    assert proc.returncode == 1
    assert "cannot load embedding model" in proc.stderr and "local directory" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "idx").exists()
    # usage errors
    proc = run_ragkit("ingest", "--index", str(tmp_path / "i"), "--window", "3", str(good))
    assert proc.returncode == 1 and "--window needs --chunker" in proc.stderr


READER_WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from pathlib import Path
    from tests.conftest import FakeEmbedder
    from ragkit.index.ingest import ingest_paths, open_or_create
    emb = FakeEmbedder()
    for i in range(25):
        p = Path({folder!r}) / f"doc{{i}}.txt"
        p.write_text(f"document number {{i}} " * 400)
        store, chunker = open_or_create({index!r}, emb, None)
        ingest_paths(store, [p], chunker, emb)
    """
)


@pytest.mark.parametrize("trial", range(3))
def test_two_processes_ingesting_into_one_index_keep_both_sets(tmp_path, trial):
    index = tmp_path / "idx"
    left = [write(tmp_path, f"left{i}.txt", f"Left document {i}. " * 40) for i in range(3)]
    right = [write(tmp_path, f"right{i}.txt", f"Right document {i}. " * 40) for i in range(3)]
    a, b = run_ingest(index, left, sleep=0.4), run_ingest(index, right, sleep=0.4)
    ra, rb = finish(a), finish(b)
    assert [f["action"] for f in ra["files"]] == ["added"] * 3
    assert [f["action"] for f in rb["files"]] == ["added"] * 3
    store = IndexStore.open(index)
    assert sorted(d.source for d in store.documents.values()) == sorted(p.name for p in left + right)
    assert len(store.chunks) == sum(f["chunks"] for f in ra["files"] + rb["files"])


def test_remove_bases_itself_on_what_another_writer_saved(tmp_path):
    index = tmp_path / "idx"
    emb = FakeEmbedder()
    store, chunker = open_or_create(index, emb, None)
    ingest_paths(store, [write(tmp_path, "a.txt", "alpha " * 50)], chunker, emb)
    stale = IndexStore.open(index)  # opened before the other writer adds b.txt
    finish(run_ingest(index, [write(tmp_path, "b.txt", "beta " * 50)]))
    with stale.lock():
        stale.reload()
        assert stale.remove("a.txt")
        stale.save()
    assert [d.source for d in IndexStore.open(index).documents.values()] == ["b.txt"]


def test_a_reader_opening_in_a_loop_during_25_saves_never_fails(tmp_path):
    index = tmp_path / "idx"
    emb = FakeEmbedder()
    store, chunker = open_or_create(index, emb, None)
    ingest_paths(store, [write(tmp_path, "seed.txt", "seed text " * 100)], chunker, emb)
    folder = tmp_path / "docs"
    folder.mkdir()
    script = READER_WRITER.format(root=str(ROOT), folder=str(folder), index=str(index))
    writer = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE, text=True)
    opens, failures, generations = 0, [], set()
    while writer.poll() is None:
        try:
            s = IndexStore.open(index)
            opens += 1
            generations.add(s.generation)
            assert len(s.chunks) == len(s.vectors)
        except Exception as e:  # any failure to open is what this test counts
            failures.append(repr(e))
    assert writer.returncode == 0, writer.stderr.read()[-2000:]
    assert failures == []
    assert opens > 25 and len(generations) > 5  # the reader really overlapped many saves
    assert len(IndexStore.open(index).documents) == 26
