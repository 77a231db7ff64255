"""A Qdrant server or cluster through ``qdrant-client`` over REST: one collection per index; errors name the
server, never the key."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.core.optional import require
from ragkit.index.vectorstores.base import _BATCH, API_KEY_ENV, _payload, _rows, point_id
from ragkit.ingestion.netpolicy import policy_client_kwargs, refusal, service_policy


def _models() -> Any:
    """``qdrant_client.models`` (the request types), or the error naming the install."""
    return require("qdrant_client.models", "a Qdrant server store")


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
            qdrant_client = require("qdrant_client", "a Qdrant server store")
            # a visitor's server URL (the app's, not $QDRANT_URL) is reached only through the fetch policy,
            # on every connection, at the addresses it checked: a rebinding host cannot lead inside
            policy = service_policy(self.uri, os.environ.get("QDRANT_URL"))
            extra = {} if policy is None else policy_client_kwargs(policy)
            self._client = qdrant_client.QdrantClient(
                url=self.uri,
                api_key=os.environ.get(API_KEY_ENV) or None,
                prefer_grpc=False,
                timeout=int(self.timeout),
                check_compatibility=False,
                **extra,
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
        if reason := refusal(e):
            return (
                f"{where} refused by the fetch policy while trying to {what}: {reason} (the "
                "administrator's own server: set $QDRANT_URL to it or add its host to $RAGKIT_FETCH_ALLOW)"
            )
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
            models = _models()
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
        models = _models()
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
        models = _models()
        cond = models.FieldCondition(key="doc_id", match=models.MatchAny(any=doc_ids))
        return models.Filter(must_not=[cond]) if negate else models.Filter(must=[cond])

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        models = _models()
        ids = list(doc_ids)
        if ids and self._ensure(create=False):
            selector = models.FilterSelector(filter=self._doc_filter(ids, False))
            self._call(
                "delete points", self.client.delete, self.collection, points_selector=selector, wait=True
            )

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        models = _models()
        ids = list(doc_ids)
        if not self._ensure(create=False):
            return
        flt = self._doc_filter(ids, True) if ids else models.Filter(must=[])
        selector = models.FilterSelector(filter=flt)
        self._call(
            "delete stale points", self.client.delete, self.collection, points_selector=selector, wait=True
        )

    def key_of(self, chunk_id: str) -> str:
        return point_id(chunk_id)

    def search(
        self, vector: np.ndarray, k: int, exact: bool, ef: int | None, m: int = 32
    ) -> list[tuple[str, float]]:
        """Qdrant's own HNSW (its graph degree is the collection's; ``m`` is not used)."""
        models = _models()
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
