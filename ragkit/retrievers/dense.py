"""Dense retrieval: the query's embedding against the index's vectors; scores are cosine similarities.

The search runs in whatever holds the vectors, through one protocol (:mod:`ragkit.index.vectorstores`):
local files searched by FAISS, or Qdrant (embedded or a server). ``flat`` is exact; ``hnsw`` is
approximate (the scores are still exact cosines, only the candidate set may miss some), for collections
where an exact scan per query costs too much; ``auto`` is exact below ``HNSW_FROM`` chunks and HNSW from
there (the recall and latency of both are in BENCHMARKS.md, ``bench/scale.py``). Ids come back mapped to
the chunks of the manifest this process read; ids it does not know (a concurrent writer's points) are
skipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.core.types import Hit
from ragkit.index.embedders import LEGACY_BACKEND, check_backend
from ragkit.index.store import IndexStore
from ragkit.index.vectorstores.base import HNSW_FROM
from ragkit.retrievers.base import Timings, timed

DENSE_INDEXES = ("flat", "hnsw", "auto")


class DenseRetriever:
    """A FAISS index built from the store's vectors on first search (and after the store changes).

    Args:
        index: ``flat`` (exact), ``hnsw`` or ``auto`` (see the module docstring).
        hnsw_m: HNSW graph degree (local FAISS); hnsw_ef_search: candidates per query (raised to
            ``top_k`` if lower).
    """

    component = Component(
        "retriever",
        "dense",
        "cosine similarity of embeddings: FAISS (exact or HNSW) or Qdrant",
        options=(
            Option("index", "choice", "flat", choices=DENSE_INDEXES, field="dense_index", added_later=True,
                   advanced=True, label="Dense search",
                   help=f"dense search: flat (exact), hnsw (approximate, much faster on big collections), "
                   f"auto (HNSW from {HNSW_FROM:,} chunks)"),
            Option("hnsw_m", "int", 32, 4, 256, field="hnsw_m", added_later=True, widget="none",
                   help="HNSW graph degree"),
            Option("hnsw_ef_search", "int", 64, 1, 10_000, field="hnsw_ef_search", added_later=True,
                   widget="none", help="HNSW candidates per query"),
        ),
    )  # fmt: skip
    name = "dense"

    def __init__(
        self,
        store: IndexStore,
        embedder: Any,
        index: str = component.default("index"),
        hnsw_m: int = component.default("hnsw_m"),
        hnsw_ef_search: int = component.default("hnsw_ef_search"),
    ) -> None:
        if index not in DENSE_INDEXES:
            raise ConfigError(f"dense index must be one of {', '.join(DENSE_INDEXES)}, got {index!r}")
        self.index_kind = index
        self.settings = {"index": index, "hnsw_m": hnsw_m, "hnsw_ef_search": hnsw_ef_search}
        self.hnsw_m, self.hnsw_ef_search = hnsw_m, hnsw_ef_search
        if embedder.model_id != store.model_id:
            from ragkit.core.errors import ModelMismatchError

            raise ModelMismatchError(
                f"index {store.path} was embedded with {store.model_id!r}; the query embedder is "
                f"{embedder.model_id!r}: use --model {store.model_id}"
            )
        if getattr(store, "dimension", 0):  # a text-only index has no vectors to mix with
            check_backend(store.path, getattr(store, "embedding_backend", LEGACY_BACKEND), embedder)
        self.store = store
        self.embedder = embedder
        self._keys: dict[str, Any] | None = None
        self._generation: tuple[int, int] | int = -1

    def uses_hnsw(self, n: int | None = None) -> bool:
        """Whether searches go through HNSW (``auto``: from ``HNSW_FROM`` chunks)."""
        n = len(self.store.chunks) if n is None else n
        return self.index_kind == "hnsw" or (self.index_kind == "auto" and n >= HNSW_FROM)

    def _by_key(self) -> dict[str, Any]:
        """The store's id of each chunk -> the chunk, for the chunks of the manifest this process read
        (rebuilt when they change)."""
        version = (self.store.generation, getattr(self.store, "changes", 0))
        if self._keys is None or self._generation != version:
            key_of = self.store.vector_store.key_of
            self._keys = {key_of(c.chunk_id): c for c in self.store.chunks}
            self._generation = version
        return self._keys

    def warm_up(self) -> None:
        """Load the query model and build the search structure now (FAISS; or open the Qdrant shard and
        check the server's collection), so no query's latency includes them."""
        _ = self.embedder.dimension
        by_key = self._by_key()
        vs = self.store.vector_store
        if self.store.holds_vectors:
            vs.index(not self.uses_hnsw(len(by_key)), self.hnsw_m)  # type: ignore[attr-defined]
        else:
            vs.count()

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]:
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}")
        with timed(timings, "embed_query"):
            q = self.embedder.embed_query(query)
        if q.shape[0] != self.store.dimension:
            from ragkit.core.errors import ModelMismatchError

            raise ModelMismatchError(
                f"query vectors have dimension {q.shape[0]} but index {self.store.path} holds "
                f"{self.store.dimension}-dimensional vectors"
            )
        with timed(timings, "dense"):
            found = self._search_store(q, top_k)
        return [
            Hit(chunk, rank, s, "dense", {"dense": s}, {"dense": rank}, cosine=s)
            for rank, (chunk, s) in enumerate(found, start=1)
        ]

    def _search_store(self, q: np.ndarray, top_k: int) -> list[tuple[Any, float]]:
        """The vector store's top ``top_k`` as chunks, asking for more while ids this process does not
        know (a concurrent writer's points, in Qdrant) crowd out known ones."""
        by_key = self._by_key()
        want = min(top_k, len(by_key))
        if want == 0:
            return []
        exact = not self.uses_hnsw(len(by_key))
        ask = want
        while True:
            found = self.store.vector_store.search(q, ask, exact, max(self.hnsw_ef_search, ask), self.hnsw_m)
            known = [(by_key[key], s) for key, s in found if key in by_key]
            if len(known) >= want or len(found) < ask:
                return known[:want]
            ask *= 2
