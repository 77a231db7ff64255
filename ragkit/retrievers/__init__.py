"""Retrievers: ``dense`` (FAISS or Qdrant), ``bm25``, ``hybrid`` (RRF over other retrievers) and a
cross-encoder ``rerank`` wrapper over any of them. Each declares its settings; :func:`retriever_from_config`
reads a config's fields through those declarations, so a new retriever needs only its module and one
registration line below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragkit.core.options import Option
from ragkit.core.registry import Registry
from ragkit.index.store import IndexStore
from ragkit.retrievers.base import Retriever, Timings
from ragkit.retrievers.bm25 import BM25Retriever
from ragkit.retrievers.dense import DenseRetriever
from ragkit.retrievers.hybrid import HybridRetriever
from ragkit.retrievers.rerank import CrossEncoderReranker, RerankRetriever

RETRIEVERS: Registry[Any] = Registry("retriever", DenseRetriever, BM25Retriever, HybridRetriever)

#: the config field choosing the retriever (its own settings are declared by each retriever)
OPTIONS = (
    Option("retriever", "choice", "hybrid", choices=RETRIEVERS.names, field="retriever", label="Retriever",
           help="how chunks are ranked for a question"),
)  # fmt: skip


def build_retriever(
    name: str,
    store: IndexStore,
    embedder: Any,
    *,
    rerank: bool = False,
    rerank_model: str | None = None,
    rerank_candidates: int = CrossEncoderReranker.component.default("candidates"),
    reranker: Any | None = None,
    **settings: Mapping[str, Any] | None,
) -> Retriever:
    """Compose a retriever by name with per-retriever settings (``bm25={"k1": 1.2}``, ``hybrid={...}``):
    a retriever with parts (hybrid) gets each part built the same way; ``rerank`` wraps the result."""
    cls = RETRIEVERS.get(name)
    own = dict(settings.get(name) or {})
    parts = cls.component.parts
    if parts:
        retriever: Retriever = cls({p: build_retriever(p, store, embedder, **settings) for p in parts}, **own)
    else:
        retriever = cls(store, embedder, **own)
    if rerank:
        reranker = reranker or CrossEncoderReranker(
            rerank_model or CrossEncoderReranker.component.default_model
        )
        retriever = RerankRetriever(retriever, reranker, rerank_candidates)
    return retriever


def settings_from_config(config: Any) -> dict[str, dict[str, Any]]:
    """Each retriever's settings as the config holds them (read through the declared fields)."""
    return {
        c.name: {o.name: getattr(config, o.field) for o in c.options if o.field}
        for c in RETRIEVERS.components()
    }


def retriever_from_config(
    config: Any, store: IndexStore, embedder: Any, reranker: Any | None = None
) -> Retriever:
    """The retriever a :class:`~ragkit.pipeline.config.PipelineConfig` describes."""
    return build_retriever(
        config.retriever,
        store,
        embedder,
        rerank=config.rerank,
        rerank_model=config.rerank_model,
        rerank_candidates=config.rerank_candidates,
        reranker=reranker,
        **settings_from_config(config),
    )


def describe(retriever: Any) -> str:
    """What a built retriever really does, e.g. ``hybrid(bm25[engine=bm25s], dense[index=flat])``: shown
    in an answer's trace, so the settings that ran can be checked against the ones chosen."""
    parts = getattr(retriever, "retrievers", None)
    base = getattr(retriever, "base", None)
    if base is not None:
        return f"rerank[{getattr(retriever.reranker, 'model_name', '?')}]({describe(base)})"
    component = getattr(retriever, "component", None)
    if component is None:
        return getattr(retriever, "name", type(retriever).__name__)
    settings = getattr(retriever, "settings", {})
    shown = ", ".join(
        [f"{o.name}={settings.get(o.name)}" for o in component.options if o.kind == "choice"]
        + [o.name for o in component.options if o.kind == "bool" and settings.get(o.name)]
    )
    inner = ", ".join(describe(r) for r in parts.values()) if parts else ""
    return component.name + (f"[{shown}]" if shown else "") + (f"({inner})" if inner else "")


__all__ = [
    "OPTIONS",
    "RETRIEVERS",
    "Retriever",
    "Timings",
    "build_retriever",
    "describe",
    "retriever_from_config",
    "settings_from_config",
]
