"""Unit tests of :mod:`ragkit.index.inputs`."""

from __future__ import annotations

from pathlib import Path

from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


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
