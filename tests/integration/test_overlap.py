"""Parsing overlapped with embedding — the worker parses the next file while this process chunks and embeds
the last — gives exactly the chunks and vectors of parsing everything first, in-process, and then
embedding; its progress stays exact (every file, page and chunk counted once, in order)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragkit.index.embeddings import Embedder
from ragkit.index.ingest import ingest_documents, ingest_paths, open_or_create
from ragkit.index.inputs import Parsed
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.ingestion.parse import load_document

pytestmark = pytest.mark.slow
CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"


def test_the_overlapped_ingest_gives_exactly_the_chunks_and_vectors_of_the_sequential_one(tmp_path, evaldata):
    names = ("lab_handbook.docx", "orbit_release.html", "tessera_README.md", "rfc9999_kvl.txt")
    files = [evaldata / "pdfs" / "docling_multi_page.pdf"] + [CORPUS / n for n in names]
    embedder = Embedder(cache=False)  # every vector computed in both runs, none read from a cache
    chunker = SlidingChunker(size=400, overlap=50)
    events: list[tuple[str, int, int]] = []
    overlapped, _ = open_or_create(tmp_path / "overlapped", embedder, chunker)
    report = ingest_paths(overlapped, files, chunker, embedder, progress=lambda *e: events.append(e))

    sequential, _ = open_or_create(tmp_path / "sequential", embedder, chunker)
    parsed = [Parsed(f.name, load_document(f), str(f)) for f in files]  # today's order: parse all, then embed
    ingest_documents(sequential, parsed, chunker, embedder)

    assert not report.failed
    assert [c.to_dict() for c in overlapped.chunks] == [c.to_dict() for c in sequential.chunks]
    assert overlapped.vectors.dtype == np.float32 and np.array_equal(overlapped.vectors, sequential.vectors)

    n = len(files)
    assert [e for e in events if e[0] == "parse"] == [("parse", k, n) for k in range(1, n + 1)]
    assert [e for e in events if e[0] == "chunk"] == [("chunk", k, n) for k in range(1, n + 1)]
    pages = [(d, t) for s, d, t in events if s == "page docling_multi_page.pdf"]
    assert pages[-1] == (5, 5) and [d for d, _ in pages] == sorted(d for d, _ in pages)
    embedded = [(d, t) for s, d, t in events if s == "embed"]
    assert embedded[-1] == (len(overlapped.chunks), len(overlapped.chunks))
    assert [d for d, _ in embedded] == sorted(d for d, _ in embedded)  # never counted back
