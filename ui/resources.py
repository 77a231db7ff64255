"""Every ``st.cache_resource`` loader: models, embedders and retrievers load once per process.

Nothing holding a secret is cached here (cached resources are shared by all sessions): the Groq backend
is built per call with the session's key.
"""

from __future__ import annotations

import streamlit as st

from ragkit.index.collections import Collection
from ragkit.index.embeddings import Embedder
from ragkit.index.store import IndexStore
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline


@st.cache_resource(show_spinner="Loading the embedding model…")
def embedder(model: str) -> Embedder:
    emb = Embedder(model)
    _ = emb.dimension  # load now, under the spinner
    return emb


@st.cache_resource(show_spinner="Loading the cross-encoder…")
def reranker(model: str):
    from ragkit.retrievers.rerank import CrossEncoderReranker

    r = CrossEncoderReranker(model)
    r.warm_up()  # raises ModelNotAvailableError with instructions if it cannot load
    return r


@st.cache_resource(show_spinner="Loading the local language model (first time: converting, a few minutes)…")
def local_llm(model: str | None):
    from ragkit.llms.local import LocalLLM

    llm = LocalLLM(model)
    llm.load()
    return llm


@st.cache_resource(show_spinner=False, max_entries=16)
def _index(path: str, generation: int, model: str) -> IndexStore:
    """An opened index; keyed by its generation so an update is picked up and never half-seen."""
    return IndexStore.open(path, model_id=model)


def needs_indexing(collection: Collection, config: PipelineConfig) -> bool:
    """Whether the collection's index for this config must be built or brought up to date first."""
    from ragkit.ingestion.chunkers import make_chunker

    emb = embedder(config.embedding_model)
    return not collection.is_indexed(make_chunker(config.chunker, **config.chunker_params), emb)


def index(collection: Collection, config: PipelineConfig, progress=None) -> IndexStore:
    """The collection's index for ``config`` (built or synced first if documents changed)."""
    from ragkit.ingestion.chunkers import make_chunker

    emb = embedder(config.embedding_model)
    chunker = make_chunker(config.chunker, **config.chunker_params)
    if not collection.is_indexed(chunker, emb):
        collection.index(chunker, emb, progress)
    path = collection.index_path(chunker, emb)
    generation = IndexStore.read_manifest(path)["generation"]
    return _index(str(path), generation, emb.model_id)


#: the fields that decide a retriever (everything else of a config leaves it unchanged)
RETRIEVAL_FIELDS = (
    "chunker", "chunker_params", "embedding_model", "retriever", "bm25_k1", "bm25_b", "rrf_k", "hybrid_depth",
    "hybrid_weights", "intent_routing", "rerank", "rerank_model", "rerank_candidates", "bm25_language",
)  # fmt: skip


@st.cache_resource(show_spinner=False, max_entries=32)
def _retriever(path: str, generation: int, retrieval_json: str):
    """A retriever over an opened index, keyed by the index generation and the retrieval settings only,
    so its BM25 statistics and FAISS index are built once, not on every question."""
    import json

    from ragkit.retrievers import retriever_from_config

    cfg = PipelineConfig.from_dict(json.loads(retrieval_json))
    emb = embedder(cfg.embedding_model)
    store = _index(path, generation, emb.model_id)  # model_id: aliases resolve to the canonical name
    rr = reranker(cfg.rerank_model) if cfg.rerank else None
    return retriever_from_config(cfg, store, emb, rr)


def pipeline(
    collection: Collection, config: PipelineConfig, groq_key: str | None, progress=None
) -> RagPipeline:
    """A pipeline over the collection; models come from the caches above, the Groq key from the session."""
    store = index(collection, config, progress)
    emb = embedder(config.embedding_model)
    llm = None
    if config.llm == "local":
        llm = local_llm(config.llm_model)
    # only the retrieval half of the config keys the shared retriever (no LLM settings, no secrets)
    from dataclasses import replace

    retrieval = replace(
        PipelineConfig(),
        **{f: getattr(config, f) for f in RETRIEVAL_FIELDS},
    )
    retriever = _retriever(str(store.path), store.generation, retrieval.to_json())
    return RagPipeline(config, store, emb, llm=llm, api_key=groq_key, retriever=retriever)
