"""Sources beyond local PDF/text (issue #13), with the fake embedder: HTML extraction, fetching URLs and
every way it fails, DOCX, question-answer collections and their chunks, metadata filters, SearXNG."""

from __future__ import annotations

import io

import pytest

from ragkit.core.errors import DocumentError
from ragkit.core.types import Hit
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import SentenceChunker, SlidingChunker
from ragkit.ingestion.fetch import PageCache, fetch, load_url
from ragkit.ingestion.parse import load_document, parse_bytes
from ragkit.ingestion.qa import matches, resolve_question_hits
from ragkit.retrievers.web import SearxngClient, WebSearchError, fetch_pages
from tests.web_servers import FIXTURES, FakeSearxng, PageServer


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


# ------------------------------------------------------------------ HTML


def test_html_main_content_is_kept_and_boilerplate_dropped():
    doc = load_document(FIXTURES / "article.html")
    text = doc.text
    assert doc.kind == "html" and doc.meta["title"] == "Reading files with pathlib"
    kept = ["# Reading files with pathlib", "## Reading bytes", 'read_text(encoding="utf-8")']
    kept += ["| read_bytes() | bytes | binary files |", "- Use `read_text()` for configuration files"]
    for k in kept:
        assert k in text, k
    for dropped in (
        "cookies",
        "Sign in",
        "Advertisement",
        "All rights reserved",
        "Related articles",
        "Tutorials",
    ):
        assert dropped not in text, dropped
    raw = (FIXTURES / "article.html").read_bytes()
    assert len(text) < 0.45 * len(raw)  # most of the page was furniture


def test_a_page_whose_charset_is_declared_in_html_is_decoded_by_it():
    doc = load_document(FIXTURES / "latin1.html")
    assert "bibliothèque municipale est ouverte du mardi au samedi" in doc.text and "café crème" in doc.text


# ------------------------------------------------------------------ URLs


def test_fetching_follows_redirects_and_names_the_document_by_its_url(pages, tmp_path):
    url = f"{pages.url}/redirect"
    doc = load_url(url)
    assert doc.source == url and doc.meta["url"] == f"{pages.url}/article" and "read_text" in doc.text
    latin = load_url(f"{pages.url}/latin1")  # charset only in the Content-Type header
    assert "café crème" in latin.text
    text = load_url(f"{pages.url}/notes.txt")
    assert text.kind == "txt" and "1,280 degrees" in text.text
    assert pages.agents and all(
        a.startswith("ragkit/") and "research RAG workbench" in a for a in pages.agents
    )


@pytest.mark.parametrize(
    "path, cause",
    [
        ("/missing", "the server answered HTTP 404 Not Found"),
        ("/image.png", "content type image/png is not a page ragkit reads"),
        ("/huge", "over the 1 MB limit"),
        ("/loop", "too many redirects"),
        ("/empty", "no main text found in the page"),
        ("/slow", "no answer within 0.5 s (timeout)"),
    ],
)
def test_every_fetch_failure_is_one_error_naming_the_url(pages, path, cause):
    url = f"{pages.url}{path}"
    with pytest.raises(DocumentError) as err:
        load_url(url, timeout=0.5, max_mb=1)
    assert str(err.value).startswith(f"{url}: ") and cause in str(err.value)


def test_a_host_that_does_not_resolve_is_a_dns_error():
    with pytest.raises(DocumentError, match="does not resolve"):
        load_url("http://no-such-host.invalid/page", timeout=3)


def test_fetched_pages_are_cached_by_url(pages, tmp_path):
    cache = PageCache(tmp_path / "web")
    url = f"{pages.url}/news"
    before = len(pages.requests)
    first = fetch(url, cache=cache)
    again = fetch(url, cache=cache)
    assert again == first and len(pages.requests) == before + 1  # the second came from the cache


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


def test_a_broken_docx_is_a_clear_error():
    with pytest.raises(DocumentError, match=r"broken\.docx: not a readable \.docx file"):
        parse_bytes("broken.docx", b"PK\x03\x04 not really a zip")


# ------------------------------------------------------------------ question-answer collections


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


# ------------------------------------------------------------------ SearXNG


def test_searxng_json_results_are_read_and_cached(pages, tmp_path):
    index = {"telescope": [{"url": f"{pages.url}/news", "title": "Orion", "content": "first light"},
                           {"url": f"{pages.url}/missing", "title": "Gone"}]}  # fmt: skip
    with FakeSearxng(index) as sx:
        client = SearxngClient(sx.url, cache=PageCache(tmp_path / "c"))
        results = client.search("When did the Orion telescope see first light?", 5)
        assert [r.url for r in results] == [f"{pages.url}/news", f"{pages.url}/missing"]
        client.search("When did the Orion telescope see first light?", 5)
        assert len(sx.requests) == 1  # replayed from the cache
        docs, errors = fetch_pages(results, budget_s=10, cache=None)
        assert [d.meta["url"] for d in docs] == [f"{pages.url}/news"] and "HTTP 404" in errors[0]["error"]
    with (
        FakeSearxng(index, json_enabled=False) as sx,
        pytest.raises(WebSearchError, match="enable the json format"),
    ):
        SearxngClient(sx.url).search("telescope", 3)


def test_fetching_search_results_stays_within_the_time_budget(pages):
    from ragkit.retrievers.web import SearchResult

    results = [SearchResult(f"{pages.url}/slow", "slow", ""), SearchResult(f"{pages.url}/news", "news", "")]
    docs, errors = fetch_pages(results, budget_s=1.0, cache=None)
    assert [d.source for d in docs] == [f"{pages.url}/news"]
    assert errors == [{"url": f"{pages.url}/slow", "error": "not fetched within the 1 s budget"}]


def test_docx_from_bytes_keeps_headings_lists_and_tables():
    import docx

    d = docx.Document()
    d.add_heading("Plan", level=1)
    d.add_heading("Week one", level=2)
    d.add_paragraph("Buy clay", style="List Bullet")
    d.add_paragraph("Fire the kiln.")
    buf = io.BytesIO()
    d.save(buf)
    doc = parse_bytes("plan.docx", buf.getvalue())
    assert doc.pages[0].text == "# Plan\n\n## Week one\n\n- Buy clay\n\nFire the kiln."
