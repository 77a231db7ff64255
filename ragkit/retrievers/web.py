"""Web search as a retrieval source: SearXNG → fetch pages → extract → chunk → a per-question index.

With ``web_search`` on, a question is sent to a SearXNG instance (its JSON API:
``GET /search?q=…&format=json``; the instance URL from the config's ``searxng_url`` or ``SEARXNG_URL``,
none by default). The top ``web_results`` results are fetched in parallel within a total time budget
(``web_budget_s``) and extracted to Markdown (:mod:`ragkit.ingestion.fetch`, :mod:`ragkit.ingestion.html`);
the pages are chunked with the config's own chunker into a temporary in-memory index, and the config's
normal retriever (and reranker) runs over it. Optionally the LLM first writes 3 search queries
(``web_query_enhancement``, parsed from JSON) whose results are merged.

Search results are cached by (instance, query, count) and pages by URL, on disk: a comparison or an
evaluation replays exactly the same pages. Answers cite the pages by URL.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from ragkit.core.errors import ConfigError, DocumentError, RagkitError
from ragkit.core.options import Option
from ragkit.core.types import Document
from ragkit.ingestion.fetch import USER_AGENT, PageCache, fetch
from ragkit.ingestion.netpolicy import FetchPolicy, FetchRefused, policy_client, service_policy
from ragkit.ingestion.worker import ParseSession, Request

#: the config fields of web search (SearXNG -> pages -> a per-question index)
OPTIONS = (
    Option("web_search", "bool", False, field="web_search", added_later=True, advanced=True,
           label="Answer from the web (SearXNG)",
           help="Search a SearXNG instance, fetch the top pages, and retrieve from them (cached by URL)."),
    Option("searxng_url", "str?", None, field="searxng_url", added_later=True, advanced=True,
           requires="web_search", blank_is_none=True, service_env="SEARXNG_URL", label="SearXNG instance URL",
           placeholder="http://127.0.0.1:8888 (or SEARXNG_URL)",
           help="the SearXNG instance (else SEARXNG_URL)"),
    Option("web_results", "int", 5, 1, 20, field="web_results", added_later=True, advanced=True,
           requires="web_search", label="Result pages", help="how many result pages are fetched"),
    Option("web_budget_s", "float", 10.0, 1.0, 300.0, field="web_budget_s", added_later=True, advanced=True,
           requires="web_search", widget="none", help="total time for fetching the result pages (s)"),
    Option("web_query_enhancement", "bool", False, field="web_query_enhancement", added_later=True,
           advanced=True, requires="web_search", label="LLM writes the search queries",
           help="the LLM writes 3 search queries first"),
)  # fmt: skip


class WebSearchError(RagkitError):
    """The search engine could not be asked (unreachable, an error status, an unreadable reply)."""


@dataclass(frozen=True)
class SearchResult:
    url: str
    title: str
    snippet: str

    def to_dict(self) -> dict[str, str]:
        return {"url": self.url, "title": self.title, "snippet": self.snippet[:300]}


def searxng_url(configured: str | None) -> str:
    url = configured or os.environ.get("SEARXNG_URL")
    if not url:
        raise ConfigError(
            "web search needs a SearXNG instance: set searxng_url in the config (sidebar) or SEARXNG_URL"
        )
    return url.rstrip("/")


class SearxngClient:
    """SearXNG's JSON search API, cached by (instance, query, count)."""

    def __init__(self, base_url: str, timeout: float = 10.0, cache: PageCache | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.cache = cache

    def search(self, query: str, n: int) -> list[SearchResult]:
        import httpx

        key = f"searxng|{self.base_url}|{query}|{n}"
        cached = self.cache.get_json(key) if self.cache is not None else None
        if cached is not None:
            return [SearchResult(**r) for r in cached]
        url = f"{self.base_url}/search?{urlencode({'q': query, 'format': 'json'})}"
        # the administrator's instance (or the CLI's) is opened as a host, the pages it returns are not;
        # a visitor's instance must pass the policy on every connection, as a page does
        policy = service_policy(self.base_url, os.environ.get("SEARXNG_URL"))
        policy = policy or FetchPolicy.from_env().with_hosts(self.base_url)
        try:
            with policy_client(
                policy, timeout=self.timeout, headers={"User-Agent": USER_AGENT}, follow_redirects=True
            ) as client:
                resp = client.get(url)
        except FetchRefused as e:
            raise WebSearchError(f"the SearXNG instance at {self.base_url} is refused: {e}") from None
        except httpx.HTTPError as e:
            raise WebSearchError(
                f"cannot reach the SearXNG instance at {self.base_url}: {type(e).__name__}"
            ) from None
        if resp.status_code != 200:
            hint = " (enable the json format in its settings.yml)" if resp.status_code == 403 else ""
            raise WebSearchError(f"SearXNG at {self.base_url} answered HTTP {resp.status_code}{hint}")
        try:
            data = resp.json()
            rows = data["results"]
        except (ValueError, KeyError, TypeError):
            raise WebSearchError(f"SearXNG at {self.base_url} did not answer with its JSON results") from None
        out: list[SearchResult] = []
        seen: set[str] = set()
        for r in rows:
            u = str(r.get("url") or "")
            if u.startswith(("http://", "https://")) and u not in seen:
                seen.add(u)
                out.append(SearchResult(u, str(r.get("title") or ""), str(r.get("content") or "")))
            if len(out) >= n:
                break
        if self.cache is not None:
            self.cache.put_json(key, [r.__dict__ for r in out])
        return out


def fetch_pages(
    results: list[SearchResult], budget_s: float, cache: PageCache | None, max_mb: float = 5.0
) -> tuple[list[Document], list[dict[str, str]]]:
    """Fetch and extract the results in parallel within ``budget_s`` seconds in all; returns the documents
    (in the results' order) and an error per URL that failed or did not finish in time."""
    docs: dict[int, Document] = {}
    errors: list[dict[str, str]] = []
    deadline = time.monotonic() + budget_s
    pool = cf.ThreadPoolExecutor(max_workers=max(1, min(8, len(results))))
    session = ParseSession()  # fetched in parallel, parsed in turn by one bounded worker

    def page(url: str) -> Document:
        fetched = fetch(url, min(budget_s, 15.0), max_mb, cache)
        if not fetched.data:
            raise DocumentError(url, "the page is empty")
        return session.parse(Request.for_page(url, fetched))

    try:
        futures = {pool.submit(page, r.url): i for i, r in enumerate(results)}
        done, pending = cf.wait(futures, timeout=max(0.0, deadline - time.monotonic()))
        for f in done:
            i = futures[f]
            try:
                doc = f.result()
                title = results[i].title or doc.meta.get("title", "")
                docs[i] = Document(
                    doc.doc_id, doc.source, doc.sha256, doc.pages, doc.kind, doc.warnings, doc.encoding,
                    meta={**doc.meta, "url": results[i].url, "title": title},
                )  # fmt: skip
            except DocumentError as e:
                errors.append({"url": results[i].url, "error": e.cause})
            except Exception as e:  # one bad page never stops the others
                errors.append({"url": results[i].url, "error": f"{type(e).__name__}: {e}"})
        for f in pending:
            errors.append(
                {"url": results[futures[f]].url, "error": f"not fetched within the {budget_s:g} s budget"}
            )
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        session.close()  # a page still being parsed past the budget is stopped
    return [docs[i] for i in sorted(docs)], errors


def web_store(documents: list[Document], chunker: Any, embedder: Any) -> Any:
    """A temporary in-memory index of the fetched pages (never saved)."""
    import tempfile

    from ragkit.index.store import IndexStore

    store = IndexStore(
        tempfile.gettempdir() + "/ragkit-web-unsaved", embedder.model_id, embedder.dimension, chunker.spec()
    )
    for doc in documents:
        chunks = chunker.split(doc)
        if chunks:
            store.add(doc, chunks, embedder.embed([c.text for c in chunks]), {"url": doc.meta.get("url", "")})
    return store
