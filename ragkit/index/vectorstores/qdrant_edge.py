"""Qdrant's engine embedded in this process (``qdrant-edge-py``): one shard directory per index, one handle
per process, let go after a few idle seconds so the app and a CLI command take turns."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.core.optional import require
from ragkit.index.vectorstores.base import _BATCH, _payload, _rows, point_id

log = logging.getLogger(__name__)


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
        from ragkit.core.files import wait_for_flock

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
        return require("qdrant_edge", "the embedded Qdrant store")

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

    def key_of(self, chunk_id: str) -> str:
        return point_id(chunk_id)

    def search(
        self, vector: np.ndarray, k: int, exact: bool, ef: int | None, m: int = 32
    ) -> list[tuple[str, float]]:
        """Qdrant's own HNSW (its graph degree is the collection's; ``m`` is not used)."""
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


def _edge_dimension(path: Path) -> int | None:
    """The dimension a shard was created with, from its ``edge_config.json`` (None if unreadable)."""
    import json

    try:
        config = json.loads((path / "edge_config.json").read_text(encoding="utf-8"))
        return int(config["vectors"][""]["size"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
