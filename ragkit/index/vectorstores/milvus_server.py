"""A Milvus server or cluster through ``pymilvus`` (gRPC): one collection per index, in the database the
URI names; searches read without waiting, a writer waits until the server has applied its writes, and
errors name the server, never the token."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.core.optional import require
from ragkit.index.vectorstores.base import _BATCH, HNSW_FROM, point_id
from ragkit.ingestion.netpolicy import FetchRefused, service_policy

#: environment variables: the token (``user:password`` or an API key; never written) and the
#: administrator's own server (a visitor's URI must be it or pass the fetch policy)
TOKEN_ENV, URI_ENV = "MILVUS_TOKEN", "MILVUS_URI"
#: the per-call deadline of a write, in seconds (reads: at most 10): pymilvus retries an unavailable
#: server until then, then the call fails
TIMEOUT_ENV = "RAGKIT_MILVUS_TIMEOUT"
#: the graph FAISS builds locally (efConstruction as :data:`ragkit.index.vectorstores.local.EF_CONSTRUCTION`)
HNSW_BUILD = {"M": 32, "efConstruction": 200}
MAX_TOP_K = 16_384  # Milvus refuses a larger limit


class MilvusServerStore:
    """One Milvus collection: a VARCHAR primary key (the point id of the chunk), the document id (deletes
    and sweeps filter on it) and the vector; cosine metric, so its scores are the cosines FAISS reports.

    ``index``: ``auto`` builds FLAT (exact) and switches to HNSW when a save leaves the collection at
    ``HNSW_FROM`` points or more; ``hnsw`` and ``flat`` fix it. The search reads with *Bounded*
    consistency (no wait: a *Strong* read waits for the server's next time tick, ~200 ms per query on
    2.3.5); a writer's :meth:`commit` and :meth:`count` read *Strong*, so what a save wrote is applied
    before its manifest names it and before it is counted.
    """

    kind = "milvus"

    def __init__(
        self, uri: str, collection: str, dimension: int, database: str = "default", index: str = "auto"
    ) -> None:
        self.uri, self.collection, self.dimension = uri, collection, dimension
        self.database, self.index_kind = database, index
        self._client: Any = None
        self._checked = False
        self._dirty = False  # written since the last Strong read
        self._index: str | None = None  # the collection's index type, once read

    @property
    def where(self) -> str:
        db = "" if self.database == "default" else f" database {self.database}"
        return f"Milvus server {self.uri}{db}"

    @property
    def client(self) -> Any:
        if self._client is None:
            pymilvus = require("pymilvus", "a Milvus store")
            for name in ("pymilvus", "pymilvus.milvus_client"):  # its own handlers print tracebacks of
                logging.getLogger(name).setLevel(logging.CRITICAL)  # what _call reports in one line
            target, extra = self._target()

            def connect(db: str) -> Any:
                return self._call(
                    "connect",
                    pymilvus.MilvusClient,
                    uri=target,
                    token=os.environ.get(TOKEN_ENV) or "",
                    db_name=db,
                    dedicated=True,  # a connection of its own: never shared with another database's store
                    grpc_options={"grpc.enable_http_proxy": 0},  # no proxy: it would reach hosts unchecked
                    **extra,
                )

            if self.database != "default":  # the URI's database, made on first use
                admin = connect("")
                try:
                    if self.database not in self._call("list databases", admin.list_databases):
                        self._call("create the database", admin.create_database, self.database)
                finally:
                    admin.close()
            self._client = connect("" if self.database == "default" else self.database)
        return self._client

    def _target(self) -> tuple[str, dict[str, Any]]:
        """The URI to dial: a visitor's (in the app, not ``$MILVUS_URI``) is resolved once through the fetch
        policy and dialled at the checked address, so a host whose DNS changes cannot lead inside (gRPC
        does not go through the policy's HTTP client; TLS still checks the certificate against the name)."""
        policy = service_policy(self.uri, os.environ.get(URI_ENV))
        if policy is None:
            return self.uri, {}
        from urllib.parse import urlsplit

        parts = urlsplit(self.uri)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 19530)
        try:
            infos = policy.resolve(host, port)
        except FetchRefused as e:
            raise IndexStoreError(
                f"{self.where} refused by the fetch policy: {e} (the administrator's own server: set "
                f"${URI_ENV} to it or add its host to $RAGKIT_FETCH_ALLOW)"
            ) from None
        except OSError as e:
            raise IndexStoreError(f"{self.where} cannot be resolved ({e})") from None
        ip = _first_answering([info[4][0] for info in infos], port)
        literal = f"[{ip}]" if ":" in ip else ip
        extra = {"secure": True, "server_name": host} if parts.scheme == "https" else {}
        return f"{parts.scheme}://{literal}:{port}", extra

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run one client call (within a deadline: a read's unless given), translating its failures into
        one line about the server."""
        kwargs.setdefault("timeout", _deadline(read=True))
        try:
            return fn(*args, **kwargs)
        except IndexStoreError:
            raise
        except Exception as e:
            message = self._explain(what, e)
            self.close()  # the next call connects afresh (a restarted server, a new token)
            raise IndexStoreError(message) from None

    def _explain(self, what: str, e: Exception) -> str:
        text = " ".join(str(getattr(e, "message", "") or e).split())
        token = os.environ.get(TOKEN_ENV)
        if token:
            text = text.replace(token, "***")
        low = f"{text} {_grpc_status(e)}".lower()
        code = getattr(e, "code", None)
        if code == 1800 or any(s in low for s in ("auth", "credential", "unauthenticated", "permission")):
            return (
                f"{self.where} rejected the credentials while trying to {what}: set ${TOKEN_ENV} to a "
                f"valid token (user:password or an API key) ({text[:160]})"
            )
        if "loading" in low or "not loaded" in low:
            return (
                f"{self.where} is still loading collection {self.collection} while trying to {what} (a "
                f"restarted server replays its log first): try again in a moment ({text[:160]})"
            )
        if any(s in low for s in ("connect", "unavailable", "timeout", "deadline", "retry", "resolve")):
            return (
                f"{self.where} is unreachable while trying to {what} ({text[:200]}): is it running, and "
                "is the URI right?"
            )
        return f"{self.where}: {what} failed ({type(e).__name__}: {text[:300]})"

    # ------------------------------------------------------------------ the collection

    def _ensure(self, create: bool) -> bool:
        """Check (and with ``create``, make) the collection and its database; False if it does not exist."""
        if self._checked:
            return True
        if not self._call("look up the collection", self.client.has_collection, self.collection):
            if not create:
                return False
            self._create()
        else:
            self._check_dimension()
            state = str(self._call("read the load state", self.client.get_load_state, self.collection))
            if "Loaded" not in state:  # still loading after a restart, or released: wait until it is in
                self._call("load the collection", self.client.load_collection, self.collection,
                           timeout=_deadline())  # fmt: skip
        self._checked = True
        return True

    def _create(self) -> None:
        from pymilvus import DataType, MilvusClient

        schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("id", DataType.VARCHAR, is_primary=True, max_length=64)
        schema.add_field("doc_id", DataType.VARCHAR, max_length=1024)
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=self.dimension)
        params = self.client.prepare_index_params()
        self._index = "HNSW" if self.index_kind == "hnsw" else "FLAT"
        params.add_index(
            field_name="vector",
            index_type=self._index,
            metric_type="COSINE",
            params=HNSW_BUILD if self._index == "HNSW" else {},
        )
        self._call(
            "create the collection",
            self.client.create_collection,
            self.collection,
            schema=schema,
            index_params=params,
            consistency_level="Bounded",
            timeout=_deadline(),
        )

    def _check_dimension(self) -> None:
        info = self._call("read the collection", self.client.describe_collection, self.collection)
        dims = [f.get("params", {}).get("dim") for f in info.get("fields", []) if f.get("name") == "vector"]
        if dims and int(dims[0]) != self.dimension:
            raise ModelMismatchError(
                f"Milvus collection {self.collection!r} on {self.uri} holds {dims[0]}-dimensional vectors, "
                f"not {self.dimension}: use another --collection or the model it was built with"
            )

    def index_type(self) -> str:
        """The collection's vector index (``FLAT`` or ``HNSW``)."""
        if self._index is None and self._ensure(create=False):
            info = self._call("read the index", self.client.describe_index, self.collection, "vector")
            self._index = str((info or {}).get("index_type", "FLAT")).upper()
        return self._index or "FLAT"

    # ------------------------------------------------------------------ writes

    def upsert(
        self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]
    ) -> None:
        """Upsert (never insert: Milvus keeps two rows of one primary key), so a re-run replaces."""
        self._ensure(create=True)
        vectors = np.asarray(vectors, dtype=np.float32)
        for start in range(0, len(chunk_ids), _BATCH):
            rows = [
                {"id": point_id(cid), "doc_id": doc_id, "vector": vectors[i].tolist()}
                for i, cid in enumerate(chunk_ids[start : start + _BATCH], start=start)
            ]
            self._call("upsert points", self.client.upsert, self.collection, rows, timeout=_deadline())
            self._dirty = True

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        if ids and self._ensure(create=False):
            self._delete(f"doc_id in {_strings(ids)}")

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        ids = list(doc_ids)
        if self._ensure(create=False):
            self._delete(f"doc_id not in {_strings(ids)}" if ids else 'id != ""')

    def _delete(self, expr: str) -> None:
        self._wait_applied()  # a delete by expression finds its rows by a query: it must see every write
        self._call("delete points", self.client.delete, self.collection, filter=expr, timeout=_deadline())
        self._dirty = True

    def _wait_applied(self) -> None:
        """A Strong read: returns once the server has applied every write made before it."""
        if self._dirty:
            self._count()
            self._dirty = False

    def commit(self, optimize: bool = False) -> None:
        """Wait until the writes are applied (what the manifest is about to name is searchable); with
        ``optimize`` and ``index=auto``, a collection grown to ``HNSW_FROM`` points moves to HNSW."""
        if not self._ensure(create=False):
            return
        self._wait_applied()
        grown = optimize and self.index_kind == "auto" and self.index_type() == "FLAT"
        if grown and self._count() >= HNSW_FROM:
            self._rebuild("HNSW")

    def _rebuild(self, index_type: str) -> None:
        c = self.client
        self._call("release the collection", c.release_collection, self.collection, timeout=_deadline())
        self._call("drop the index", c.drop_index, self.collection, "vector", timeout=_deadline())
        params = c.prepare_index_params()
        params.add_index(field_name="vector", index_type=index_type, metric_type="COSINE", params=HNSW_BUILD)
        self._call("build the index", c.create_index, self.collection, params, timeout=_deadline())
        self._call("load the collection", c.load_collection, self.collection, timeout=_deadline())
        self._index = index_type

    # ------------------------------------------------------------------ reads

    def key_of(self, chunk_id: str) -> str:
        return point_id(chunk_id)

    def search(
        self, vector: np.ndarray, k: int, exact: bool, ef: int | None, m: int = 32
    ) -> list[tuple[str, float]]:
        """The collection's own index: FLAT is exact; HNSW is searched with ``ef`` candidates whatever
        ``exact`` asks (Milvus searches a field only through its index; ``m`` is the collection's)."""
        if not self._ensure(create=False):
            return []
        k = min(k, MAX_TOP_K)
        params: dict[str, Any] = {"metric_type": "COSINE"}
        if self.index_type() == "HNSW":
            params["params"] = {"ef": min(max(ef or k, k), 32_768)}
        found = self._call(
            "search",
            self.client.search,
            self.collection,
            data=[np.asarray(vector, dtype=np.float32).tolist()],
            limit=k,
            search_params=params,
            consistency_level="Bounded",
        )
        return [(str(hit["id"]), float(hit["distance"])) for hit in (found[0] if found else [])]

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(chunk_ids), self.dimension), dtype=np.float32)
        if not chunk_ids or not self._ensure(create=False):
            return out
        ids = [point_id(c) for c in chunk_ids]
        row = {pid: i for i, pid in enumerate(ids)}
        for start in range(0, len(ids), _BATCH):
            records = self._call(
                "retrieve points",
                self.client.get,
                self.collection,
                ids=ids[start : start + _BATCH],
                output_fields=["vector"],
            )
            for r in records:
                out[row[str(r["id"])]] = np.asarray(r["vector"], dtype=np.float32)
        return out

    def count(self) -> int:
        if not self._ensure(create=False):
            return 0
        return self._count()

    def _count(self) -> int:
        rows = self._call(
            "count points",
            self.client.query,
            self.collection,
            filter="",
            output_fields=["count(*)"],
            consistency_level="Strong",
            timeout=_deadline(),
        )
        return int(rows[0]["count(*)"]) if rows else 0

    def close(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            except Exception:  # closing a connection to a server that is gone is not an error
                pass
            finally:
                self._client = None
                self._checked = False


def _strings(values: list[str]) -> str:
    """A Milvus expression list of string literals (JSON's escapes are the expression language's)."""
    return json.dumps(values, ensure_ascii=True)


def _first_answering(addresses: list[str], port: int) -> str:
    """The first of the checked addresses that accepts a connection (else the first): one address to dial,
    as the policy's HTTP client tries each in turn."""
    import socket

    for ip in addresses:
        with contextlib.suppress(OSError), socket.create_connection((ip, port), timeout=3):
            return ip
    return addresses[0]


def _deadline(read: bool = False) -> float:
    """Seconds a call may take, retries included (``$RAGKIT_MILVUS_TIMEOUT``, default 30; a read: 10 at
    most)."""
    seconds = float(os.environ.get(TIMEOUT_ENV) or 30)
    return min(seconds, 10.0) if read else seconds


def _grpc_status(e: BaseException | None) -> str:
    """The gRPC status under a pymilvus error (its connect error hides whether the server said
    UNAUTHENTICATED or was not there at all)."""
    for _ in range(10):
        if e is None:
            break
        code = getattr(e, "code", None)
        if callable(code):
            with contextlib.suppress(Exception):
                return str(code())
        e = e.__cause__ or e.__context__
    return ""
