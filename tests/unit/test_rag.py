"""The grounded pipeline: prompts, citations, abstention before generation, history, follow-up rewrite."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.types import Chunk, Hit, Message, Span
from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.llms.base import Generation
from ragkit.pipeline.citations import parse_citations
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.followup import follow_up_reason, merge_terms, recent_turns
from ragkit.pipeline.prompts import FALLBACK_ANSWER, format_sources, grounded_completion, grounded_messages
from ragkit.pipeline.rag import RagPipeline
from tests.conftest import ingest_bytes


class RecordingLLM:
    """A chat backend double: records every request and answers with a fixed text."""

    name = "groq"
    model = "fake-model"

    def __init__(self, answer="Answer [1].") -> None:
        self.answer = answer
        self.requests = []

    def generate(self, request):
        self.requests.append(request)
        return Generation(self.answer, self.model, 11, 3)

    def stream(self, request):
        self.requests.append(request)
        yield from self.answer.split(" ")


@pytest.fixture
def store(tmp_path, fake_embedder):
    st, ch = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=200, overlap=0))
    ingest_bytes(
        st,
        [
            ("paris.txt", b"Paris is the capital of France. It lies on the Seine."),
            ("rome.md", b"# Rome\n\nRome is the capital of Italy."),
        ],
        ch,
        fake_embedder,
    )
    return st


def hit(n, source="a.pdf", text="Some text.", pages=(3,), heading=()):
    spans = tuple(Span(p, 0, 4) for p in pages)
    return Hit(Chunk(f"c{n}", "d", source, n, text, spans, heading), n, 1.0, "dense", {}, {}, 0.5)


def test_prompt_numbers_sources_and_carries_the_fallback_instruction():
    hits = [
        hit(1, "paper.pdf", "Alpha.", (3,), ("Methods", "Retrieval")),
        hit(2, "notes.md", "Beta.", (1, 2)),
    ]
    block = format_sources(hits)
    assert block.startswith("[1] paper.pdf p.3 — Methods > Retrieval\nAlpha.")
    assert "[2] notes.md pp.1-2\nBeta." in block
    msgs = grounded_messages("What is alpha?", hits, [Message("user", "hi"), Message("assistant", "hello")])
    assert [m.role for m in msgs] == ["system", "user", "assistant", "user"]
    assert FALLBACK_ANSWER in msgs[0].content and "[1]" in msgs[0].content
    assert msgs[-1].content.endswith("Question: What is alpha?") and "[2] notes.md" in msgs[-1].content
    completion = grounded_completion("What is alpha?", hits)
    assert FALLBACK_ANSWER in completion and completion.endswith("Question: What is alpha?\nAnswer:")


@pytest.mark.parametrize(
    "text, n, valid, invalid",
    [
        ("Paris [1] and Rome [2].", 3, (1, 2), ()),
        ("See [1, 3] and [2-3].", 3, (1, 3, 2), ()),
        ("Claims [4] and [0] and [2].", 3, (2,), (4, 0)),
        ("No markers here.", 3, (), ()),
        ("Twice [1][1].", 1, (1,), ()),
        ("Not a citation: [a] or [1.5] or list[int].", 3, (), ()),
    ],
)
def test_citation_parsing(text, n, valid, invalid):
    r = parse_citations(text, n)
    assert r.valid == valid and r.invalid == invalid and r.uncited == (not valid)


def test_answer_maps_citations_to_chunks(store, fake_embedder):
    llm = RecordingLLM("It is Paris [1], not [9].")
    cfg = PipelineConfig(retriever="bm25", top_k=2, confidence_threshold=0.0)
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("What is the capital of France?")
    assert not ans.abstained and ans.text == "It is Paris [1], not [9]."
    assert [c.n for c in ans.citations] == [1] and ans.citations[0].chunk_id == ans.hits[0].chunk_id
    assert ans.citations[0].source == ans.hits[0].chunk.source and ans.invalid_citations == [9]
    assert not ans.uncited and (ans.prompt_tokens, ans.completion_tokens) == (11, 3)
    assert {"bm25", "generate", "total"} <= set(ans.timings_ms)
    assert ans.config_hash == cfg.cache_key()
    d = ans.to_dict()
    assert {"answer", "abstained", "confidence", "citations", "hits", "timings_ms"} <= set(d)
    assert d["citations"][0] == {
        "n": 1,
        "chunk_id": ans.hits[0].chunk_id,
        "source": ans.hits[0].chunk.source,
        "page": 1,
    }


def test_uncited_answer_is_flagged(store, fake_embedder):
    cfg = PipelineConfig(retriever="bm25", confidence_threshold=0.0)
    ans = RagPipeline(cfg, store, fake_embedder, llm=RecordingLLM("Paris.")).ask("capital of France")
    assert ans.uncited and not ans.citations


def test_abstains_below_threshold_without_calling_the_llm(store, fake_embedder):
    class Exploding(RecordingLLM):
        def generate(self, request):
            raise AssertionError("the LLM must not be called")

    cfg = PipelineConfig(retriever="dense", confidence_threshold=1.0)
    pipe = RagPipeline(cfg, store, fake_embedder, llm=Exploding())
    ans = pipe.ask("What is the capital of France?")
    assert ans.abstained and ans.text == FALLBACK_ANSWER
    assert "below the threshold 1.00" in ans.abstain_reason and "generate" not in ans.timings_ms
    assert ans.confidence.abstain and not ans.uncited
    prep = pipe.prepare("What is the capital of France?")
    assert prep.request is None and list(pipe.stream(prep)) == [FALLBACK_ANSWER]


def test_model_saying_i_dont_know_counts_as_abstention(store, fake_embedder):
    cfg = PipelineConfig(retriever="bm25", confidence_threshold=0.0)
    ans = RagPipeline(cfg, store, fake_embedder, llm=RecordingLLM(FALLBACK_ANSWER)).ask("capital of Peru?")
    assert ans.abstained and ans.abstain_reason == "the model found no answer in the sources"


def test_no_retrieval_baseline(store, fake_embedder):
    llm = RecordingLLM("Paris.")
    cfg = PipelineConfig(no_retrieval=True, llm="ollama")
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("What is the capital of France?")
    assert ans.mode == "no_retrieval" and ans.hits == [] and ans.confidence is None and not ans.uncited
    sent = llm.requests[-1]
    assert "Sources" not in sent.messages[-1].content and sent.sources == ()


def test_history_truncation_keeps_last_turns():
    hist = [Message("system", "s")]
    for i in range(8):
        hist += [Message("user", f"q{i}"), Message("assistant", f"a{i}")]
    kept = recent_turns(hist, 3)
    assert [m.content for m in kept] == ["q5", "a5", "q6", "a6", "q7", "a7"]
    assert recent_turns(hist, 0) == []


def test_history_reaches_the_prompt_truncated(store, fake_embedder):
    llm = RecordingLLM()
    cfg = PipelineConfig(retriever="bm25", history_turns=1, confidence_threshold=0.0)
    hist = [
        Message("user", "old question"),
        Message("assistant", "old answer"),
        Message("user", "Tell me about Paris"),
        Message("assistant", "Paris is in France [1]."),
    ]
    RagPipeline(cfg, store, fake_embedder, llm=llm).ask("Which river is in Paris?", hist)
    contents = [m.content for m in llm.requests[-1].messages]
    assert "Tell me about Paris" in contents and "old question" not in contents


def test_follow_up_detection_and_extractive_rewrite():
    hist = [Message("user", "What is the capital of France?"), Message("assistant", "Paris [1].")]
    assert follow_up_reason("And what about its population?", hist) is not None
    assert follow_up_reason("Italy?", hist) == "it is three words or fewer"
    assert follow_up_reason("What is the capital of Spain?", hist) is None
    assert follow_up_reason("and its population?", []) is None
    assert merge_terms("and what about its population?", "What is the capital of France?") == (
        "and what about its population? capital France"
    )


def test_follow_up_rewritten_for_retrieval(store, fake_embedder):
    hist = [Message("user", "What is the capital of France?"), Message("assistant", "Paris [1].")]
    cfg = PipelineConfig(retriever="bm25", confidence_threshold=0.0)
    # extractive: previous question's terms
    ex = RagPipeline(replace(cfg, llm="extractive"), store, fake_embedder)
    assert ex.ask("and its river?", hist).query == "and its river? capital France"

    # an LLM: its rewrite is used for retrieval, the original question goes to the answer prompt
    class Rewriter(RecordingLLM):
        def generate(self, request):
            self.requests.append(request)
            if "Standalone question:" in request.prompt:
                return Generation("Which river flows through Paris?\nextra", self.model)
            return Generation("The Seine [1].", self.model)

    llm = Rewriter()
    ans = RagPipeline(cfg, store, fake_embedder, llm=llm).ask("and its river?", hist)
    assert ans.query == "Which river flows through Paris?" and ans.question == "and its river?"
    assert "rewrite" in ans.timings_ms
    assert llm.requests[-1].messages[-1].content.endswith("Question: and its river?")


def test_config_json_round_trip_and_validation(tmp_path):
    cfg = PipelineConfig(name="A", retriever="bm25", chunker="sentence", chunker_params={"n": 2}, top_k=3)
    again = PipelineConfig.from_json(cfg.to_json())
    assert again == cfg and again.cache_key() == cfg.cache_key()
    assert replace(cfg, name="B").cache_key() == cfg.cache_key()  # the label is not the pipeline
    assert replace(cfg, top_k=4).cache_key() != cfg.cache_key()
    with pytest.raises(ConfigError, match="unknown config keys \\['topk'\\]"):
        PipelineConfig.from_dict({"topk": 3})
    with pytest.raises(ConfigError, match="retriever must be one of"):
        PipelineConfig(retriever="splade")
    with pytest.raises(ConfigError, match="confidence_threshold"):
        PipelineConfig(confidence_threshold=2)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ConfigError, match=r"bad\.json: config is not valid JSON"):
        PipelineConfig.load(bad)


def test_bm25_matches_terms_present_in_most_chunks(store, fake_embedder):
    """Okapi's raw idf is <= 0 for a term in half the chunks; ours keeps such matches (positive scores)."""
    from ragkit.retrievers import build_retriever

    hits = build_retriever("bm25", store, fake_embedder).search("capital", 5)
    assert len(hits) == len(store.chunks) == 2 and all(h.score > 0 for h in hits)
    france = build_retriever("bm25", store, fake_embedder).search("capital of France", 5)
    assert france[0].chunk.source == "paris.txt" and france[0].score > france[1].score


@pytest.mark.parametrize("retriever", ["dense", "bm25", "hybrid"])
def test_the_reader_reads_the_head_of_a_ranking_ranked_to_ten(tmp_path, fake_embedder, retriever):
    """Retrieval always ranks to RANKING_DEPTH; a top-3 reader reads exactly that ranking's first three,
    which are what a top-3 search returns (so @10 metrics score the pipeline's own ranking)."""
    from ragkit.pipeline.retrieval import RANKING_DEPTH

    st, ch = open_or_create(tmp_path / "idx", fake_embedder, SlidingChunker(size=80, overlap=0))
    docs = [
        (f"d{i}.txt", f"Harbour report {i}: the harbour held {i} ships and {i} cranes.".encode())
        for i in range(14)
    ]
    ingest_bytes(st, docs, ch, fake_embedder)
    cfg = PipelineConfig(retriever=retriever, top_k=3, confidence_threshold=0.0)
    pipe = RagPipeline(cfg, st, fake_embedder, llm=RecordingLLM())
    ans = pipe.ask("How many ships did the harbour hold?")
    assert len(ans.ranking) == RANKING_DEPTH
    assert [h.chunk_id for h in ans.hits] == [h.chunk_id for h in ans.ranking[:3]]
    assert [h.chunk_id for h in pipe.retriever.search(ans.query, 3)] == [h.chunk_id for h in ans.hits]
