"""Milvus, declared once: a collection on a Milvus server or cluster by URI (``pymilvus`` over gRPC)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.index.vectorstores.base import HNSW_FROM, StoreKind, VectorStore, check_url
from ragkit.index.vectorstores.milvus_server import TOKEN_ENV, URI_ENV, MilvusServerStore

#: database and collection names
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")


def _uri(owner: str, value: Any) -> str | None:
    if value is None:
        return None
    uri = check_url("Milvus", str(value), "http://host:19530", TOKEN_ENV)
    db = uri.split("//", 1)[1].partition("/")[2]
    if db and not NAME.fullmatch(db.strip("/")):
        raise ConfigError(f"Milvus database names use letters, digits and '_': got {db!r} in {uri!r}")
    return uri


def _collection(owner: str, value: Any) -> str | None:
    if value is not None and not NAME.fullmatch(str(value)):
        raise ConfigError(
            f"Milvus collection names start with a letter or '_' and use letters, digits, '_': got {value!r}"
        )
    return value


class MilvusKind(StoreKind):
    """A collection on a Milvus server or cluster (the URI's path names the database, default
    ``default``); one per (index, embedding model)."""

    component = Component(
        "store",
        "milvus",
        "Milvus: a server or cluster by URI",
        options=(
            Option("uri", "str?", None, validate=_uri, label="Milvus server URI", service_env=URI_ENV,
                   placeholder="http://localhost:19530",
                   help="a Milvus server or cluster (gRPC), e.g. http://localhost:19530 or "
                   "http://milvus:19530/lab for the database 'lab'"),
            Option("collection", "str?", None, validate=_collection,
                   help="the server collection (default ragkit_<index>_<model>_<hash>)"),
            Option("index", "choice", "auto", choices=("auto", "hnsw", "flat"), flag="--milvus-index",
                   help=f"the collection's vector index: auto (FLAT, HNSW from {HNSW_FROM:,} points), "
                   "hnsw or flat"),
        ),
        key_env=TOKEN_ENV,
        extras={"choices": {"Milvus server (URI)": True}},
    )  # fmt: skip

    @classmethod
    def check(cls, spec: dict[str, Any]) -> dict[str, Any]:
        if not spec.get("uri"):
            raise ConfigError("a Milvus store needs the server's URI (--uri http://host:19530)")
        base, _, db = spec["uri"].split("//", 1)[1].partition("/")
        if db.strip("/"):  # http://host:19530/lab: the database 'lab'
            spec = {**spec, "uri": f"{spec['uri'].split('//', 1)[0]}//{base}", "database": db.strip("/")}
        return spec

    @classmethod
    def describe(cls, spec: dict[str, Any]) -> str:
        where = [f"collection {spec['collection']}"] if spec.get("collection") else []
        where += [f"database {spec['database']}"] if spec.get("database") else []
        return f"Milvus server {spec.get('uri')}" + (f" ({', '.join(where)})" if where else "")

    @classmethod
    def named(
        cls, spec: dict[str, Any], index_path: Path, model_id: str, prefix: str | None = None
    ) -> dict[str, Any]:
        """``<prefix or ragkit_<index>>_<model>`` and a hash of the index's path: two indexes of one name
        (or one collection's indexes on two app servers) never share a server collection."""
        if spec.get("collection") and prefix is None:
            return spec
        base = (
            f"{spec.get('collection') or prefix}_{index_path.name}"
            if prefix is not None
            else (f"ragkit_{Path(index_path).resolve().name}_{model_id.rsplit('/', 1)[-1]}")
        )
        digest = hashlib.sha256(str(Path(index_path).resolve()).encode()).hexdigest()[:8]
        return {**spec, "collection": f"{re.sub(r'[^A-Za-z0-9_]+', '_', base)[:200]}_{digest}"}

    @classmethod
    def open(cls, spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
        return MilvusServerStore(
            spec["uri"], spec["collection"], dimension, spec.get("database", "default"),
            spec.get("index", "auto"),
        )  # fmt: skip
