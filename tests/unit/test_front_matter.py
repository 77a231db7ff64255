"""Unit tests of :mod:`ragkit.pipeline.front_matter`: a question about a document's authors or date also
reads the document's first chunk, appended after the ranking's head and said in the trace."""

from __future__ import annotations

import pytest

from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.front_matter import STAGE, add_front_matter, asks_about_document
from ragkit.pipeline.rag import RagPipeline
from tests.conftest import ingest_bytes


@pytest.mark.parametrize(
    "question, asks",
    [
        ("Who is the first author of the S2ORC paper?", "authors"),
        ("Who wrote the KVL specification?", "authors"),
        ("Which paper was written by Lo et al.?", "authors"),
        ("When was the report published?", "date"),
        ("What is the publication date of the RFC?", "date"),
        ("When was the Vision Lab founded?", None),
        ("How many papers does S2ORC contain?", None),
    ],
)
def test_which_questions_ask_about_a_document_itself(question, asks):
    assert asks_about_document(question) == asks


@pytest.fixture
def pipe(tmp_path, fake_embedder):
    store, chunker = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=120, overlap=0))
    paper = (
        b"S2ORC: The Semantic Scholar Open Research Corpus\nKyle Lo, Lucy Lu Wang\n\n"
        + b"We introduce a corpus of papers. " * 12
    )
    other = b"Orbit 2.0 release notes. " * 12
    ingest_bytes(store, [("s2orc.txt", paper), ("orbit.txt", other)], chunker, fake_embedder)
    return lambda **kw: RagPipeline(PipelineConfig(top_k=2, **kw), store, fake_embedder)


def test_the_named_documents_first_chunk_is_read_after_the_head_and_traced(pipe):
    p = pipe()
    paper = p.store.find_source("s2orc.txt")
    first = next(c for c in p.store.chunks if c.doc_id == paper)
    head = [h for h in p.retriever.search("corpus of papers", 10) if h.chunk_id != first.chunk_id][:2]
    trace: dict = {}
    hits = add_front_matter(p, "Who is the first author of the S2ORC paper?", head, trace)
    assert hits[:2] == head and hits[2].chunk_id == first.chunk_id and hits[2].stage == STAGE
    assert trace["front_matter"]["document"] == "s2orc.txt" and trace["front_matter"]["asks"] == "authors"
    assert add_front_matter(p, "How many papers does S2ORC contain?", head, {}) == head  # not asked
    assert add_front_matter(pipe(front_matter=False), "Who wrote the S2ORC paper?", head, {}) == head
    assert add_front_matter(p, "Who wrote the S2ORC paper?", [*head, hits[2]], {})[-1] is hits[2]  # once
