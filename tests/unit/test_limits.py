"""Bounded expansion: a DOCX bomb and a PDF stream bomb refused with bounded memory, text, chunk and time
caps as settings, and the rest of the batch indexed."""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from ragkit.core.errors import DocumentError
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.ingestion.expansion import decoded_size
from ragkit.ingestion.limits import Limits
from ragkit.ingestion.parse import load_document
from tests.adversarial import PDFS, docx_bomb, pdf_stream_bomb

ROOT = Path(__file__).resolve().parents[2]

PEAK = """
import json, re, sys
from ragkit.ingestion.parse import load_document
from ragkit.core.errors import DocumentError
try:
    load_document(sys.argv[1]); outcome = "parsed"
except DocumentError as e:
    outcome = str(e)
# VmHWM, not ru_maxrss: the latter survives exec and would report the (large) test process that forked us
hwm = int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
print(json.dumps({"peak_kb": hwm, "outcome": outcome}))
"""


def _parse_in_child(path: Path) -> dict:
    proc = subprocess.run([sys.executable, "-c", PEAK, str(path)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def good_docx(tmp_path_factory) -> Path:
    import docx

    d = docx.Document()
    d.add_heading("Kiln log", level=1)
    d.add_paragraph("The second firing reached cone 10 after eleven hours.")
    path = tmp_path_factory.mktemp("good") / "kiln.docx"
    d.save(path)
    return path


def test_a_docx_bomb_is_refused_with_bounded_memory_while_the_good_file_is_indexed(
    tmp_path, good_docx, fake_embedder
):
    bomb = docx_bomb(tmp_path / "bomb.docx", xml_mb=120)
    assert bomb.stat().st_size < 1024 * 1024  # small on disk: the file-size cap cannot see it
    baseline, refused = _parse_in_child(good_docx), _parse_in_child(bomb)
    assert baseline["outcome"] == "parsed"
    assert refused["outcome"].startswith("bomb.docx: expands to more than 64 MB of XML")
    growth_mb = (refused["peak_kb"] - baseline["peak_kb"]) / 1024
    assert growth_mb < 32, f"refusing the bomb grew the peak resident set by {growth_mb:.0f} MB"
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=200, overlap=20))
    report = ingest_paths(store, [bomb, good_docx], chunker, fake_embedder)
    by = {f.file: f for f in report.files}
    assert by["bomb.docx"].status == "error" and "expands to more than" in by["bomb.docx"].error
    assert by["kiln.docx"].status == "ok" and by["kiln.docx"].chunks > 0


def test_a_pdf_page_stream_bomb_is_refused_before_it_is_inflated(tmp_path):
    bomb = pdf_stream_bomb(tmp_path / "bomb.pdf", stream_mb=100)
    out = _parse_in_child(bomb)
    assert out["outcome"].startswith("bomb.pdf: its stream object")
    assert "(filters FlateDecode) expands to more than 64 MB" in out["outcome"]
    assert out["peak_kb"] / 1024 < 400  # the stream is never inflated whole (100 MB, and MuPDF's copies)


def test_decoded_size_stops_at_its_limit():
    raw = zlib.compress(b"a" * 10_000_000)
    assert decoded_size(raw, ["FlateDecode"], 20_000_000) == 10_000_000
    assert decoded_size(raw, ["FlateDecode"], 1_000_000) is None
    assert decoded_size(b"not zlib", ["FlateDecode"], 10) == 0


def test_text_chunk_and_time_caps_are_settings(tmp_path, monkeypatch, fake_embedder):
    big, small = tmp_path / "big.txt", tmp_path / "small.txt"
    big.write_text("Forty words of plain prose. " * 2000)
    small.write_text("A short note on the kiln.")
    monkeypatch.setenv("RAGKIT_MAX_TEXT_MB", "0.01")
    with pytest.raises(DocumentError, match=r"big\.txt: expands to more than 0\.01 MB of text"):
        load_document(big)
    monkeypatch.setenv("RAGKIT_MAX_TEXT_MB", "64")
    monkeypatch.setenv("RAGKIT_MAX_CHUNKS", "10")
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=200, overlap=20))
    report = ingest_paths(store, [big, small], chunker, fake_embedder)
    by = {f.file: f for f in report.files}
    assert by["big.txt"].status == "error" and "over the 10 cap (RAGKIT_MAX_CHUNKS)" in by["big.txt"].error
    assert by["small.txt"].status == "ok" and store.documents  # the rest goes on
    monkeypatch.setenv("RAGKIT_MAX_PARSE_S", "0.000001")
    with pytest.raises(DocumentError, match="parsing took more than 1e-06 s"):
        load_document(PDFS / "docling_multi_page.pdf")
    monkeypatch.setenv("RAGKIT_MAX_CHUNKS", "many")
    with pytest.raises(ValueError, match="RAGKIT_MAX_CHUNKS must be a number"):
        Limits.from_env()
