"""Unit tests of :mod:`ragkit.retrievers.web`."""

from __future__ import annotations

import pytest

from ragkit.ingestion.fetch import PageCache
from ragkit.retrievers.web import SearxngClient, WebSearchError, fetch_pages
from tests.web_servers import FakeSearxng, PageServer


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


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
