"""Where an index keeps its vectors, behind one protocol: local files searched by FAISS, Qdrant (embedded
in the process, or a server), or a Milvus server. Each kind is declared once; :data:`STORES` lists them
for the CLI's flags, the sidebar's choices and :func:`store_spec`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.registry import Registry
from ragkit.index.vectorstores.base import (
    API_KEY_ENV,
    HNSW_FROM,
    StoreKind,
    VectorStore,
    point_id,
)
from ragkit.index.vectorstores.local import LocalFaissStore, LocalKind
from ragkit.index.vectorstores.milvus import MilvusKind
from ragkit.index.vectorstores.qdrant import QdrantKind, default_collection
from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore
from ragkit.index.vectorstores.qdrant_server import QdrantServerStore

#: every kind of vector store, by its declared name
STORES: Registry[StoreKind] = Registry("store", LocalKind, QdrantKind, MilvusKind)


def store_spec(
    kind: str = "local", uri: str | None = None, collection: str | None = None, **options: Any
) -> dict[str, Any]:
    """A validated ``store`` spec for the manifest: the kind and the options given (checked by the kind's
    declaration; defaults are left out, so one place says where the vectors live)."""
    if kind not in STORES:
        raise ConfigError(f"store must be one of {', '.join(STORES.names())}, got {kind!r}")
    declared = {o.name: o for o in STORES.component(kind).options}
    spec: dict[str, Any] = {"kind": kind}
    for name, value in {"uri": uri, "collection": collection, **options}.items():
        if value is None:
            continue
        if name not in declared:
            takes = [c.name for c in STORES.components() if any(o.name == name for o in c.options)]
            flag = next((o.cli_flag() for c in STORES.components() for o in c.options if o.name == name),
                        f"--{name}")  # fmt: skip
            raise ConfigError(f"{flag} applies to --store {' or '.join(takes) or '?'} only, not {kind}")
        value = declared[name].check(kind, value)
        if value is not None and value != declared[name].default:
            spec[name] = value
    return STORES.get(kind).check(spec)


def describe_store(spec: dict[str, Any] | None) -> str:
    """One line for the UI and CLI: where the vectors live."""
    spec = spec or {"kind": "local"}
    kind = spec.get("kind", "local")
    return STORES.get(kind).describe(spec) if kind in STORES else f"an unknown store {kind!r}"


def index_spec(
    spec: dict[str, Any] | None, index_path: Path, model_id: str, prefix: str | None = None
) -> dict[str, Any]:
    """The spec of one index, with its server collection named (``prefix``: an app collection's)."""
    spec = dict(spec or {"kind": "local"})
    return STORES.get(spec.get("kind", "local")).named(spec, Path(index_path), model_id, prefix)


def open_vector_store(spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
    """The adapter for a spec whose vectors live outside the index (``local`` ones are the index's own)."""
    if spec.get("kind") not in STORES:
        raise ConfigError(f"no vector store adapter for {spec.get('kind')!r}")
    return STORES.get(spec["kind"]).open(spec, Path(index_path), dimension)


__all__ = [
    "API_KEY_ENV",
    "HNSW_FROM",
    "STORES",
    "LocalFaissStore",
    "QdrantEdgeStore",
    "QdrantServerStore",
    "StoreKind",
    "VectorStore",
    "default_collection",
    "describe_store",
    "index_spec",
    "open_vector_store",
    "point_id",
    "store_spec",
]
