"""Dense retrieval: exact FAISS inner product over unit vectors, so scores are cosine similarities."""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.errors import ConfigError
from ragkit.retrievers.base import Timings, timed
from ragkit.store import IndexStore
from ragkit.types import Hit


class DenseRetriever:
    """FAISS ``IndexFlatIP`` (exact) built from the store's vectors on first search."""

    name = "dense"

    def __init__(self, store: IndexStore, embedder: Any) -> None:
        if embedder.model_id != store.model_id:
            from ragkit.errors import ModelMismatchError

            raise ModelMismatchError(
                f"index {store.path} was embedded with {store.model_id!r}; the query embedder is "
                f"{embedder.model_id!r}: use --model {store.model_id}"
            )
        self.store = store
        self.embedder = embedder
        self._index = None
        self._generation = -1

    def _faiss(self):
        if self._index is None or self._generation != self.store.generation:
            import faiss

            vectors = np.ascontiguousarray(self.store.vectors, dtype=np.float32)
            index = faiss.IndexFlatIP(self.store.dimension)
            if len(vectors):
                index.add(vectors)
            self._index, self._generation = index, self.store.generation
        return self._index

    def warm_up(self) -> None:
        """Load the query model and build the FAISS index now (so no query's latency includes them)."""
        _ = self.embedder.dimension
        self._faiss()

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]:
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}")
        with timed(timings, "embed_query"):
            q = self.embedder.embed_query(query)
        if q.shape[0] != self.store.dimension:
            from ragkit.errors import ModelMismatchError

            raise ModelMismatchError(
                f"query vectors have dimension {q.shape[0]} but index {self.store.path} holds "
                f"{self.store.dimension}-dimensional vectors"
            )
        with timed(timings, "dense"):
            index = self._faiss()
            k = min(top_k, index.ntotal)
            if k == 0:
                return []
            scores, rows = index.search(q.reshape(1, -1).astype(np.float32), k)
        chunks = self.store.chunks
        hits = []
        for rank, (row, score) in enumerate(zip(rows[0], scores[0], strict=True), start=1):
            if row < 0:
                continue
            s = float(score)
            hits.append(Hit(chunks[row], rank, s, "dense", {"dense": s}, {"dense": rank}, cosine=s))
        return hits
