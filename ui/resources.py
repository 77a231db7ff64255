"""Every ``st.cache_resource`` loader: models, embedders and retrievers load once per process.

Nothing holding a secret is cached here (cached resources are shared by all sessions): the Groq backend
is built per call with the session's key.
"""

from __future__ import annotations

import streamlit as st

from ragkit.index.collections import Collection
from ragkit.index.embedders import LEGACY_BACKEND
from ragkit.index.embeddings import Embedder
from ragkit.index.lexical import TEXT_ONLY, needs_vectors
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import chunker_for
from ragkit.ingestion.parsing import ParseSettings
from ragkit.llms import LLMS, build_llm
from ragkit.pipeline.calibration import scope_name
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import fields_of
from ragkit.pipeline.rag import RagPipeline
from ragkit.retrievers import retriever_from_config


@st.cache_resource(show_spinner=False)
def embedder(model: str, backend: str = LEGACY_BACKEND) -> Embedder:
    """The embedder of ``model`` run by ``backend``, one per process; not loaded here: a page that only
    checks that an index is current needs no model (:func:`warm_up_after_paint` loads it)."""
    return Embedder(model, backend=backend)


#: seconds between a page being drawn and its models starting to load: the reruns a first page makes
#: (the URL's parameters) finish first instead of sharing the interpreter with torch's import
WARM_UP_AFTER_S = 3.0


def warm_up_after_paint(configs: list[PipelineConfig]) -> None:
    """Load, in the background, the embedding models these configs search with: called once the page is
    drawn, so the first page never waits for torch, and the first question or indexing finds the model
    loaded (or waits only for the rest of its load)."""
    for config in configs:
        if needs_vectors(config):
            config_embedder(config).warm_up(background=True, after_s=WARM_UP_AFTER_S)


def config_embedder(config: PipelineConfig) -> Embedder:
    """The embedder a config's queries and chunks are embedded with (its model and backend)."""
    return embedder(config.embedding_model, config.embedding_backend)


@st.cache_resource(show_spinner="Loading the cross-encoder…")
def reranker(model: str):
    from ragkit.retrievers.rerank import CrossEncoderReranker

    r = CrossEncoderReranker(model)
    r.warm_up()  # raises ModelNotAvailableError with instructions if it cannot load
    return r


@st.cache_resource(show_spinner="Loading the language model (the first time may take minutes)…")
def in_process_llm(backend: str, model: str | None):
    """A backend that loads its model into this process, loaded once (shared: it holds no secret)."""
    llm = build_llm(backend, model=model)
    llm.load()
    return llm


@st.cache_resource(show_spinner=False, max_entries=16)
def _index(path: str, generation: int, model: str) -> IndexStore:
    """An opened index; keyed by its generation so an update is picked up and never half-seen."""
    return IndexStore.open(path, model_id=model)


def index_embedder(config: PipelineConfig):
    """What the collection's index for ``config`` is embedded with: the config's model, or nothing when
    its retrieval reads no vectors (BM25 alone: the index is text only, no model is loaded to build it)."""
    return config_embedder(config) if needs_vectors(config) else TEXT_ONLY


def needs_indexing(collection: Collection, config: PipelineConfig) -> bool:
    """Whether the collection's index for this config must be built or brought up to date first."""
    return not collection.is_indexed(chunker_for(config), index_embedder(config), ParseSettings.of(config))


def index(collection: Collection, config: PipelineConfig, progress=None) -> IndexStore:
    """The collection's index for ``config`` (built or synced first if documents changed)."""
    emb = index_embedder(config)
    chunker = chunker_for(config)
    parse = ParseSettings.of(config)
    if not collection.is_indexed(chunker, emb, parse):
        collection.index(chunker, emb, progress, parse)
    path = collection.index_path(chunker, emb, parse)
    generation = IndexStore.read_manifest(path)["generation"]
    return _index(str(path), generation, emb.model_id)


#: the fields that decide a retriever: every field declared by the index's and the retrievers' components
#: (everything else of a config leaves it unchanged; the fidelity test checks that this is true)
RETRIEVER_FIELDS = fields_of("index", "retrieval")


def retriever_settings(config: PipelineConfig) -> str:
    """The JSON of the retriever-deciding fields: the key of the shared retriever cache."""
    import json

    return json.dumps({f: getattr(config, f) for f in RETRIEVER_FIELDS}, sort_keys=True)


@st.cache_resource(show_spinner=False, max_entries=32)
def _retriever(path: str, generation: int, settings_json: str):
    """A retriever over an opened index, keyed by the index generation and the retrieval settings only,
    so its BM25 statistics and FAISS index are built once, not on every question."""
    import json

    cfg = PipelineConfig.from_dict(json.loads(settings_json))
    emb = config_embedder(cfg)  # BM25 over a text-only index: for the gauge's cosines
    store = _index(path, generation, index_embedder(cfg).model_id)  # aliases resolve to the canonical name
    rr = reranker(cfg.rerank_model) if cfg.rerank else None
    return retriever_from_config(cfg, store, emb, rr)


def retriever(store: IndexStore, config: PipelineConfig):
    """The shared retriever of ``config`` over ``store``."""
    return _retriever(str(store.path), store.generation, retriever_settings(config))


def pipeline(
    collection: Collection, config: PipelineConfig, api_key: str | None, progress=None
) -> RagPipeline:
    """A pipeline over the collection; models come from the caches above, the API key from the session."""
    store = index(collection, config, progress)
    emb = config_embedder(config)
    llm = in_process_llm(config.llm, config.llm_model) if LLMS.component(config.llm).in_process else None
    return RagPipeline(
        config,
        store,
        emb,
        llm=llm,
        api_key=api_key,
        retriever=retriever(store, config),
        scope=scope_name(collection.name, ""),
    )
