"""Answering from the web: SearXNG results for the question (optionally LLM-written queries too), the
pages fetched within a time budget (with the pages of the conversation's earlier turns, from the page
cache), optionally through the content filter, and chunked into an index that the pipeline's own
retriever searches."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ragkit.ingestion.content_filter import filter_documents
from ragkit.ingestion.parsing import ParseSettings
from ragkit.retrievers import retriever_from_config


def web_retriever(pipe: Any, queries: Sequence[str], timings: dict[str, float], trace: dict[str, Any]) -> Any:
    """The pipeline's retriever over a per-question index of the web pages the queries find."""
    from ragkit.ingestion.chunkers import make_chunker
    from ragkit.ingestion.fetch import PageCache
    from ragkit.pipeline.stages import expand_queries
    from ragkit.retrievers import web as websearch

    cfg = pipe.config
    cache = PageCache()
    search_queries = list(queries)
    if cfg.web_query_enhancement and pipe.capabilities.generative:
        t = time.perf_counter()
        more, parsed = expand_queries(pipe.llm, queries[0], 3)
        timings["expand"] = timings.get("expand", 0.0) + (time.perf_counter() - t) * 1000
        search_queries += more
        trace["web_queries"] = {"queries": more, "parsed": parsed}
    client = websearch.SearxngClient(websearch.searxng_url(cfg.searxng_url), cache=cache)
    t = time.perf_counter()
    results: list[Any] = []
    seen: set[str] = set()
    for q in search_queries:
        for r in client.search(q, cfg.web_results):
            if r.url not in seen and len(results) < cfg.web_results * len(search_queries):
                seen.add(r.url)
                results.append(r)
    timings["web_search"] = timings.get("web_search", 0.0) + (time.perf_counter() - t) * 1000
    # the conversation's earlier pages come back from the page cache (by URL) beside the new results
    earlier = [u for u in trace.get("web_earlier_pages", []) if u not in seen]
    fetch_these = results + [websearch.SearchResult(u, "", "") for u in earlier]
    t = time.perf_counter()
    docs, errors = websearch.fetch_pages(fetch_these, cfg.web_budget_s, cache)
    timings["fetch"] = timings.get("fetch", 0.0) + (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    record: dict[str, Any] = {"results": [r.to_dict() for r in results], "errors": errors}
    scorer = ParseSettings.of(cfg).scorer()
    if scorer is not None:
        docs, report = filter_documents(docs, scorer)
        record["content_filter"] = report.to_dict()
        timings["content_filter"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
    chunker = make_chunker(cfg.chunker, **cfg.chunker_params)
    store = websearch.web_store(docs, chunker, pipe.embedder)
    timings["index_web"] = timings.get("index_web", 0.0) + (time.perf_counter() - t) * 1000
    record["fetched"] = [d.meta.get("url") or d.source for d in docs]
    from_earlier = set(earlier)
    record["from_earlier_turns"] = [u for u in record["fetched"] if u in from_earlier]
    trace.setdefault("web", []).append(record)
    if not pipe.capabilities.generative:
        pipe.llm.store = store  # complete sentences from the fetched pages, not the collection
    reranker = getattr(pipe.retriever, "reranker", None)
    return retriever_from_config(cfg, store, pipe.embedder, reranker)
