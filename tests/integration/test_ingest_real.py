"""Real parts: all-MiniLM-L6-v2, PyMuPDF + pdfplumber on the evaluation PDFs, the CLI end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragkit.core.errors import ModelNotAvailableError
from ragkit.index.embeddings import Embedder, EmbeddingCache
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import MarkdownChunker, SentenceChunker, SlidingChunker
from ragkit.ingestion.parse import load_document
from tests.conftest import run_ragkit

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]


def test_embedder_vectors_are_normalised_and_meaningful(embedder):
    v = embedder.embed(["A cat sits on the mat.", "A kitten rests on a rug.", "Stock markets fell."])
    assert v.shape == (3, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2
    q = embedder.embed_query("A cat sits on the mat.")
    np.testing.assert_allclose(q, v[0], atol=1e-5)


def test_embedding_cache_counts_and_persists(tmp_path, embedder):
    cache_path = tmp_path / "c.sqlite"
    e1 = Embedder(cache=EmbeddingCache(cache_path))
    e1._model = embedder.model  # share the loaded weights; the cache is what is under test
    texts = ["first text", "second text", "first text"]
    a = e1.embed(texts)
    assert (e1.new_embeddings, e1.cache_hits) == (2, 0)
    e2 = Embedder(cache=EmbeddingCache(cache_path))  # a new process would see the same file
    e2._model = embedder.model
    b = e2.embed(texts)
    assert (e2.new_embeddings, e2.cache_hits) == (0, 3)
    np.testing.assert_array_equal(a, b)
    bf = Embedder(cache=EmbeddingCache(cache_path), dtype="bfloat16")
    assert bf.cache_key != e2.cache_key  # bf16 vectors never masquerade as fp32 ones


def test_unloadable_model_says_how_to_fix(tmp_path):
    with pytest.raises(ModelNotAvailableError, match="pass a local directory"):
        _ = Embedder(str(tmp_path / "missing-model"), cache=False).dimension


def test_evaldata_pdfs(evaldata, tmp_path, embedder):
    pdfs = sorted((evaldata / "pdfs").glob("*.pdf"))
    store, chunker = open_or_create(tmp_path / "idx", embedder, MarkdownChunker())
    report = ingest_paths(store, pdfs, chunker, embedder)
    by = {f.file: f for f in report.files}
    assert not report.failed, [f.error for f in report.failed]
    scan = by["scanned_image_only_ocr_test.pdf"]  # no text layer: read by Tesseract
    assert scan.chunks == 1 and scan.empty_pages == []
    assert scan.warnings[0].startswith("OCR (Tesseract) on page 1; mean word confidence p1:")
    scanned = next(c for c in store.chunks if c.source.startswith("scanned_image"))
    assert "Docling bundles PDF document conversion" in scanned.text
    fbi = [c for c in store.chunks if c.source.startswith("table_fbi")]
    table_chunks = [c for c in fbi if "| Alabama | 18,870 |" in c.text]
    assert table_chunks, "the FBI table should yield a Markdown table chunk"
    assert all(line.startswith("|") for line in table_chunks[0].text.splitlines() if "Alabama" in line)
    assert by["table_fbi_nics_background_checks_2015-11.pdf"].tables >= 1
    # every chunk's spans really point at its text
    for c in store.chunks:
        page = store.documents[c.doc_id].pages[c.spans[0].page - 1].text
        s = c.spans[0]
        assert c.text.startswith(page[s.start : s.end])


def test_two_column_paper_reads_column_by_column(evaldata):
    doc = load_document(evaldata / "pdfs" / "acl2020_s2orc_2020.acl-main.447.pdf")
    page1 = doc.pages[0].text
    # The abstract (left column) ends before the introduction starts; the introduction's first
    # paragraph (left column) is read whole before the right column's text begins.
    abstract_end = page1.index("text mining over academic text.")
    intro = page1.index("1 Introduction")
    intro_para = page1.index("Academic papers are an increasingly important textual domain")
    right_col = page1.index("and the ACL Anthology")
    assert abstract_end < intro < intro_para < right_col
    # the first paragraph of the introduction continues within the same block, not interleaved
    para = page1[intro_para : page1.index("\n\n", intro_para)]
    assert "thousands of words organized into sections" in para
    assert "classification" in page1 or "figures" in page1  # ligatures expanded (ﬁ -> fi)
    assert "ﬁ" not in page1


def test_rechunking_reuses_cached_embeddings(tmp_path, evaldata, embedder):
    pdf = evaldata / "pdfs" / "docling_multi_page.pdf"
    shared = embedder
    embedder = Embedder(cache=EmbeddingCache(tmp_path / "own-cache.sqlite"))  # empty cache, same weights
    embedder._model = shared.model
    store, ch = open_or_create(tmp_path / "a", embedder, SentenceChunker(n=3))
    first = ingest_paths(store, [pdf], ch, embedder)
    assert first.totals()["new_embeddings"] > 0
    # same chunker into another index: every chunk text is already cached
    store_b, ch_b = open_or_create(tmp_path / "b", embedder, SentenceChunker(n=3))
    again = ingest_paths(store_b, [pdf], ch_b, embedder)
    assert again.totals()["new_embeddings"] == 0 and again.totals()["chunks"] == first.totals()["chunks"]
    # a different chunker makes different texts: those, and only those, are embedded
    store_c, ch_c = open_or_create(tmp_path / "c", embedder, SlidingChunker(size=300, overlap=0))
    other = ingest_paths(store_c, [pdf], ch_c, embedder)
    assert 0 < other.totals()["new_embeddings"] <= other.totals()["chunks"]


def test_cli_ingest_and_info(tmp_path, evaldata):
    env = {"RAGKIT_CACHE_DIR": str(tmp_path / "cache")}
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.5 this is not really a pdf")
    pdfs = [
        evaldata / "pdfs" / "docling_multi_page.pdf",
        evaldata / "pdfs" / "scanned_image_only_ocr_test.pdf",
    ]
    cmd = [
        "ingest",
        "--index",
        str(tmp_path / "idx"),
        "--chunker",
        "sentence",
        "--window",
        "2",
        "--json",
        *map(str, pdfs),
        str(bad),
    ]
    proc = run_ragkit(*cmd, **env)
    assert proc.returncode == 1, proc.stderr  # one file failed...
    rep = json.loads(proc.stdout)
    files = {f["file"]: f for f in rep["files"]}
    assert files["broken.pdf"]["status"] == "error" and "broken.pdf" in files["broken.pdf"]["error"]
    ok = files["docling_multi_page.pdf"]  # ...and the others were indexed
    assert ok["status"] == "ok" and ok["chunks"] > 0 and ok["new_embeddings"] == ok["chunks"]
    assert set(ok) >= {
        "file",
        "status",
        "error",
        "pages",
        "chunks",
        "tables",
        "empty_pages",
        "warnings",
        "new_embeddings",
    }
    assert files["scanned_image_only_ocr_test.pdf"]["empty_pages"] == []  # OCR read it
    assert rep["totals"] == {
        "files": 3,
        "failed": 1,
        "chunks": ok["chunks"] + files["scanned_image_only_ocr_test.pdf"]["chunks"],  # OCR made one
        "new_embeddings": ok["new_embeddings"] + files["scanned_image_only_ocr_test.pdf"]["new_embeddings"],
    }
    # second run: nothing new is embedded, exit 0 without the broken file
    proc = run_ragkit(*cmd[:-1], **env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["totals"]["new_embeddings"] == 0
    info = run_ragkit("info", "--index", str(tmp_path / "idx"), **env)
    assert info.returncode == 0
    assert "sentence(n=2, overlap=0)" in info.stdout and "all-MiniLM-L6-v2" in info.stdout
    assert IndexStore.open(tmp_path / "idx").summary()["documents"] == 2


def test_ocr_reads_with_a_model_folder_of_ones_own(evaldata, tmp_path, monkeypatch):
    """TESSDATA_PREFIX set to a folder of models alone (tessdata_best's files, no ``configs/``): OCR asked
    Tesseract for the "tsv" config file, which is not there, and read nothing."""
    system = Path("/usr/share/tesseract-ocr/5/tessdata")
    for name in ("eng.traineddata", "osd.traineddata"):
        (tmp_path / name).symlink_to(system / name)
    monkeypatch.setenv("TESSDATA_PREFIX", str(tmp_path))
    doc = load_document(evaldata / "pdfs" / "scanned_image_only_ocr_test.pdf")
    assert "Docling bundles PDF document conversion" in doc.text
