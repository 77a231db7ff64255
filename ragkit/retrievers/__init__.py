"""Retrievers: ``dense`` (FAISS), ``bm25``, ``hybrid`` (RRF) and a ``rerank`` wrapper over any of them."""

from __future__ import annotations

from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.registry import Registry
from ragkit.index.store import IndexStore
from ragkit.retrievers.base import Retriever, Timings

RETRIEVERS: Registry[Any] = Registry("retriever")
RETRIEVERS.register("dense", "ragkit.retrievers.dense:DenseRetriever")
RETRIEVERS.register("bm25", "ragkit.retrievers.bm25:BM25Retriever")
RETRIEVERS.register("hybrid", "ragkit.retrievers.hybrid:HybridRetriever")


def build_retriever(
    name: str,
    store: IndexStore,
    embedder: Any,
    *,
    bm25: dict[str, Any] | None = None,
    dense: dict[str, Any] | None = None,
    hybrid: dict[str, Any] | None = None,
    rerank: bool = False,
    rerank_model: str | None = None,
    rerank_candidates: int = 50,
    reranker: Any | None = None,
) -> Retriever:
    """Compose a retriever by name: ``hybrid`` fuses ``bm25`` and ``dense``; ``rerank`` wraps the result."""
    from ragkit.retrievers.bm25 import BM25Retriever
    from ragkit.retrievers.dense import DenseRetriever

    if name not in RETRIEVERS:
        RETRIEVERS.get(name)  # raises the error listing the valid names
    if name == "dense":
        retriever: Retriever = DenseRetriever(store, embedder, **(dense or {}))
    elif name == "bm25":
        retriever = BM25Retriever(store, embedder, **(bm25 or {}))
    elif name == "hybrid":
        from ragkit.retrievers.hybrid import HybridRetriever

        opts = dict(hybrid or {})
        retriever = HybridRetriever(
            {
                "bm25": BM25Retriever(store, embedder, **(bm25 or {})),
                "dense": DenseRetriever(store, embedder, **(dense or {})),
            },
            **opts,
        )
    else:  # pragma: no cover - registry and branches are kept in step
        raise ConfigError(f"no factory for retriever {name!r}")
    if rerank:
        from ragkit.retrievers.rerank import DEFAULT_RERANKER, CrossEncoderReranker, RerankRetriever

        reranker = reranker or CrossEncoderReranker(rerank_model or DEFAULT_RERANKER)
        retriever = RerankRetriever(retriever, reranker, rerank_candidates)
    return retriever


def retriever_from_config(
    config: Any, store: IndexStore, embedder: Any, reranker: Any | None = None
) -> Retriever:
    """The retriever a :class:`~ragkit.config.PipelineConfig` describes (its retrieval fields only)."""
    return build_retriever(
        config.retriever,
        store,
        embedder,
        bm25={
            "k1": config.bm25_k1,
            "b": config.bm25_b,
            "language": config.bm25_language,
            "engine": config.bm25_engine,
        },
        dense={"index": config.dense_index, "hnsw_m": config.hnsw_m, "hnsw_ef_search": config.hnsw_ef_search},
        hybrid={
            "k": config.rrf_k,
            "depth": config.hybrid_depth,
            "weights": config.hybrid_weights,
            "intent_routing": config.intent_routing,
        },
        rerank=config.rerank,
        rerank_model=config.rerank_model,
        rerank_candidates=config.rerank_candidates,
        reranker=reranker,
    )


__all__ = ["RETRIEVERS", "Retriever", "Timings", "build_retriever", "retriever_from_config"]
