"""Presets and the stages they need (issue #12): prompt styles and their citations, fallback variants, the
relevance grader with exactly one rewrite, query expansion fused by RRF, the token budget, code blocks kept
whole, a non-English BM25 analyzer, template validation, and every preset loading."""

from __future__ import annotations

import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.types import Chunk, Hit, Span
from ragkit.index.ingest import ingest_bytes, open_or_create
from ragkit.ingestion.chunkers import MarkdownChunker, SlidingChunker
from ragkit.llms.base import Generation
from ragkit.pipeline.citations import parse_citations
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.presets import load_preset, preset_names, runnable_here
from ragkit.pipeline.prompts import format_sources, grounded_messages, is_fallback, templates_for
from ragkit.pipeline.rag import RagPipeline
from ragkit.pipeline.stages import expand_queries, fit_budget, fuse_hit_lists, parse_yes_no
from ragkit.retrievers.analyzer import Analyzer
from tests.conftest import make_doc


def hit(n: int, text: str = "Some text.", source: str = "a.pdf", url: str | None = None) -> Hit:
    meta = {"url": url} if url else {}
    chunk = Chunk(f"c{n}", "d", source, n, text, (Span(3, 0, 4),), (), meta)
    return Hit(chunk, n, 1.0 / n, "dense", {"dense": 0.9 - n / 10}, {"dense": n}, 0.6)


# ------------------------------------------------------------------ prompt styles


def test_every_prompt_style_renders_its_sources_block():
    hits = [hit(1, "Alpha text."), hit(2, "Beta text.", url="https://ex.org/b")]
    assert format_sources(hits, "numbered").startswith("[1] a.pdf p.3\nAlpha text.")
    assert format_sources(hits, "plain") == "Alpha text.\n\nBeta text."
    assert (
        format_sources(hits, "context-i")
        == "Context 1:\n'''\nAlpha text.\n'''\n\nContext 2:\n'''\nBeta text.\n'''"
    )
    xml = format_sources(hits, "xml")
    assert '<source id="1" url="a.pdf#page=3" relevance="' in xml
    assert '<source id="2" url="https://ex.org/b"' in xml and xml.count("</source>") == 2
    fallback = "I don’t know based on the provided context."
    msgs = grounded_messages("Why?", hits, (), templates_for("plain", fallback=fallback))
    assert fallback in msgs[0].content and msgs[1].content.startswith("Context:\nAlpha text.")
    assert "code example" in grounded_messages("How?", hits, (), templates_for("context-i"))[1].content
    assert "<sources>" in grounded_messages("Why?", hits, (), templates_for("xml"))[1].content


def test_citations_are_parsed_in_every_style():
    urls = ["a.pdf#page=3", "https://ex.org/b", "c.md#page=1"]
    assert parse_citations("As [2] and [1, 3] say.", 3).valid == (2, 1, 3)
    assert parse_citations("Context 2 shows it; see also context 3.", 3, "context-i").valid == (2, 3)
    xml = parse_citations('Per [the guide](https://ex.org/b) and <source id="3">.', 3, "xml", urls)
    assert xml.valid == (2, 3)
    assert parse_citations("[ok](https://elsewhere.org)", 3, "xml", urls).uncited


def test_a_template_override_is_validated_and_used():
    template = {"system": "Only facts. Fallback: {fallback}?", "user": "{sources}\n\nQ: {question}"}
    with pytest.raises(ConfigError, match=r"unknown placeholder\(s\) \{fallback\}"):
        PipelineConfig(prompt_template=template)
    with pytest.raises(ConfigError, match=r"must contain \{sources\} and \{question\}"):
        PipelineConfig(prompt_template={"user": "Q: {question}"})
    with pytest.raises(ConfigError, match="unknown parts"):
        PipelineConfig(prompt_template={"assistant": "x"})
    with pytest.raises(ConfigError, match="prompt_style must be one of"):
        PipelineConfig(prompt_style="fancy")
    cfg = PipelineConfig(
        prompt_template={"system": "Be brief.", "user": "{sources}\n\nQ: {question}\n{history}"}
    )
    msgs = grounded_messages(
        "Why?", [hit(1, "Alpha.")], (), templates_for(cfg.prompt_style, cfg.prompt_template)
    )
    assert msgs[0].content == "Be brief." and msgs[1].content.startswith("[1] a.pdf p.3\nAlpha.\n\nQ: Why?")
    assert cfg.cache_key() != PipelineConfig().cache_key()  # the template is part of the hash
    assert PipelineConfig(description="x", reference="y").cache_key() == PipelineConfig().cache_key()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I don’t know based on the provided context.", True),
        ("I DON'T KNOW BASED ON THE PROVIDED CONTEXT", True),
        ('"I don\u2019t know based on the provided context"!', True),
        ("I don't know.", True),
        ("i do not know", True),
        ("I don't know who patented it, but Sholes did [1].", False),
        ("Sholes [1].", False),
        ("", False),
    ],
)
def test_fallback_detection_ignores_apostrophes_case_and_punctuation(text, expected):
    assert is_fallback(text, ("I don’t know based on the provided context.",)) is expected


# ------------------------------------------------------------------ grader and rewrite


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


# ------------------------------------------------------------------ expansion and budget


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


# ------------------------------------------------------------------ chunking and analysis


def test_code_blocks_are_kept_whole_as_their_own_chunks():
    md = (
        "# Reading files\n\nHow do I read a whole file in Python?\n\n```python\nwith open(p) as f:\n\n"
        "    text = f.read()\n```\n\nShort note.\n\n"
        "<pre><code>cat notes.txt\n\nhead -n 5 notes.txt</code></pre>\n"
    )
    chunks = MarkdownChunker(min_chars=200, separate_code=True).split(make_doc(md))
    code = [c.text for c in chunks if "open(p)" in c.text or "cat notes" in c.text]
    assert code == ["```python\nwith open(p) as f:\n\n    text = f.read()\n```",
                    "<pre><code>cat notes.txt\n\nhead -n 5 notes.txt</code></pre>"]  # fmt: skip
    merged = MarkdownChunker(min_chars=200).split(make_doc(md))
    assert len(merged) < len(chunks)  # without the option, short code merges with prose
    assert MarkdownChunker().spec() == {"name": "markdown", "config": {"min_chars": 100, "max_chars": 2000}}


def test_markdown_windows_overlap_when_asked():
    text = "# T\n\n" + " ".join(f"w{i}" for i in range(400))
    chunks = MarkdownChunker(max_chars=300, overlap=60).split(make_doc(text))
    assert len(chunks) > 2
    assert chunks[1].text.split()[0] in chunks[0].text  # the second window starts inside the first


def test_a_non_english_analyzer_stems_and_drops_its_stop_words():
    assert Analyzer(language="german")("Die Häuser der Kinder") == ["haus", "kind"]
    assert Analyzer(language="french")("Les maisons des enfants") == ["maison", "enfant"]
    with pytest.raises(ConfigError, match="bm25_language must be one of"):
        PipelineConfig(bm25_language="klingon")


# ------------------------------------------------------------------ presets


def test_every_preset_loads_and_what_cannot_run_here_is_swapped_and_said(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")
    assert preset_names() == [
        "code-qa",
        "groq-chatbot",
        "hybrid-intent-ollama",
        "sentence-window-local",
        "web-rerank",
    ]
    for name in preset_names():
        cfg = load_preset(name)
        assert cfg.name == name and cfg.description and cfg.reference
        here, notes = runnable_here(cfg)
        assert here.llm == "extractive" and notes  # no service reachable from this test
        assert all(name in n for n in notes)
    web, notes = runnable_here(load_preset("web-rerank"))
    assert not web.rerank and any("cross-encoder" in n for n in notes)
    assert (web.prompt_style, web.context_tokens, web.top_k) == ("xml", 4096, 10)
    kept, _ = runnable_here(load_preset("groq-chatbot"), api_key="gsk_session_key_123")
    assert kept.llm == "groq"  # with a key the preset runs as published
