"""Unit tests of :mod:`ragkit.index.ingest`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import SlidingChunker
from tests.adversarial import MAX_MB, make_batch
from tests.ingest_processes import finish, run_ingest
from tests.web_servers import FIXTURES, PageServer

ROOT = Path(__file__).resolve().parents[2]


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


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


def test_cli_style_ingest_of_files_urls_docx_and_qa_in_one_batch(pages, tmp_path, fake_embedder):
    import docx

    d = docx.Document()
    d.add_heading("Kiln log", level=1)
    d.add_paragraph("The second firing reached cone 10 after eleven hours.")
    table = d.add_table(rows=2, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Firing", "Hours"
    table.rows[1].cells[0].text, table.rows[1].cells[1].text = "second", "11"
    docx_path = tmp_path / "notes.docx"
    d.save(docx_path)
    files = [
        FIXTURES / "news.html",
        docx_path,
        FIXTURES / "qa.csv",
        f"{pages.url}/article",
        f"{pages.url}/missing",
    ]
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker())
    report = ingest_paths(store, files, chunker, fake_embedder)
    by = {f.file: f for f in report.files}
    assert by["news.html"].action == "added" and by["notes.docx"].action == "added"
    assert by["qa.csv"].chunks > 8 and by[f"{pages.url}/article"].action == "added"
    assert by[f"{pages.url}/missing"].status == "error" and "HTTP 404" in by[f"{pages.url}/missing"].error
    docx_doc = next(x for x in IndexStore.open(tmp_path / "idx").documents.values() if x.kind == "docx")
    assert docx_doc.text.startswith("# Kiln log") and "| Firing | Hours |" in docx_doc.text
    web = [c for c in store.chunks if c.source == f"{pages.url}/article"]
    assert web and all(c.metadata["url"] == f"{pages.url}/article" for c in web)
    # the same URL again: unchanged; a changed page replaces the old version
    again = ingest_paths(store, [f"{pages.url}/article"], chunker, fake_embedder)
    assert again.files[0].action == "unchanged"
    pages.pages["/article"] = (
        200,
        "text/html",
        b"<html><body><article><h1>New</h1><p>" + b"Fresh text. " * 30 + b"</p></article></body></html>",
    )
    try:
        assert (
            ingest_paths(store, [f"{pages.url}/article"], chunker, fake_embedder).files[0].action
            == "replaced"
        )
    finally:
        pages.pages["/article"] = (200, "text/html; charset=utf-8", (FIXTURES / "article.html").read_bytes())
