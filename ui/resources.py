"""Every ``st.cache_resource`` loader: models, embedders and retrievers load once per process.

Nothing holding a secret is cached here (cached resources are shared by all sessions): the Groq backend
is built per call with the session's key.
"""

from __future__ import annotations

import streamlit as st

from ragkit.collections import Collection
from ragkit.config import PipelineConfig
from ragkit.embeddings import Embedder
from ragkit.pipeline import RagPipeline
from ragkit.store import IndexStore


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


def index(collection: Collection, config: PipelineConfig, progress=None) -> IndexStore:
    """The collection's index for ``config`` (built or synced first if documents changed)."""
    from ragkit.chunkers import make_chunker

    emb = embedder(config.embedding_model)
    chunker = make_chunker(config.chunker, **config.chunker_params)
    if not collection.is_indexed(chunker, emb):
        collection.index(chunker, emb, progress)
    path = collection.index_path(chunker, emb)
    generation = IndexStore.read_manifest(path)["generation"]
    return _index(str(path), generation, emb.model_id)


def pipeline(
    collection: Collection, config: PipelineConfig, groq_key: str | None, progress=None
) -> RagPipeline:
    """A pipeline over the collection; models come from the caches above, the Groq key from the session."""
    store = index(collection, config, progress)
    emb = embedder(config.embedding_model)
    llm = None
    if config.llm == "local":
        llm = local_llm(config.llm_model)
    rr = reranker(config.rerank_model) if config.rerank else None
    return RagPipeline(config, store, emb, llm=llm, api_key=groq_key, reranker=rr)
