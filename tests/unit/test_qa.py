"""Unit tests of :mod:`ragkit.ingestion.qa`."""

from __future__ import annotations

import pytest

from ragkit.core.errors import DocumentError
from ragkit.core.types import Hit
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.ingestion.chunkers import SentenceChunker, SlidingChunker
from ragkit.ingestion.parse import load_document, parse_bytes
from ragkit.ingestion.qa import matches, resolve_question_hits
from tests.web_servers import FIXTURES, PageServer


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


def test_qa_pairs_become_question_answer_and_code_chunks_whatever_the_chunker():
    doc = load_document(FIXTURES / "qa.csv")
    assert doc.kind == "qa" and len(doc.pages) == 4
    for chunker in (SlidingChunker(size=50, overlap=0), SentenceChunker(n=1)):
        chunks = chunker.split(doc)
        kinds = [c.metadata["kind"] for c in chunks]
        assert kinds.count("question") == 4 and kinds.count("answer") == 4
        code = [c for c in chunks if c.metadata["kind"] == "code"]
        # the question's own code (xs = [1, 2, 3]) and the short wc -l block are not code chunks
        assert [c.text.splitlines()[1] for c in code] == ["from pathlib import Path", "xs = [1, 2, 3, 4]"]
        q = chunks[0]
        assert q.metadata["tags"] == ["python", "file-io", "pathlib"] and q.metadata["score"] == 412
        assert q.metadata["answer_id"] == chunks[1].chunk_id and q.text.startswith("How do I read a whole")
    with pytest.raises(DocumentError, match="needs 'question' and 'answer'"):
        parse_bytes("plain.csv", b"name,value\na,1\n")


def test_a_retrieved_question_stands_for_its_answer(tmp_path, fake_embedder):
    store, chunker = open_or_create(tmp_path / "qa", fake_embedder, SlidingChunker())
    ingest_paths(store, [FIXTURES / "qa.csv"], chunker, fake_embedder)
    chunks = store.chunks
    question, answer = chunks[0], chunks[1]
    hits = [Hit(question, 1, 0.9, "dense"), Hit(answer, 2, 0.8, "dense"), Hit(chunks[3], 3, 0.5, "dense")]
    resolved, swaps = resolve_question_hits(hits, store)
    assert [h.chunk_id for h in resolved] == [answer.chunk_id, chunks[4].chunk_id]  # answer once, not twice
    assert swaps[0] == {"question": question.chunk_id, "answer": answer.chunk_id}
    assert matches(chunks[2], {"kind": "code", "tags": "python"}) and not matches(chunks[2], {"tags": "bash"})
