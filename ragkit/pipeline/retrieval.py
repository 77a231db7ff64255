"""The retrieval stage of the pipeline: (expansion) -> search -> (Q&A swap) -> (grade, one rewrite and
retry) -> (context budget), each optional step recording what it did in the trace.

**One ranking, read in part.** The stage always ranks to :data:`RANKING_DEPTH` (or ``top_k`` when that is
deeper) and the reader reads the first ``top_k`` of that ranking. Every retrieval metric named @10 is
computed on this same ranking, so a top-3 pipeline is scored on its own first ten, not on three items
padded with misses, and what the reader read is exactly the ranking's head. Searching ten instead of
three costs microseconds; the retrievers' candidate pools do not depend on the depth asked (hybrid and
rerank take fixed pools), so the head is the same as a top-k search would return.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from ragkit.core.types import Hit
from ragkit.pipeline.web import web_retriever
from ragkit.retrievers import describe

#: how deep the retrieval stage always ranks: the cutoff of every metric named @10
RANKING_DEPTH = 10


class Retrieved(NamedTuple):
    """The retrieval stage's ranking and the hits the reader reads (its head, after grading/budget)."""

    ranking: list[Hit]
    hits: list[Hit]


def retrieve(pipe: Any, query: str, timings: dict[str, float], trace: dict[str, Any]) -> Retrieved:
    """Retrieval with the optional stages of ``pipe.config``; each records what it did in ``trace``."""
    from ragkit.pipeline import stages

    cfg = pipe.config
    queries = [query]
    if cfg.query_expansion:
        if not pipe.capabilities.generative:
            trace["expansion"] = {"skipped": "query expansion needs a language model backend"}
        else:
            t = time.perf_counter()
            alternatives, parsed = stages.expand_queries(pipe.llm, query, cfg.query_expansion)
            timings["expand"] = (time.perf_counter() - t) * 1000
            queries += alternatives
            trace["expansion"] = {"queries": alternatives, "parsed": parsed}
    ranking = answers_for_questions(pipe, search(pipe, queries, timings, trace), trace)
    hits = ranking[: cfg.top_k]
    if cfg.relevance_grader:
        grader = stages.make_grader(pipe.llm, cfg.grader_threshold)
        t = time.perf_counter()
        grades = grader.grade(query, hits)
        timings["grade"] = (time.perf_counter() - t) * 1000
        trace["grader"] = grader.kind
        trace["grades"] = [g.to_dict() for g in grades]
        trace["first_retrieval"] = [h.chunk_id for h in hits]
        kept = [h for h, g in zip(hits, grades, strict=True) if g.relevant]
        if not kept:
            t = time.perf_counter()
            new_query, how = stages.rewrite_query(pipe.llm, query, hits)
            timings["rewrite"] = timings.get("rewrite", 0.0) + (time.perf_counter() - t) * 1000
            ranking = answers_for_questions(pipe, search(pipe, [new_query], timings, trace), trace)
            hits = ranking[: cfg.top_k]
            t = time.perf_counter()
            grades = grader.grade(new_query, hits)
            timings["grade"] += (time.perf_counter() - t) * 1000
            trace["rewrite"] = {"query": new_query, "how": how}
            trace["second_retrieval"] = [h.chunk_id for h in hits]
            trace["retry_grades"] = [g.to_dict() for g in grades]
            kept = [h for h, g in zip(hits, grades, strict=True) if g.relevant]
        trace["parse_failures"] = sum(
            not g["parsed"] for g in trace["grades"] + trace.get("retry_grades", [])
        )
        hits = kept
    if cfg.context_tokens:
        t = time.perf_counter()
        count, tokenizer = stages.token_counter(pipe.llm)
        kept, dropped, sizes = stages.fit_budget(hits, cfg.context_tokens, count)
        timings["budget"] = (time.perf_counter() - t) * 1000
        trace["context"] = {
            "budget": cfg.context_tokens,
            "tokenizer": tokenizer,
            "tokens": dict(zip([h.chunk_id for h in hits], sizes, strict=True)),
            "used": sum(n for h, n in zip(hits, sizes, strict=True) if h in kept),
            "dropped": [h.chunk_id for h in dropped],
        }
        hits = kept
    return Retrieved(ranking, hits)


def answers_for_questions(pipe: Any, hits: list[Hit], trace: dict[str, Any]) -> list[Hit]:
    """A retrieved question of a Q&A collection stands for its answer (what the LLM reads and cites)."""
    if not any(h.chunk.metadata.get("kind") == "question" for h in hits):
        return hits
    from ragkit.ingestion.qa import resolve_question_hits

    hits, swaps = resolve_question_hits(hits, pipe.store)
    trace.setdefault("question_to_answer", []).extend(swaps)
    return hits


def search(
    pipe: Any, queries: Sequence[str], timings: dict[str, float], trace: dict[str, Any] | None = None
) -> list[Hit]:
    """The retriever's ranking of ``queries`` (several: fused by reciprocal rank) to the ranking depth."""
    cfg = pipe.config
    depth = max(cfg.top_k, RANKING_DEPTH)
    retriever = (
        web_retriever(pipe, queries, timings, trace if trace is not None else {})
        if cfg.web_search
        else pipe.retriever
    )
    if trace is not None:
        trace.setdefault("retriever", describe(retriever))
    if len(queries) == 1:
        return retriever.search(queries[0], depth, timings)
    from ragkit.pipeline.stages import fuse_hit_lists

    lists = [retriever.search(q, depth, timings) for q in queries]
    t = time.perf_counter()
    fused = fuse_hit_lists(lists, depth, cfg.rrf_k)
    timings["expand"] = timings.get("expand", 0.0) + (time.perf_counter() - t) * 1000
    return fused
