"""Unit tests of :mod:`ragkit.ingestion.fetch`."""

from __future__ import annotations

import pytest

from ragkit.core.errors import DocumentError
from ragkit.ingestion.fetch import PageCache, fetch, load_url
from ragkit.retrievers.web import fetch_pages
from tests.web_servers import PageServer


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


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


def test_fetching_search_results_stays_within_the_time_budget(pages, warm_parse_worker):
    from ragkit.retrievers.web import SearchResult

    results = [SearchResult(f"{pages.url}/slow", "slow", ""), SearchResult(f"{pages.url}/news", "news", "")]
    docs, errors = fetch_pages(results, budget_s=1.0, cache=None)
    assert [d.source for d in docs] == [f"{pages.url}/news"]
    assert errors == [{"url": f"{pages.url}/slow", "error": "not fetched within the 1 s budget"}]
