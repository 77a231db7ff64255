"""No silent data loss, no hangs: concurrent writers, readers during saves, same-name files, special
files, hostile configs, and an adversarial batch of 50+ bad inputs (issue #15).

Processes are real (``subprocess``) and use the fake embedder, so these run in seconds; a hang fails the
test through the subprocess timeout instead of stalling the suite.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ragkit.core.errors import ConfigError, DocumentError
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore
from ragkit.ingestion.parse import load_document, parse_bytes
from ragkit.ingestion.reading import page_ranges
from ragkit.pipeline.config import PipelineConfig
from tests.adversarial import MAX_MB, make_batch
from tests.conftest import FakeEmbedder

ROOT = Path(__file__).resolve().parents[2]

INGEST_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, {root!r})
    from tests.conftest import FakeEmbedder
    from ragkit.index.ingest import ingest_paths, open_or_create

    class Slow(FakeEmbedder):
        def embed(self, texts, progress=None):
            time.sleep({sleep})  # both writers are mid-ingest at once
            return super().embed(texts, progress)

    emb = Slow()
    store, chunker = open_or_create({index!r}, emb, None)
    report = ingest_paths(store, {files!r}, chunker, emb, {max_mb}, follow_symlinks={follow})
    print(json.dumps(report.to_dict()))
    """
)


def run_ingest(index: Path, files: list[Path], sleep: float = 0.0, max_mb: float = 50, follow=False):
    script = INGEST_SCRIPT.format(
        root=str(ROOT),
        index=str(index),
        files=[str(f) for f in files],
        sleep=sleep,
        max_mb=max_mb,
        follow=follow,
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out)


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


# ------------------------------------------------------------------ concurrent writers and readers


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


# ------------------------------------------------------------------ identity


def test_same_name_files_from_two_folders_are_both_kept(tmp_path, fake_embedder):
    a = write(tmp_path, "dirA/notes.txt", "Alpha notes about retrieval. " * 20)
    b = write(tmp_path, "dirB/notes.txt", "Beta notes about generation. " * 20)
    index = tmp_path / "idx"
    store, chunker = open_or_create(index, fake_embedder, None)
    report = ingest_paths(store, [a, b], chunker, fake_embedder)
    assert [(f.file, f.action) for f in report.files] == [
        ("dirA/notes.txt", "added"),
        ("dirB/notes.txt", "added"),
    ]
    store = IndexStore.open(index)
    assert sorted(d.source for d in store.documents.values()) == ["dirA/notes.txt", "dirB/notes.txt"]
    # later batches: the same path updates its own document; the other folder's file is untouched
    write(tmp_path, "dirA/notes.txt", "Alpha notes, second edition. " * 20)
    report = ingest_paths(store, [a], chunker, fake_embedder)
    assert [(f.file, f.action) for f in report.files] == [("dirA/notes.txt", "replaced")]
    assert any("Beta notes" in c.text for c in IndexStore.open(index).chunks)


def test_a_namesake_from_another_folder_in_a_later_batch_is_kept_beside_it(tmp_path, fake_embedder):
    index = tmp_path / "idx"
    store, chunker = open_or_create(index, fake_embedder, None)
    ingest_paths(store, [write(tmp_path, "x/report.txt", "First report. " * 30)], chunker, fake_embedder)
    report = ingest_paths(
        store, [write(tmp_path, "y/report.txt", "Second report. " * 30)], chunker, fake_embedder
    )
    rep = report.files[0]
    assert rep.action == "added" and rep.file == "y/report.txt"
    assert "another file named report.txt" in rep.warnings[0]
    assert sorted(d.source for d in IndexStore.open(index).documents.values()) == [
        "report.txt",
        "y/report.txt",
    ]


def test_a_folder_argument_is_expanded_with_relative_names(tmp_path, fake_embedder):
    write(tmp_path, "papers/2020/a.txt", "Paper A text. " * 20)
    write(tmp_path, "papers/2021/a.txt", "Paper A of 2021. " * 20)
    write(tmp_path, "papers/skip.bin", "not a document")
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, None)
    report = ingest_paths(store, [tmp_path / "papers"], chunker, fake_embedder)
    assert sorted(f.file for f in report.files) == ["papers/2020/a.txt", "papers/2021/a.txt"]


# ------------------------------------------------------------------ special files


def test_fifo_and_device_symlinks_are_refused_and_the_rest_of_the_batch_indexed(tmp_path, fake_embedder):
    import os

    good = write(tmp_path, "good.txt", "Good text stays. " * 30)
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    (tmp_path / "passwd.txt").symlink_to("/etc/passwd")
    files = [tmp_path / "pipe.txt", tmp_path / "zero.txt", good, tmp_path / "passwd.txt"]
    proc = run_ingest(tmp_path / "idx", files, follow=False)
    by = {f["file"]: f for f in finish(proc, timeout=60)["files"]}  # a FIFO read would hang: timeout
    assert "pipe.txt: is a FIFO (named pipe), not a regular file" in by["pipe.txt"]["error"]
    assert "zero.txt: is a symbolic link to /dev/zero" in by["zero.txt"]["error"]
    assert "passwd.txt: is a symbolic link to /etc/passwd" in by["passwd.txt"]["error"]
    assert by["good.txt"]["action"] == "added"
    # asked to follow links: the device is still refused (a character device is not a file), passwd is read
    by = {
        f["file"]: f for f in finish(run_ingest(tmp_path / "idx2", files, follow=True), timeout=60)["files"]
    }
    assert "zero.txt: is a character device, not a regular file" in by["zero.txt"]["error"]
    assert by["passwd.txt"]["status"] == "ok"


def test_size_limit_counts_bytes_read_not_the_reported_size(tmp_path):
    proc_file = Path("/proc/self/status")  # reports size 0, holds text
    with pytest.raises(DocumentError, match=r"is a symbolic link|not a regular file|unsupported"):
        load_document(proc_file)
    big = write(tmp_path, "big.txt", "x" * 3000)
    with pytest.raises(DocumentError, match=r"big\.txt: the file is 0\.0 MB, over the 0\.001 MB size limit"):
        load_document(big, max_mb=0.001)


# ------------------------------------------------------------------ decoding


def test_utf16_and_utf32_with_bom_are_text():
    for enc, bom in (
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
    ):
        doc = parse_bytes("t.txt", bom + "Grüße aus Zürich".encode(enc))
        assert doc.pages[0].text == "Grüße aus Zürich" and doc.encoding == enc


def test_nul_after_the_first_8kb_is_binary():
    with pytest.raises(
        DocumentError, match=r"late\.txt: the file holds binary data, not text \(a NUL byte at offset 9000"
    ):
        parse_bytes("late.txt", b"a" * 9000 + b"\x00" + b"b" * 10)


def test_mixed_encodings_are_decoded_per_line_and_the_lines_named():
    data = (
        "Grüße, ganz normal.\n".encode() * 3
        + "Caf\xe9 cr\xe8me.\n".encode("cp1252") * 2
        + "Ende ß.\n".encode()
    )
    doc = parse_bytes("mixed.txt", data)
    lines = doc.pages[0].text.splitlines()
    assert lines[0] == "Grüße, ganz normal." and lines[3] == "Café crème." and lines[5] == "Ende ß."
    assert "lines 4–5 are not valid UTF-8" in doc.warnings[0]


def test_long_page_lists_are_summarised():
    assert page_ranges(range(1, 3001)) == "1–3000"
    assert page_ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert "… (40 pages in all)" in page_ranges(range(1, 80, 2))


# ------------------------------------------------------------------ hostile configs


HOSTILE = [
    ({"top_k": "5"}, "top_k must be a whole number, got str"),
    ({"top_k": None}, "top_k must be a whole number, got NoneType"),
    ({"top_k": 5.5}, "top_k must be a whole number, got float"),
    ({"top_k": True}, "top_k must be a whole number, got bool"),
    ({"top_k": 0}, "top_k must be between 1 and 1000"),
    ({"hybrid_weights": "abc"}, "hybrid_weights must be an object"),
    ({"hybrid_weights": {"bm25": float("nan"), "dense": 1}}, "hybrid_weights.bm25 must be a finite number"),
    ({"hybrid_weights": {"bm25": float("inf")}}, "hybrid_weights.bm25 must be a finite number"),
    ({"hybrid_weights": {"bm25": -1}}, "hybrid_weights.bm25 must be between 0"),
    ({"hybrid_weights": {"sparse": 1}}, "unknown retrievers ['sparse']"),
    ({"hybrid_weights": {"bm25": 0, "dense": 0}}, "all zero"),
    ({"bm25_k1": float("nan")}, "bm25_k1 must be a finite number"),
    ({"bm25_b": 2}, "bm25_b must be between 0 and 1"),
    ({"rrf_k": float("inf")}, "rrf_k must be a finite number"),
    ({"no_retrieval": "false"}, "no_retrieval must be true or false (a JSON boolean), got 'false'"),
    ({"rerank": 1}, "rerank must be true or false"),
    ({"intent_routing": None}, "intent_routing must be true or false"),
    ({"temperature": "hot"}, "temperature must be a number, got str"),
    ({"confidence_threshold": 1.5}, "confidence_threshold must be between 0 and 1"),
    ({"llm_model": 7}, "llm_model must be a string, got int"),
    ({"embedding_model": ""}, "embedding_model must not be empty"),
    ({"name": ["x"]}, "name must be a string"),
    ({"chunker_params": {"size": "500"}}, "chunker_params: sliding: size must be a whole number"),
    ({"chunker_params": {"size": 500, "window": 3}}, "chunker_params: sliding chunker"),
    ({"chunker_params": [1, 2]}, "chunker_params must be an object"),
    ({"chunker": "markdown", "chunker_params": {"max_chars": 1.5}}, "max_chars must be a whole number"),
    ({"retriever": "sparse"}, "retriever must be one of dense, bm25, hybrid"),
    ({"llm": "extractive", "no_retrieval": True}, "no-retrieval baseline needs a language model"),
    ({"rerank_candidates": -3}, "rerank_candidates must be between 1"),
    ({"max_tokens": 10**12}, "max_tokens must be between 1 and 1000000"),
]


@pytest.mark.parametrize("fields, message", HOSTILE)
def test_every_hostile_config_is_one_config_error_naming_the_field(fields, message):
    with pytest.raises(ConfigError) as e:
        PipelineConfig.from_dict(fields)
    assert message in str(e.value)
    # the same through JSON, as an import or a --config file would arrive (NaN/inf are valid Python JSON)
    with pytest.raises(ConfigError):
        PipelineConfig.from_json(json.dumps(fields))


def test_deeply_nested_or_non_object_json_is_a_config_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ConfigError, match="nested too deeply"):
        PipelineConfig.from_json(deep)
    with pytest.raises(ConfigError, match="must be an object"):
        PipelineConfig.from_json("[1, 2]")
    nested: dict = {"a": 1}
    for _ in range(500):
        nested = {"a": nested}
    with pytest.raises(ConfigError, match="unknown config keys"):
        PipelineConfig.from_json(json.dumps({"top_k": 3, "k" * 50: nested}))
    with pytest.raises(
        ConfigError,
        match=r"chunker_params: sliding: size must be a whole number, got dict \{'a': \{'a': \{\.\.\.\}\}\}",
    ):
        PipelineConfig.from_json(json.dumps({"chunker_params": {"size": nested}}))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{")
    with pytest.raises(ConfigError, match=r"bad\.json"):
        PipelineConfig.load(bad)


def test_valid_numbers_are_normalised():
    cfg = PipelineConfig.from_dict(
        {"bm25_k1": 1, "temperature": 0, "hybrid_weights": {"bm25": 2, "dense": 1}}
    )
    assert cfg.bm25_k1 == 1.0 and isinstance(cfg.bm25_k1, float)
    assert cfg.hybrid_weights == {"bm25": 2.0, "dense": 1.0}
    assert PipelineConfig.from_json(cfg.to_json()) == cfg


# ------------------------------------------------------------------ the adversarial batch


def test_adversarial_batch_no_crash_no_hang_errors_name_their_files_nothing_good_lost(tmp_path):
    cases = make_batch(tmp_path / "batch")
    assert len(cases) >= 50
    index = tmp_path / "idx"
    t = time.perf_counter()
    report = finish(run_ingest(index, [c.path for c in cases], max_mb=MAX_MB), timeout=240)
    elapsed = time.perf_counter() - t
    by = {f["file"]: f for f in report["files"]}
    assert len(by) == len(cases), sorted(set(by) ^ {c.name for c in cases})
    for c in cases:
        got = by[c.name]
        if c.expect == "ok":
            assert got["status"] == "ok", (c.name, c.why, got["error"])
        else:
            assert got["status"] == "error", (c.name, c.why, got)
            assert got["error"].startswith(f"{c.name}: "), (c.why, got["error"])
            assert c.error_has.lower() in got["error"].lower(), (c.why, got["error"])
            assert "Traceback" not in got["error"]
    store = IndexStore.open(index)
    indexed = {d.source for d in store.documents.values()}
    expected = {c.name for c in cases if c.expect == "ok"} - {"inside_link.txt"}  # same bytes as its target
    assert expected <= indexed, expected - indexed
    assert by["inside_link.txt"]["action"] == "duplicate"
    assert max(len(c.text) for c in store.chunks) <= 4000  # the hard cap held for every file
    assert elapsed < 240
