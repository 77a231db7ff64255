"""Generation with real parts: extractive answers over a real PDF, the packaged Gemma 3 270M, the CLI."""

from __future__ import annotations

import json

import pytest

from ragkit.core.types import Message
from ragkit.index.ingest import ingest_paths, open_or_create
from ragkit.ingestion.chunkers import SentenceChunker
from ragkit.llms.base import GenerationRequest
from ragkit.llms.local import LocalLLM, packaged_gemma_checkpoint
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.prompts import COMPLETION_STOP, FALLBACK_ANSWER
from ragkit.pipeline.rag import RagPipeline
from tests.conftest import run_ragkit

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def docling_index(tmp_path_factory, embedder, evaldata):
    path = tmp_path_factory.mktemp("gen") / "docling"
    store, chunker = open_or_create(path, embedder, SentenceChunker(n=3))
    ingest_paths(store, [evaldata / "pdfs" / "docling_multi_page.pdf"], chunker, embedder)
    return store


def test_extractive_answer_is_grounded_and_cited(docling_index, embedder):
    pipe = RagPipeline(PipelineConfig(llm="extractive", retriever="hybrid"), docling_index, embedder)
    ans = pipe.ask("Who patented the typewriter, and when?")
    assert not ans.abstained, ans.abstain_reason
    assert "Sholes" in ans.text and "1868" in ans.text
    assert ans.citations and all(c.source == "docling_multi_page.pdf" for c in ans.citations)
    cited = ans.hits[ans.citations[0].n - 1]
    assert "Sholes" in cited.chunk.text or "1868" in cited.chunk.text
    # every sentence of the answer is copied verbatim from the source it cites
    import re

    pairs = re.findall(r"\s*(.+?) \[(\d+)\]", ans.text)
    assert pairs and "".join(f"{t} [{n}]" for t, n in pairs).replace(" ", "") == ans.text.replace(" ", "")
    for sentence, n in pairs:
        assert sentence in " ".join(ans.hits[int(n) - 1].chunk.text.split())
    assert ans.confidence is not None and ans.confidence.value > 0.25
    again = pipe.ask("Who patented the typewriter, and when?")
    assert again.text == ans.text  # deterministic


def test_extractive_abstains_on_unrelated_question(docling_index, embedder):
    cfg = PipelineConfig(llm="extractive", retriever="dense", confidence_threshold=0.5)
    ans = RagPipeline(cfg, docling_index, embedder).ask("What is the boiling point of liquid nitrogen?")
    assert ans.abstained and ans.text == FALLBACK_ANSWER and "below the threshold" in ans.abstain_reason


def test_extractive_follow_up_uses_previous_terms(docling_index, embedder):
    pipe = RagPipeline(PipelineConfig(llm="extractive"), docling_index, embedder)
    hist = [Message("user", "Who patented the typewriter?"), Message("assistant", "Sholes [1].")]
    ans = pipe.ask("And when?", hist)
    assert "typewriter" in ans.query and "patented" in ans.query
    assert "1868" in ans.text


def test_packaged_gemma_generates_and_streams(tmp_path, monkeypatch):
    import gguf

    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(tmp_path))  # converted here, whatever a cache holds
    parses = []
    parse = gguf.GGUFReader
    monkeypatch.setattr(gguf, "GGUFReader", lambda *a, **k: parses.append(a) or parse(*a, **k))
    ckpt = packaged_gemma_checkpoint()  # converts once per cache dir, then reuses
    assert (ckpt / "config.json").is_file()
    # the GGUF's metadata (a 262k-token vocabulary) is parsed once, not for tokenizer, config and weights
    assert len(parses) == 1
    llm = LocalLLM()
    prompt = (
        "Sources:\n[1] notes.txt p.1\nThe capital of France is Paris.\n\n"
        "Question: What is the capital of France?\nAnswer:"
    )
    req = GenerationRequest([], prompt, "What is the capital of France?", (), 0.0, 24, COMPLETION_STOP)
    gen = llm.generate(req)
    assert gen.text and not any(s.strip() and s in gen.text for s in COMPLETION_STOP)
    assert gen.prompt_tokens and 0 < gen.completion_tokens <= 24
    assert "".join(llm.stream(req)).strip() == gen.text  # greedy decoding: same text either way


def test_cli_ask_json(docling_index):
    proc = run_ragkit(
        "ask",
        "--index",
        str(docling_index.path),
        "--llm",
        "extractive",
        "--top-k",
        "4",
        "--json",
        "Who patented the typewriter, and when?",
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert "Sholes" in out["answer"] and out["abstained"] is False
    assert out["citations"] and set(out["citations"][0]) == {"n", "chunk_id", "source", "page"}
    assert len(out["hits"]) == 4 and {"rank", "chunk_id", "source", "page", "text", "scores"} <= set(
        out["hits"][0]
    )
    assert {"total", "embed_query"} <= set(out["timings_ms"]) and 0 <= out["confidence"]["value"] <= 1
    # the model load is reported beside the answer, never inside a stage of it; the CLI says it loads
    assert "load" not in out["timings_ms"] and out["load_ms"] > 0 and "loading models" in proc.stderr
    # the config recorded is the one the index was built with (sentence chunker, not the default)
    assert out["config"]["chunker"] == "sentence"
    assert out["config"]["chunker_params"] == {"n": 3, "overlap": 0}
    bad = run_ragkit(
        "ask",
        "--index",
        str(docling_index.path),
        "--llm",
        "ollama",
        "--ollama-host",
        "127.0.0.1:9",
        "Who patented the typewriter, and when?",
    )
    assert bad.returncode == 1 and "Ollama server not reachable at http://127.0.0.1:9" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_extractive_completes_sentences_cut_by_the_window(tmp_path, embedder, evaldata):
    from ragkit.ingestion.chunkers import SlidingChunker
    from ragkit.ingestion.parsing import ParseSettings

    store, chunker = open_or_create(tmp_path / "small", embedder, SlidingChunker(size=120, overlap=0))
    # the plain reader's text, whose 120-character windows cut the sentence this test is about
    ingest_paths(
        store,
        [evaldata / "pdfs" / "docling_multi_page.pdf"],
        chunker,
        embedder,
        settings=ParseSettings("plain"),
    )
    cut = [c for c in store.chunks if "Sholes" in c.text]
    assert cut and not any("than handwriting." in c.text for c in cut)  # the window really cuts it
    ans = RagPipeline(PipelineConfig(llm="extractive", retriever="dense"), store, embedder).ask(
        "Who patented the typewriter, and when?"
    )
    assert "Patented in 1868 by Christopher Latham Sholes" in ans.text
    assert ans.citations and not ans.invalid_citations
    # the sentence is completed only from retrieved chunks, and then cites them; else it is cut, marked "…"
    holding = [c for c in ans.hits if "than handwriting." in c.chunk.text]
    if "more efficiently than handwriting." in ans.text:
        assert holding and any(c.chunk_id == holding[0].chunk_id for c in ans.citations)
    else:
        assert not holding and "…" in ans.text


@pytest.fixture(scope="module")
def tiny_t5(tmp_path_factory):
    """A tiny encoder-decoder model built and saved here (no weights can be downloaded): random weights,
    a word-level tokenizer trained on a few sentences. It exercises the seq2seq path, not quality."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    path = tmp_path_factory.mktemp("tiny-t5")
    tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    corpus = ["Answer the question using only the sources .", "Sholes patented the typewriter in 1868 ."] * 5
    tok.train_from_iterator(corpus, trainers.WordLevelTrainer(special_tokens=["<pad>", "</s>", "<unk>"]))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
    )
    fast.save_pretrained(path)
    config = T5Config(
        vocab_size=fast.vocab_size, d_model=32, d_kv=8, d_ff=64, num_layers=1, num_decoder_layers=1,
        num_heads=2, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
    )  # fmt: skip
    T5ForConditionalGeneration(config).save_pretrained(path)
    return path


def test_local_backend_runs_a_seq2seq_model(tiny_t5, docling_index, embedder):
    llm = LocalLLM(model=str(tiny_t5), dtype="float32")
    prompt = "Answer the question using only the sources . Sholes patented the typewriter"
    req = GenerationRequest([Message("user", prompt)], prompt, "Who?", (), 0.0, 6, ())
    gen = llm.generate(req)
    assert llm.seq2seq is True  # chosen from the model's own config (is_encoder_decoder)
    assert 0 < gen.completion_tokens <= 7 and gen.prompt_tokens == len(prompt.split())
    assert prompt not in gen.text  # a seq2seq model writes only the answer, never the prompt back
    assert "".join(llm.stream(req)).strip() == gen.text
    cfg = PipelineConfig(
        llm="local", llm_model=str(tiny_t5), retriever="dense", confidence_threshold=0.0, max_tokens=5
    )
    ans = RagPipeline(cfg, docling_index, embedder, llm=llm).ask("Who patented the typewriter?")
    assert ans.llm == "local" and ans.completion_tokens is not None and ans.hits
