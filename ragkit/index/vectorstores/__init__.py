"""Where an index keeps its vectors, behind one protocol: local files searched by FAISS, Qdrant embedded in
the process, or a Qdrant server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.index.vectorstores.base import (
    API_KEY_ENV,
    HNSW_FROM,
    STORES,
    VectorStore,
    default_collection,
    describe_store,
    point_id,
    store_spec,
)
from ragkit.index.vectorstores.local import LocalFaissStore
from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore
from ragkit.index.vectorstores.qdrant_server import QdrantServerStore


def open_vector_store(spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
    """The adapter for a ``qdrant`` spec (``local`` vectors are handled by the index itself)."""
    if spec.get("kind") != "qdrant":
        raise ConfigError(f"no vector store adapter for {spec.get('kind')!r}")
    if spec.get("uri"):
        collection = spec.get("collection") or default_collection(index_path)
        return QdrantServerStore(spec["uri"], collection, dimension)
    return QdrantEdgeStore(Path(index_path) / "qdrant", dimension)


__all__ = [
    "API_KEY_ENV",
    "HNSW_FROM",
    "STORES",
    "LocalFaissStore",
    "QdrantEdgeStore",
    "QdrantServerStore",
    "VectorStore",
    "default_collection",
    "describe_store",
    "open_vector_store",
    "point_id",
    "store_spec",
]
