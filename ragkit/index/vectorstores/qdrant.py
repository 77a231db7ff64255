"""Qdrant, declared once: its engine embedded in this process without a URL, a server or cluster with one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.index.vectorstores.base import API_KEY_ENV, StoreKind, VectorStore, check_url


def _uri(owner: str, value: Any) -> str | None:
    if value is None:
        return None
    return check_url("Qdrant", str(value), "http://host:6333", API_KEY_ENV)


def _collection(owner: str, value: Any) -> str | None:
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,200}", str(value)):
        raise ConfigError(f"Qdrant collection names use letters, digits, '_', '.', '-': got {value!r}")
    return value


def default_collection(index_path: Path) -> str:
    """A server collection name from the index directory (``ragkit_<name>``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(index_path).resolve().name) or "index"
    return f"ragkit_{name}"[:200]


class QdrantKind(StoreKind):
    """A Qdrant collection: embedded (``qdrant-edge-py``, a shard in ``<index>/qdrant``) or, with ``uri``,
    a server or cluster over REST."""

    component = Component(
        "store",
        "qdrant",
        "Qdrant: embedded in this process, or a server or cluster by URL",
        options=(
            Option("uri", "str?", None, validate=_uri, label="Qdrant server URL", service_env="QDRANT_URL",
                   placeholder="http://localhost:6333",
                   help="a Qdrant server or cluster (REST), e.g. http://localhost:6333; without it Qdrant "
                   "runs embedded in this process"),
            Option("collection", "str?", None, validate=_collection,
                   help="the server collection (default ragkit_<index>)"),
        ),
        key_env=API_KEY_ENV,
        extras={"choices": {"Qdrant, embedded": False, "Qdrant server (URL)": True}},
    )  # fmt: skip

    @classmethod
    def describe(cls, spec: dict[str, Any]) -> str:
        if spec.get("uri"):
            return f"Qdrant server {spec['uri']} (collection {spec.get('collection', '?')})"
        return "Qdrant embedded (qdrant-edge)"

    @classmethod
    def named(
        cls, spec: dict[str, Any], index_path: Path, model_id: str, prefix: str | None = None
    ) -> dict[str, Any]:
        if not spec.get("uri"):
            return spec
        import hashlib

        if prefix is not None:  # one server collection per index of an app collection, named after both
            name = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{spec.get('collection') or prefix}_{index_path.name}")
            if len(name) > 120:
                name = f"{name[:100]}_{hashlib.sha256(name.encode()).hexdigest()[:12]}"
            return {**spec, "collection": name}
        return spec if spec.get("collection") else {**spec, "collection": default_collection(index_path)}

    @classmethod
    def open(cls, spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
        if spec.get("uri"):
            from ragkit.index.vectorstores.qdrant_server import QdrantServerStore

            return QdrantServerStore(spec["uri"], spec["collection"], dimension)
        from ragkit.index.vectorstores.qdrant_edge import QdrantEdgeStore

        return QdrantEdgeStore(Path(index_path) / "qdrant", dimension)
