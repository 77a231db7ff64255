"""Where an index keeps its vectors: ``local`` files, or Qdrant (embedded, or a server by URL).

An index always keeps its manifest, documents and chunks in its directory (they are what citations,
highlighting, labels and BM25 read). Its vectors live in one of:

* ``local``: ``vectors-<gen>.npy`` beside the chunks, searched by FAISS (:mod:`ragkit.retrievers.dense`);
* ``qdrant``: a Qdrant collection. Without a URL it is Qdrant's own engine embedded in this process
  (``qdrant-edge-py``, a shard in ``<index>/qdrant``); with ``uri`` it is a Qdrant server or cluster reached
  through ``qdrant-client`` over REST (the API key comes from ``QDRANT_API_KEY`` and is never stored).

The manifest stays the single source of truth. A save upserts the new documents' points *before* it
switches the manifest and deletes the points of documents that left it *after*, so a reader (which maps
point ids back to the chunks of the manifest it read) never meets a chunk it cannot show: points of a
document it does not know are skipped, and the search asks for more until it has ``k`` known ones. Points
a crashed writer left behind are deleted by the next save.

Each adapter is thin and implements :class:`VectorStore`; :func:`open_vector_store` builds one from the
``store`` spec recorded in the manifest.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ragkit.errors import ConfigError, IndexStoreError, ModelMismatchError

log = logging.getLogger(__name__)

STORES = ("local", "qdrant")
#: environment variable holding the Qdrant server's API key (read when connecting, never written)
API_KEY_ENV = "QDRANT_API_KEY"
#: namespace of the point ids: uuid5(chunk id), so re-upserting a chunk replaces its point
_NAMESPACE = uuid.UUID("5f0c6a52-5d0e-4b0a-9a0e-7261676b6974")
_BATCH = 512


def point_id(chunk_id: str) -> str:
    """The Qdrant point id of a chunk (a UUID derived from the chunk id, stable across processes)."""
    return str(uuid.uuid5(_NAMESPACE, chunk_id))


def store_spec(kind: str = "local", uri: str | None = None, collection: str | None = None) -> dict[str, Any]:
    """A validated ``store`` spec for the manifest (``uri``/``collection`` only for ``qdrant``)."""
    if kind not in STORES:
        raise ConfigError(f"store must be one of {', '.join(STORES)}, got {kind!r}")
    if kind == "local":
        if uri or collection:
            raise ConfigError("--uri and --collection apply to --store qdrant only")
        return {"kind": "local"}
    spec: dict[str, Any] = {"kind": "qdrant"}
    if uri:
        if not re.match(r"^https?://[^\s/]+", uri):
            raise ConfigError(f"Qdrant URL must look like http://host:6333, got {uri!r}")
        if "@" in uri.split("//", 1)[1].split("/", 1)[0]:
            raise ConfigError(f"put the Qdrant API key in ${API_KEY_ENV}, not in the URL")
        spec["uri"] = uri.rstrip("/")
    if collection:
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,200}", collection):
            raise ConfigError(
                f"Qdrant collection names use letters, digits, '_', '.', '-': got {collection!r}"
            )
        spec["collection"] = collection
    return spec


def describe_store(spec: dict[str, Any] | None) -> str:
    """One line for the UI and CLI: where the vectors live."""
    spec = spec or {"kind": "local"}
    if spec.get("kind") != "qdrant":
        return "local files (FAISS)"
    if spec.get("uri"):
        return f"Qdrant server {spec['uri']} (collection {spec.get('collection', '?')})"
    return "Qdrant embedded (qdrant-edge)"


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

    def search(self, vector: np.ndarray, k: int, exact: bool, ef: int | None) -> list[tuple[str, float]]:
        """Top-``k`` (point id, cosine) pairs, best first (:func:`point_id` maps chunk ids to point ids:
        no payload is read on the hot path)."""

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The vectors of these chunks, in order (rows of zeros for unknown ids)."""

    def count(self) -> int:
        """How many points the collection holds."""

    def commit(self, optimize: bool = False) -> None:
        """Make the writes durable (and, with ``optimize``, build the ANN index now)."""

    def close(self) -> None:
        """Release files and connections."""


def open_vector_store(spec: dict[str, Any], index_path: Path, dimension: int) -> VectorStore:
    """The adapter for a ``qdrant`` spec (``local`` vectors are handled by the index itself)."""
    if spec.get("kind") != "qdrant":
        raise ConfigError(f"no vector store adapter for {spec.get('kind')!r}")
    if spec.get("uri"):
        collection = spec.get("collection") or default_collection(index_path)
        return QdrantServerStore(spec["uri"], collection, dimension)
    return QdrantEdgeStore(Path(index_path) / "qdrant", dimension)


def default_collection(index_path: Path) -> str:
    """A server collection name from the index directory (``ragkit_<name>``)."""
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(index_path).resolve().name) or "index"
    return f"ragkit_{name}"[:200]


def _payload(doc_id: str, chunk_id: str, text: str) -> dict[str, Any]:
    return {"doc_id": doc_id, "chunk_id": chunk_id, "text": text}


#: an idle process lets go of an embedded shard after this many seconds (``RAGKIT_QDRANT_IDLE``)
EDGE_IDLE_S = float(os.environ.get("RAGKIT_QDRANT_IDLE", "2"))
#: how long to wait for another process to let go of a shard (``RAGKIT_LOCK_TIMEOUT``)
EDGE_WAIT_S = float(os.environ.get("RAGKIT_LOCK_TIMEOUT", "600"))


class _EdgeOwner:
    """This process's one handle on one embedded shard.

    Qdrant Edge is an in-process engine: a second handle on the same files (another process's, or a
    second one in this process) corrupts them, because opening a shard rewrites some of its files. So
    every use goes through one handle per process, held under an exclusive ``flock`` on
    ``<shard>.lock``; the handle (and the lock) is let go after ``EDGE_IDLE_S`` idle seconds, so the app
    and a CLI command take turns: the other waits, says so, and gives up after ``EDGE_WAIT_S``.
    """

    _all: ClassVar[dict[Path, _EdgeOwner]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()
    _reaper: ClassVar[threading.Thread | None] = None

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.RLock()
        self.shard: Any = None
        self.fh: Any = None
        self.last_used = 0.0

    @classmethod
    def of(cls, path: Path) -> _EdgeOwner:
        path = Path(path).resolve()
        with cls._guard:
            owner = cls._all.get(path)
            if owner is None:
                owner = cls._all[path] = cls(path)
            if cls._reaper is None:
                cls._reaper = threading.Thread(target=cls._reap, name="ragkit-qdrant-idle", daemon=True)
                cls._reaper.start()
                atexit.register(cls.release_all)
        return owner

    def _take_lock(self) -> None:
        from ragkit.locks import wait_for_flock

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path.with_name(self.path.name + ".lock"), "a")  # noqa: SIM115 - held open
        try:
            wait_for_flock(
                fh,
                EDGE_WAIT_S,
                f"embedded Qdrant store {self.path} is in use by another process: waiting…",
                f"embedded Qdrant store {self.path} is in use by another process; gave up after "
                f"{EDGE_WAIT_S:g} s (an embedded store serves one process at a time)",
                lambda message: log.warning("%s", message),
            )
        except BaseException:
            fh.close()
            raise
        self.fh = fh

    @contextlib.contextmanager
    def use(self, open_shard: Any) -> Iterator[Any]:
        """The shard, opened (taking the cross-process lock) if this process does not hold it."""
        with self.lock:
            if self.shard is None:
                self._take_lock()
                try:
                    self.shard = open_shard()
                except BaseException:
                    self._drop_lock()
                    raise
            try:
                yield self.shard
            finally:
                self.last_used = time.monotonic()

    def release(self) -> None:
        """Close the handle and let go of the lock (flushed first: nothing written is lost)."""
        with self.lock:
            if self.shard is not None:
                try:
                    self.shard.flush()
                    self.shard.close()
                finally:
                    self.shard = None
                    self._drop_lock()

    def _drop_lock(self) -> None:
        if self.fh is not None:
            import fcntl

            try:
                fcntl.flock(self.fh, fcntl.LOCK_UN)
            finally:
                self.fh.close()
                self.fh = None

    @classmethod
    def _reap(cls) -> None:
        while True:
            time.sleep(min(0.5, EDGE_IDLE_S / 2))
            for owner in list(cls._all.values()):
                if owner.shard is None or time.monotonic() - owner.last_used < EDGE_IDLE_S:
                    continue
                if owner.lock.acquire(blocking=False):  # not in use right now
                    try:
                        if time.monotonic() - owner.last_used >= EDGE_IDLE_S:
                            owner.release()
                    except Exception:
                        log.exception("closing embedded Qdrant store %s", owner.path)
                    finally:
                        owner.lock.release()

    @classmethod
    def release_all(cls) -> None:
        for owner in list(cls._all.values()):
            with contextlib.suppress(Exception):
                owner.release()


class QdrantEdgeStore:
    """Qdrant's engine in this process (``qdrant-edge-py``): one shard directory, dot product on unit
    vectors (= cosine), with its write-ahead log. Access is serialised per shard across threads and
    processes (:class:`_EdgeOwner`); each save is flushed, so what one process saved is what the next one
    opens.
    """

    kind = "qdrant"

    def __init__(self, path: Path, dimension: int) -> None:
        self.path = Path(path)
        self.dimension = dimension
        self._owner = _EdgeOwner.of(self.path)
        self._checked = False  # the shard's dimension was compared with ours

    def _edge(self) -> Any:
        try:
            import qdrant_edge
        except ImportError:  # pragma: no cover - it is in requirements.txt
            raise IndexStoreError(
                "the embedded Qdrant store needs qdrant-edge-py: pip install qdrant-edge-py"
            ) from None
        return qdrant_edge

    def _open(self) -> Any:
        qe = self._edge()
        try:
            if (self.path / "edge_config.json").is_file():
                return qe.EdgeShard.load(str(self.path))
            config = qe.EdgeConfig(
                vectors=qe.EdgeVectorParams(size=self.dimension, distance=qe.Distance.Dot),
                wal_enabled=True,  # a crash mid-write is replayed on the next open (then swept by a save)
            )
            return qe.EdgeShard.create(str(self.path), config)
        except Exception as e:  # the binding raises plain Exception with the engine's message
            raise IndexStoreError(f"embedded Qdrant store {self.path} cannot be opened: {e}") from None

    @contextlib.contextmanager
    def _shard(self) -> Iterator[Any]:
        if not self._checked:  # once per adapter (the process may already hold the shard's handle)
            dim = _edge_dimension(self.path)
            if dim is not None and dim != self.dimension:
                raise ModelMismatchError(
                    f"embedded Qdrant store {self.path} holds {dim}-dimensional vectors, not {self.dimension}"
                )
            self._checked = True
        with self._owner.use(self._open) as shard:
            yield shard

    def upsert(
        self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]
    ) -> None:
        qe = self._edge()
        vectors = np.asarray(vectors, dtype=np.float32)
        with self._shard() as shard:
            for start in range(0, len(chunk_ids), _BATCH):
                points = [
                    qe.Point(
                        id=point_id(cid), vector=vectors[i].tolist(), payload=_payload(doc_id, cid, texts[i])
                    )
                    for i, cid in enumerate(chunk_ids[start : start + _BATCH], start=start)
                ]
                shard.update(qe.UpdateOperation.upsert_points(points))

    def _doc_filter(self, doc_ids: list[str], negate: bool) -> Any:
        qe = self._edge()
        if not doc_ids:
            return qe.Filter(must=[])  # matches every point
        cond = qe.FieldCondition(key="doc_id", match=qe.MatchAny(any=doc_ids))
        return qe.Filter(must_not=[cond]) if negate else qe.Filter(must=[cond])

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        if ids:
            with self._shard() as shard:
                shard.update(
                    self._edge().UpdateOperation.delete_points_by_filter(self._doc_filter(ids, False))
                )

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        with self._shard() as shard:
            shard.update(self._edge().UpdateOperation.delete_points_by_filter(self._doc_filter(ids, True)))

    def search(self, vector: np.ndarray, k: int, exact: bool, ef: int | None) -> list[tuple[str, float]]:
        qe = self._edge()
        request = qe.QueryRequest(
            limit=k,
            query=qe.Query.Nearest(np.asarray(vector, dtype=np.float32).tolist()),
            with_payload=False,
            params=qe.SearchParams(exact=exact, hnsw_ef=None if exact else ef),
        )
        with self._shard() as shard:
            return [(str(p.id), float(p.score)) for p in shard.query(request)]

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(chunk_ids), self.dimension), dtype=np.float32)
        if not chunk_ids:
            return out
        ids = [point_id(c) for c in chunk_ids]
        with self._shard() as shard:
            records = shard.retrieve(ids, with_payload=False, with_vector=True)
        return _rows(out, ids, records)

    def count(self) -> int:
        with self._shard() as shard:
            return int(shard.info().points_count)

    def commit(self, optimize: bool = False) -> None:
        with self._shard() as shard:
            shard.flush()
            if optimize:
                shard.optimize()
                shard.flush()

    def close(self) -> None:
        """Let go of the shard now (other processes may use it), rather than after the idle time."""
        self._owner.release()


def _rows(out: np.ndarray, ids: list[str], records: Iterable[Any]) -> np.ndarray:
    """Fill ``out`` (zeros) with the vectors of retrieved ``records``, in the order of ``ids``."""
    found = {str(r.id): r.vector for r in records}
    for i, pid in enumerate(ids):
        v = found.get(pid)
        if v is not None:
            out[i] = np.asarray(v if not isinstance(v, dict) else v[""], dtype=np.float32)
    return out


def _edge_dimension(path: Path) -> int | None:
    """The dimension a shard was created with, from its ``edge_config.json`` (None if unreadable)."""
    import json

    try:
        config = json.loads((path / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][""]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class QdrantServerStore:
    """A Qdrant server or cluster through ``qdrant-client`` (REST). One collection per index.

    The collection is created on first write (cosine distance; ragkit's vectors are unit-norm, so its
    scores are the same cosines FAISS reports). Connection, authentication and dimension problems are
    :class:`IndexStoreError` messages that name the server, never the key.
    """

    kind = "qdrant"

    def __init__(self, uri: str, collection: str, dimension: int, timeout: float = 30.0) -> None:
        self.uri, self.collection, self.dimension, self.timeout = uri, collection, dimension, timeout
        self._client: Any = None
        self._checked = False

    @property
    def client(self) -> Any:
        if self._client is None:
            try:
                from qdrant_client import QdrantClient
            except ImportError:  # pragma: no cover - it is in requirements.txt
                raise IndexStoreError(
                    "a Qdrant server store needs qdrant-client: pip install qdrant-client"
                ) from None
            self._client = QdrantClient(
                url=self.uri,
                api_key=os.environ.get(API_KEY_ENV) or None,
                prefer_grpc=False,
                timeout=int(self.timeout),
                check_compatibility=False,
            )
        return self._client

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run one client call, translating its failures into messages about the server."""
        try:
            return fn(*args, **kwargs)
        except IndexStoreError:
            raise
        except Exception as e:
            raise IndexStoreError(self._explain(what, e)) from None

    def _explain(self, what: str, e: Exception) -> str:
        where = f"Qdrant server {self.uri}"
        status = getattr(e, "status_code", None)
        text = str(e)
        key = os.environ.get(API_KEY_ENV)
        if key:
            text = text.replace(key, "***")
        if status in (401, 403):
            return (
                f"{where} rejected the credentials while trying to {what} (HTTP {status}): "
                f"set ${API_KEY_ENV} to a valid API key"
            )
        if status is not None:
            reason = getattr(e, "reason_phrase", "") or ""
            content = getattr(e, "content", b"") or b""
            detail = (
                content.decode("utf-8", "replace")[:300] if isinstance(content, bytes) else str(content)[:300]
            )
            if key:
                detail = detail.replace(key, "***")
            return f"{where} answered HTTP {status} {reason} while trying to {what}: {detail}".rstrip(": ")
        low = text.lower()
        if any(
            s in low for s in ("connect", "refused", "timed out", "timeout", "name or service", "resolve")
        ):
            return (
                f"{where} is unreachable ({type(e).__name__}: {text[:200]}): "
                "is it running, and is the URL right?"
            )
        return f"{where}: {what} failed ({type(e).__name__}: {text[:300]})"

    def _ensure(self, create: bool) -> bool:
        """Check (and with ``create``, make) the collection; False if it does not exist yet."""
        if self._checked:
            return True
        exists = self._call("look up the collection", self.client.collection_exists, self.collection)
        if not exists:
            if not create:
                return False
            from qdrant_client import models

            self._call(
                "create the collection",
                self.client.create_collection,
                self.collection,
                vectors_config=models.VectorParams(size=self.dimension, distance=models.Distance.COSINE),
            )
            self._call(
                "index the doc_id payload",
                self.client.create_payload_index,
                self.collection,
                field_name="doc_id",
                field_schema=models.PayloadSchemaType.KEYWORD,
            )
        else:
            info = self._call("read the collection", self.client.get_collection, self.collection)
            size = _server_dimension(info)
            if size is not None and size != self.dimension:
                raise ModelMismatchError(
                    f"Qdrant collection {self.collection!r} on {self.uri} holds {size}-dimensional vectors, "
                    f"not {self.dimension}: use another --collection or the model it was built with"
                )
        self._checked = True
        return True

    def upsert(
        self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]
    ) -> None:
        from qdrant_client import models

        self._ensure(create=True)
        vectors = np.asarray(vectors, dtype=np.float32)
        for start in range(0, len(chunk_ids), _BATCH):
            points = [
                models.PointStruct(
                    id=point_id(cid), vector=vectors[i].tolist(), payload=_payload(doc_id, cid, texts[i])
                )
                for i, cid in enumerate(chunk_ids[start : start + _BATCH], start=start)
            ]
            self._call("upsert points", self.client.upsert, self.collection, points=points, wait=True)

    def _doc_filter(self, doc_ids: list[str], negate: bool) -> Any:
        from qdrant_client import models

        cond = models.FieldCondition(key="doc_id", match=models.MatchAny(any=doc_ids))
        return models.Filter(must_not=[cond]) if negate else models.Filter(must=[cond])

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        from qdrant_client import models

        ids = list(doc_ids)
        if ids and self._ensure(create=False):
            selector = models.FilterSelector(filter=self._doc_filter(ids, False))
            self._call(
                "delete points", self.client.delete, self.collection, points_selector=selector, wait=True
            )

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        from qdrant_client import models

        ids = list(doc_ids)
        if not self._ensure(create=False):
            return
        flt = self._doc_filter(ids, True) if ids else models.Filter(must=[])
        selector = models.FilterSelector(filter=flt)
        self._call(
            "delete stale points", self.client.delete, self.collection, points_selector=selector, wait=True
        )

    def search(self, vector: np.ndarray, k: int, exact: bool, ef: int | None) -> list[tuple[str, float]]:
        from qdrant_client import models

        if not self._ensure(create=False):
            return []
        response = self._call(
            "search",
            self.client.query_points,
            self.collection,
            query=np.asarray(vector, dtype=np.float32).tolist(),
            limit=k,
            with_payload=False,
            search_params=models.SearchParams(exact=exact, hnsw_ef=None if exact else ef),
        )
        return [(str(p.id), float(p.score)) for p in response.points]

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(chunk_ids), self.dimension), dtype=np.float32)
        if not chunk_ids or not self._ensure(create=False):
            return out
        ids = [point_id(c) for c in chunk_ids]
        records = self._call(
            "retrieve points",
            self.client.retrieve,
            self.collection,
            ids=ids,
            with_payload=False,
            with_vectors=True,
        )
        return _rows(out, ids, records)

    def count(self) -> int:
        if not self._ensure(create=False):
            return 0
        return int(self._call("count points", self.client.count, self.collection, exact=True).count)

    def commit(self, optimize: bool = False) -> None:
        """Writes were sent with ``wait=true``; the server builds its HNSW in the background."""

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            finally:
                self._client = None


def _server_dimension(info: Any) -> int | None:
    vectors = getattr(getattr(getattr(info, "config", None), "params", None), "vectors", None)
    if vectors is None:
        return None
    if isinstance(vectors, dict):
        first = vectors.get("") or next(iter(vectors.values()), None)
        return int(first.size) if first is not None else None
    return int(getattr(vectors, "size", 0)) or None
