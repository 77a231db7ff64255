"""Shared fixtures: evaldata paths, a session-wide real embedder, a hash-based fake for unit tests."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragkit.core.types import Document, Page

EVALDATA = Path(__file__).resolve().parents[1].parent / "shared" / "evaldata"
PDFS = EVALDATA / "pdfs"


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Never touch the user's ~/.cache: every test session gets its own embedding cache dir."""
    os.environ["RAGKIT_CACHE_DIR"] = str(tmp_path_factory.mktemp("ragkit-cache"))


@pytest.fixture(scope="session", autouse=True)
def _loopback_servers_allowed() -> None:
    """The suite's fake servers listen on 127.0.0.1: opened through the fetch policy's allow-list, as an
    administrator would open an intranet host (the policy tests set their own)."""
    os.environ["RAGKIT_FETCH_ALLOW"] = "127.0.0.1"


@pytest.fixture(autouse=True)
def _not_serving_visitors():
    """A page test runs the app in this process, which marks it as serving visitors: the next test is
    a CLI or library caller again."""
    yield
    from ragkit.ingestion.netpolicy import serve_visitors

    serve_visitors(False)


@pytest.fixture(autouse=True)
def _no_spare_parse_workers():
    """A page test keeps a parse worker warm, as the app does: the next test starts without spares."""
    yield
    from ragkit.ingestion.worker import POOL

    POOL.keep_warm(0)


@pytest.fixture(scope="session")
def milvus_server(tmp_path_factory: pytest.TempPathFactory):
    """One real Milvus server for the session (``tests/milvus_server.py``: its own network namespace,
    reached on one loopback port, authorization on); stopped with SIGINT at the end. A test that stops
    it (kill -9) starts it again on the same data before it ends."""
    from tests.milvus_server import MilvusServer, Unavailable

    server = MilvusServer(tmp_path_factory.mktemp("milvus"))
    try:
        server.start()
    except Unavailable as e:
        pytest.skip(str(e))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def evaldata() -> Path:
    if not EVALDATA.is_dir():
        pytest.fail(f"evaluation data not found at {EVALDATA} (expected ../shared/evaldata)")
    return EVALDATA


@pytest.fixture(scope="session")
def embedder(tmp_path_factory: pytest.TempPathFactory):
    """The real all-MiniLM-L6-v2, loaded once per session, with a session-private cache."""
    from ragkit.index.embeddings import Embedder, EmbeddingCache

    cache = EmbeddingCache(tmp_path_factory.mktemp("emb") / "embeddings.sqlite")
    emb = Embedder(cache=cache)
    _ = emb.dimension  # load now, once
    return emb


@pytest.fixture(scope="session")
def int8_model(_isolated_cache) -> None:
    """The int8 model (the default backend of new indexes) converted once per session, before any app or
    CLI process of the session needs it: they share the session's cache dir and find it there."""
    from ragkit.index.embeddings import Embedder

    Embedder(backend="onnx-int8", cache=False).warm_up()


class FakeEmbedder:
    """Deterministic unit vectors from a hash of the text: the Embedder interface without a model."""

    def __init__(self, model_id: str = "fake/hash-embedder", dimension: int = 8) -> None:
        self.model_id = model_id
        self.dimension = dimension
        self.dtype = "float32"
        self.new_embeddings = 0
        self.cache_hits = 0
        self._seen: dict[str, np.ndarray] = {}

    @property
    def cache_key(self) -> str:
        return f"{self.model_id}@{self.dtype}"

    def embed(self, texts, progress=None) -> np.ndarray:
        out = []
        for t in texts:
            if t in self._seen:
                self.cache_hits += 1
            else:
                seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
                v = np.random.default_rng(seed).normal(size=self.dimension).astype(np.float32)
                self._seen[t] = v / np.linalg.norm(v)
                self.new_embeddings += 1
            out.append(self._seen[t])
        if progress:
            progress(len(texts), len(texts))
        return np.stack(out) if out else np.zeros((0, self.dimension), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")
        v = np.random.default_rng(seed).normal(size=self.dimension).astype(np.float32)
        return v / np.linalg.norm(v)


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


def make_doc(*pages: str, source: str = "doc.txt", doc_id: str = "d0c1d") -> Document:
    """A Document from page texts (for chunker tests, no parsing involved)."""
    return Document(
        doc_id=doc_id,
        source=source,
        sha256=hashlib.sha256("\f".join(pages).encode()).hexdigest(),
        pages=tuple(Page(number=i + 1, text=t) for i, t in enumerate(pages)),
        kind="txt",
    )


ROOT = Path(__file__).resolve().parents[1]


def write_beir(
    root: Path, corpus: dict[str, tuple[str, str]], queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> Path:
    """A BEIR folder as ``eval run`` and ``sweep --dataset`` read it: ``corpus`` id → (title, text),
    ``queries`` id → text, ``qrels`` query id → {document id: score} (the test split)."""
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n" for k, (t, x) in corpus.items())
    )
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": k, "text": t}) + "\n" for k, t in queries.items())
    )
    rows = "".join(f"{q}\t{d}\t{r}\n" for q, rel in qrels.items() for d, r in rel.items())
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + rows)
    return root


def run_ragkit(*args: str, timeout: float = 600, **env: str):
    """Run ``python -m ragkit ARGS`` in a subprocess (as a user would); returns the CompletedProcess."""
    import subprocess
    import sys

    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    return subprocess.run(
        [sys.executable, "-m", "ragkit", *args], capture_output=True, text=True, env=full_env, timeout=timeout
    )


def build_tiny_cross_encoder(path: Path, words: set[str]) -> Path:
    """A 2-layer BERT cross-encoder with random weights and a tiny vocabulary, saved to ``path`` (no
    cross-encoder weights can be downloaded here: this exercises the real ``CrossEncoder`` loading path)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *sorted(words)]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        num_labels=1,
    )
    BertForSequenceClassification(config).save_pretrained(path)
    BertTokenizerFast(vocab_file=str(path / "vocab.txt")).save_pretrained(path)
    return path


def sample_answer(text: str = "Sholes patented it in 1868 [1].") -> Any:
    """A small answer with one hit, one citation and a confidence (for JSON and workspace tests)."""
    from ragkit.core.types import Chunk, Hit, Span
    from ragkit.pipeline.answer import Answer

    chunk = Chunk("d-k-00001", "d", "a.pdf", 1, "Sholes patented the typewriter in 1868.", (Span(2, 10, 49),))
    hit = Hit(chunk, 1, 0.03, "rrf", {"rrf": 0.03, "bm25": 4.2}, {"rrf": 1, "bm25": 2}, cosine=0.61)
    from ragkit.pipeline.answer import Citation
    from ragkit.pipeline.confidence import retrieval_confidence

    return Answer(
        "Who?", "Who?", text, False, None, [Citation(1, chunk.chunk_id, "a.pdf", 2)], [], False, [hit],
        retrieval_confidence([hit]), "extractive", "m", "rag", "abc", timings_ms={"total": 12.5},
    )  # fmt: skip


def ingest_bytes(store: Any, files: Any, chunker: Any, embedder: Any) -> Any:
    """Parse ``(file name, bytes)`` pairs as uploads are parsed and index them in one save."""
    from ragkit.index.ingest import ingest_documents
    from ragkit.index.inputs import guarded_parse
    from ragkit.ingestion.parse import parse_bytes

    parsed = [(n, guarded_parse(n, lambda d=d, n=n: parse_bytes(n, d))) for n, d in files]
    return ingest_documents(store, parsed, chunker, embedder)


@pytest.fixture
def warm_parse_worker():
    """A parse worker kept warm, as a web-search pipeline's ``warm_up`` keeps one (and none after)."""
    from ragkit.ingestion.worker import POOL

    POOL.keep_warm(1, wait=120.0)
    yield POOL
    POOL.keep_warm(0)
