"""Unit tests of :mod:`ragkit.pipeline.stages`."""

from __future__ import annotations

import pytest

from ragkit.core.types import Chunk, Hit, Span
from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.llms.base import Generation
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline
from ragkit.pipeline.stages import expand_queries, fit_budget, fuse_hit_lists, parse_yes_no
from tests.conftest import ingest_bytes


def hit(n: int, text: str = "Some text.", source: str = "a.pdf", url: str | None = None) -> Hit:
    meta = {"url": url} if url else {}
    chunk = Chunk(f"c{n}", "d", source, n, text, (Span(3, 0, 4),), (), meta)
    return Hit(chunk, n, 1.0 / n, "dense", {"dense": 0.9 - n / 10}, {"dense": n}, 0.6)


class ScriptedLLM:
    """An LLM double: grades by a rule, writes rewrites and expansions, records every prompt."""

    name = "ollama"
    model = "scripted"

    def __init__(self, accept, rewrite="better query about rome", expansion='["alt one", "alt two"]') -> None:
        self.accept = accept  # (prompt) -> bool
        self.rewrite, self.expansion = rewrite, expansion
        self.prompts: list[str] = []

    def generate(self, request):
        p = request.prompt
        self.prompts.append(p)
        if "grading whether a retrieved document is relevant" in p:
            return Generation("Yes." if self.accept(p) else "no", self.model)
        if "Better query:" in p:
            return Generation(self.rewrite, self.model)
        if "different search queries" in p:
            return Generation(self.expansion, self.model)
        return Generation("Rome is the capital [1].", self.model)

    def stream(self, request):
        yield self.generate(request).text


@pytest.fixture
def store(tmp_path, fake_embedder):
    st, ch = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=200, overlap=0))
    ingest_bytes(
        st,
        [
            ("paris.txt", b"Paris is the capital of France. It lies on the Seine."),
            ("rome.md", b"# Rome\n\nRome is the capital of Italy."),
            ("oslo.txt", b"Oslo is the capital of Norway, on a fjord."),
        ],
        ch,
        fake_embedder,
    )
    return st


def test_grader_rejects_first_then_accepts_after_one_rewrite(store, fake_embedder):
    # accept only chunks graded for the rewritten query
    llm = ScriptedLLM(accept=lambda p: "better query" in p and "Rome" in p)
    cfg = PipelineConfig(retriever="bm25", relevance_grader=True, confidence_threshold=0.0, top_k=3)
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("capital city")
    t = ans.trace
    assert t["grader"] == "llm" and not any(g["relevant"] for g in t["grades"])
    assert t["rewrite"] == {"query": "better query about rome", "how": "llm"}
    assert [g["relevant"] for g in t["retry_grades"]].count(True) == 1
    assert [h.chunk.source for h in ans.hits] == ["rome.md"]  # only the accepted chunk reaches the LLM
    assert {"grade", "rewrite"} <= set(ans.timings_ms) and not ans.abstained
    assert sum("Better query:" in p for p in llm.prompts) == 1


def test_a_grader_that_never_accepts_retries_exactly_once_then_abstains(store, fake_embedder):
    llm = ScriptedLLM(accept=lambda p: False)
    cfg = PipelineConfig(retriever="bm25", relevance_grader=True, confidence_threshold=0.0, top_k=3)
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("capital city")
    assert sum("Better query:" in p for p in llm.prompts) == 1  # one rewrite, one second retrieval
    assert "second_retrieval" in ans.trace and ans.hits == []
    assert ans.abstained and "graded relevant, even after rewriting the query once" in ans.abstain_reason
    assert not any(p.startswith("Answer") for p in llm.prompts)  # the LLM was never asked to answer


def test_unparsable_grades_keep_the_chunk_and_are_counted(store, fake_embedder):
    class Mumbling(ScriptedLLM):
        def generate(self, request):
            if "grading whether" in request.prompt:
                return Generation("Hmm, hard to say.", self.model)
            return super().generate(request)

    cfg = PipelineConfig(retriever="bm25", relevance_grader=True, confidence_threshold=0.0, top_k=2)
    ans = RagPipeline(cfg, store, fake_embedder, llm=Mumbling(accept=lambda p: False)).ask("capital city")
    assert ans.trace["parse_failures"] == 2 and len(ans.hits) == 2 and "rewrite" not in ans.trace


def test_offline_grader_uses_the_cosine_and_rewrites_with_keywords(store, fake_embedder):
    cfg = PipelineConfig(retriever="bm25", relevance_grader=True, grader_threshold=0.99, top_k=2)
    ans = RagPipeline(cfg, store, fake_embedder).ask("capital city")  # extractive: no LLM to ask
    assert ans.trace["grader"] == "offline" and all(g["score"] is not None for g in ans.trace["grades"])
    assert ans.trace["rewrite"]["how"] == "keywords" and ans.trace["rewrite"]["query"].startswith(
        "capital city "
    )


@pytest.mark.parametrize(
    "reply, verdict",
    [("yes", True), ("No.", False), ("**Yes** — it is", True), ('{"relevant": false}', False),
     ('{"grade": "yes"}', True), ("Grade: no", False), ("not relevant", False), ("maybe", None)],
)  # fmt: skip
def test_grader_replies_are_parsed_robustly(reply, verdict):
    assert parse_yes_no(reply) is verdict


def test_query_expansion_is_parsed_and_fused_by_rrf(store, fake_embedder):
    llm = ScriptedLLM(accept=lambda p: True, expansion='Sure: ["Rome Italy", "capital of Norway"]')
    queries, parsed = expand_queries(llm, "capital city", 2)
    assert queries == ["Rome Italy", "capital of Norway"] and parsed
    bad, parsed = expand_queries(ScriptedLLM(accept=lambda p: True, expansion="one\ntwo query"), "q", 2)
    assert bad == ["two query"] and not parsed  # lines as a fallback; "one" is too short
    a = [hit(1), hit(2), hit(3)]
    b = [hit(3), hit(4)]
    fused = fuse_hit_lists([a, b], top_k=3)
    # c3 is in both lists: 1/(60+3) + 1/(60+1) beats c1's 1/(60+1)
    assert [h.chunk_id for h in fused] == ["c3", "c1", "c2"] and fused[0].ranks["expand"] == 1
    cfg = PipelineConfig(retriever="bm25", query_expansion=2, confidence_threshold=0.0)
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("capital city")
    assert ans.trace["expansion"]["queries"] == ["Rome Italy", "capital of Norway"]
    assert all("expand" in h.ranks for h in ans.hits) and "expand" in ans.timings_ms
    offline = RagPipeline(cfg, store, fake_embedder).ask("capital city")
    assert "needs a language model" in offline.trace["expansion"]["skipped"]


def test_the_token_budget_keeps_the_most_relevant_sources_that_fit():
    hits = [hit(1, "a " * 30), hit(2, "b " * 50), hit(3, "c " * 10)]
    kept, dropped, sizes = fit_budget(hits, 45, lambda t: len(t.split()))
    assert (
        sizes == [30, 50, 10]
        and [h.chunk_id for h in kept] == ["c1", "c3"]
        and [h.chunk_id for h in dropped] == ["c2"]
    )


def test_the_default_budget_tokenizer_is_a_real_one(store, fake_embedder):
    cfg = PipelineConfig(retriever="bm25", context_tokens=64, confidence_threshold=0.0, top_k=3)
    ans = RagPipeline(cfg, store, fake_embedder, llm=ScriptedLLM(accept=lambda p: True)).ask("capital")
    ctx = ans.trace["context"]
    assert ctx["tokenizer"] == "MiniLM WordPiece (default)" and ctx["used"] <= 64
    assert all(n > 3 for n in ctx["tokens"].values())  # wordpieces, not characters or a constant
