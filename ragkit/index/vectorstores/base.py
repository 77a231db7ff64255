"""Where an index keeps its vectors: ``local`` files, Qdrant (embedded, or a server by URL), or a Milvus
server or cluster by URI.

An index always keeps its manifest, documents and chunks in its directory (they are what citations,
highlighting, labels and BM25 read). Its vectors live in one of:

* ``local``: ``vectors-<gen>.npy`` beside the chunks, searched by FAISS (:mod:`ragkit.retrievers.dense`);
* ``qdrant``: a Qdrant collection. Without a URL it is Qdrant's own engine embedded in this process
  (``qdrant-edge-py``, a shard in ``<index>/qdrant``); with ``uri`` it is a Qdrant server or cluster reached
  through ``qdrant-client`` over REST (the API key comes from ``QDRANT_API_KEY`` and is never stored);
* ``milvus``: a Milvus collection on a server or cluster, through ``pymilvus`` over gRPC (the token comes
  from ``MILVUS_TOKEN`` and is never stored).

The manifest stays the single source of truth. A save upserts the new documents' points *before* it
switches the manifest and deletes the points of documents that left it *after*, so a reader (which maps
point ids back to the chunks of the manifest it read) never meets a chunk it cannot show: points of a
document it does not know are skipped, and the search asks for more until it has ``k`` known ones. Points
a crashed writer left behind are deleted by the next save.

Each adapter is thin and implements :class:`VectorStore`; each kind of store is declared once
(:class:`StoreKind`), and :func:`~ragkit.index.vectorstores.open_vector_store` builds the adapter from the
``store`` spec recorded in the manifest."""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component

log = logging.getLogger(__name__)


#: environment variable holding the Qdrant server's API key (read when connecting, never written)
API_KEY_ENV = "QDRANT_API_KEY"


#: namespace of the point ids: uuid5(chunk id), so re-upserting a chunk replaces its point
_NAMESPACE = uuid.UUID("5f0c6a52-5d0e-4b0a-9a0e-7261676b6974")


_BATCH = 512
#: approximate search (HNSW) pays from this many vectors on: ``auto`` switches to it here, and a Qdrant
#: store builds its graph at once when a save leaves it this large
HNSW_FROM = 200_000


def point_id(chunk_id: str) -> str:
    """The point id of a chunk in a server store (a UUID derived from the chunk id, stable across
    processes)."""
    return str(uuid.uuid5(_NAMESPACE, chunk_id))


def check_url(owner: str, uri: str, example: str, key_env: str) -> str:
    """``uri`` without its trailing slash, if it is an ``http(s)://host[:port]`` URL with no credentials in
    it (a key belongs in ``key_env``), else a ``ConfigError``."""
    if not re.match(r"^https?://[^\s/]+", uri):
        raise ConfigError(f"{owner} URL must look like {example}, got {uri!r}")
    if "@" in uri.split("//", 1)[1].split("/", 1)[0]:
        raise ConfigError(f"put the {owner} API key in ${key_env}, not in the URL")
    return uri.rstrip("/")


class StoreKind:
    """A kind of vector store, declared once (:attr:`component`: its name, options and key variable): the
    CLI's ``--store`` flags, the sidebar's "Vectors in" choices and :func:`store_spec` read it.

    ``component.extras["choices"]`` maps each sidebar label to whether that choice takes a server URL.
    """

    component: ClassVar[Component]

    @classmethod
    def check(cls, spec: dict[str, Any]) -> dict[str, Any]:
        """The spec, checked beyond each option's own check (e.g. a URL the store cannot do without)."""
        return spec

    @classmethod
    def describe(cls, spec: dict[str, Any]) -> str:
        """One line: where the vectors live."""
        return cls.component.summary

    @classmethod
    def named(
        cls, spec: dict[str, Any], index_path: Path, model_id: str, prefix: str | None = None
    ) -> dict[str, Any]:
        """The spec of one index, its server collection named when the spec does not name it (``prefix``:
        a collection of the app, whose indexes each get one)."""
        return spec

    @classmethod
    def open(cls, spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
        """The adapter for an index's vectors."""
        raise ConfigError(f"no vector store adapter for {cls.component.name!r}")


@runtime_checkable
class VectorStore(Protocol):
    """The vector side of an index: points keyed by chunk id, tagged with their document."""

    kind: str

    def upsert(
        self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]
    ) -> None:
        """Insert or replace the points of one document's chunks."""

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        """Delete every point of these documents."""

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        """Delete every point whose document is not in ``doc_ids`` (left by a removed or crashed write)."""

    def key_of(self, chunk_id: str) -> str:
        """The id :meth:`search` returns for a chunk (a Qdrant point id, or the chunk id)."""

    def search(
        self, vector: np.ndarray, k: int, exact: bool, ef: int | None, m: int = 32
    ) -> list[tuple[str, float]]:
        """Top-``k`` (id, cosine) pairs, best first: exact or approximate (HNSW, ``ef`` candidates, degree
        ``m`` where the store builds its graph per search settings). No payload is read on the hot
        path."""

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The vectors of these chunks, in order (rows of zeros for unknown ids)."""

    def count(self) -> int:
        """How many points the collection holds."""

    def commit(self, optimize: bool = False) -> None:
        """Make the writes durable (and, with ``optimize``, build the ANN index now)."""

    def close(self) -> None:
        """Release files and connections."""


def _payload(doc_id: str, chunk_id: str, text: str) -> dict[str, Any]:
    return {"doc_id": doc_id, "chunk_id": chunk_id, "text": text}


def _rows(out: np.ndarray, ids: list[str], records: Iterable[Any]) -> np.ndarray:
    """Fill ``out`` (zeros) with the vectors of retrieved ``records``, in the order of ``ids``."""
    found = {str(r.id): r.vector for r in records}
    for i, pid in enumerate(ids):
        v = found.get(pid)
        if v is not None:
            out[i] = np.asarray(v if not isinstance(v, dict) else v[""], dtype=np.float32)
    return out
