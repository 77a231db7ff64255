"""Dense retrieval: FAISS inner product over unit vectors, so scores are cosine similarities.

``flat`` is exact (``IndexFlatIP``); ``hnsw`` is approximate (``IndexHNSWFlat``, inner product: the scores
it returns are still exact cosines, only the candidate set may miss some), for collections where an exact
scan per query costs too much; ``auto`` is exact below ``HNSW_FROM`` chunks and HNSW from there (the
recall and latency of both are in BENCHMARKS.md, ``bench/scale.py``).

When the index keeps its vectors in Qdrant (:mod:`ragkit.vectorstores`), the search runs there instead:
exact (``flat``) or Qdrant's HNSW, with the same cosine scores; point ids are mapped back to the chunks of
the manifest this process read, and points it does not know (a concurrent writer's) are skipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.types import Hit
from ragkit.index.store import IndexStore
from ragkit.retrievers.base import Timings, timed

DENSE_INDEXES = ("flat", "hnsw", "auto")
#: ``auto`` switches from the exact scan to HNSW at this many chunks
HNSW_FROM = 200_000


class DenseRetriever:
    """A FAISS index built from the store's vectors on first search (and after the store changes).

    Args:
        index: ``flat`` (exact), ``hnsw`` or ``auto`` (see the module docstring).
        hnsw_m: HNSW graph degree; hnsw_ef_search: candidates per query (raised to ``top_k`` if lower);
        hnsw_ef_construction: candidates while building.
    """

    name = "dense"

    def __init__(
        self,
        store: IndexStore,
        embedder: Any,
        index: str = "flat",
        hnsw_m: int = 32,
        hnsw_ef_search: int = 64,
        hnsw_ef_construction: int = 200,
    ) -> None:
        if index not in DENSE_INDEXES:
            raise ConfigError(f"dense index must be one of {', '.join(DENSE_INDEXES)}, got {index!r}")
        self.index_kind = index
        self.hnsw_m, self.hnsw_ef_search, self.hnsw_ef_construction = (
            hnsw_m,
            hnsw_ef_search,
            hnsw_ef_construction,
        )
        if embedder.model_id != store.model_id:
            from ragkit.core.errors import ModelMismatchError

            raise ModelMismatchError(
                f"index {store.path} was embedded with {store.model_id!r}; the query embedder is "
                f"{embedder.model_id!r}: use --model {store.model_id}"
            )
        self.store = store
        self.embedder = embedder
        self._index = None
        self._generation = -1

    def uses_hnsw(self, n: int | None = None) -> bool:
        """Whether searches go through HNSW (``auto``: from ``HNSW_FROM`` chunks)."""
        n = len(self.store.chunks) if n is None else n
        return self.index_kind == "hnsw" or (self.index_kind == "auto" and n >= HNSW_FROM)

    def _faiss(self):
        if self.store.is_remote:
            return None
        version = (self.store.generation, getattr(self.store, "changes", 0))
        if self._index is None or self._generation != version:
            import faiss

            vectors = np.ascontiguousarray(self.store.vectors, dtype=np.float32)
            if self.uses_hnsw(len(vectors)):
                index = faiss.IndexHNSWFlat(self.store.dimension, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
                index.hnsw.efConstruction = self.hnsw_ef_construction
            else:
                index = faiss.IndexFlatIP(self.store.dimension)
            if len(vectors):
                index.add(vectors)
            self._index, self._generation = index, version
        return self._index

    def warm_up(self) -> None:
        """Load the query model and build the FAISS index now (so no query's latency includes them)."""
        _ = self.embedder.dimension
        if self.store.is_remote:
            self._point_map()
            self.store.backend.count()  # opens the shard / checks the server and collection
        else:
            self._faiss()

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
        if self.store.is_remote:
            with timed(timings, "dense"):
                return self._search_store(q, top_k)
        with timed(timings, "dense"):
            index = self._faiss()
            k = min(top_k, index.ntotal)
            if k == 0:
                return []
            if hasattr(index, "hnsw"):
                index.hnsw.efSearch = max(self.hnsw_ef_search, k)
            scores, rows = index.search(q.reshape(1, -1).astype(np.float32), k)
        chunks = self.store.chunks
        hits = []
        for rank, (row, score) in enumerate(zip(rows[0], scores[0], strict=True), start=1):
            if row < 0:
                continue
            s = float(score)
            hits.append(Hit(chunks[row], rank, s, "dense", {"dense": s}, {"dense": rank}, cosine=s))
        return hits

    def _point_map(self) -> dict[str, Any]:
        """Point id -> chunk for the chunks of the manifest this process read (rebuilt when it changes)."""
        from ragkit.index.vectorstores.base import point_id

        version = (self.store.generation, getattr(self.store, "changes", 0))
        if self._index is None or self._generation != version:
            self._index = {point_id(c.chunk_id): c for c in self.store.chunks}
            self._generation = version
        return self._index

    def _search_store(self, q: np.ndarray, top_k: int) -> list[Hit]:
        """Search the vector store, asking for more while unknown points crowd out known ones."""
        by_id = self._point_map()
        want = min(top_k, len(by_id))
        if want == 0:
            return []
        exact = not self.uses_hnsw(len(by_id))
        ask = want
        while True:
            found = self.store.backend.search(q, ask, exact, max(self.hnsw_ef_search, ask))
            known = [(by_id[pid], s) for pid, s in found if pid in by_id]
            if len(known) >= want or len(found) < ask:
                break
            ask *= 2
        hits = []
        for rank, (chunk, s) in enumerate(known[:want], start=1):
            hits.append(Hit(chunk, rank, s, "dense", {"dense": s}, {"dense": rank}, cosine=s))
        return hits
