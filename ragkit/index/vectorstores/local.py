"""Local vectors: the index's own ``vectors-<gen>.npy``, held in memory and searched with FAISS (exact
``IndexFlatIP`` or ``IndexHNSWFlat``, inner product over unit vectors = cosine).

The index store writes the vectors with each generation of its files (so a save stays atomic); this
adapter is the read side, behind the same :class:`~ragkit.index.vectorstores.base.VectorStore` protocol
as Qdrant, so dense retrieval has one code path whatever holds the vectors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from ragkit.core.errors import IndexStoreError
from ragkit.core.options import Component
from ragkit.index.vectorstores.base import StoreKind

#: HNSW candidates while building the graph (FAISS's efConstruction)
EF_CONSTRUCTION = 200


class LocalFaissStore:
    """The index's in-memory vectors searched by FAISS; ``vectors()`` gives ``(chunk ids, matrix)`` of the
    current state and ``version()`` tells when it changed (the FAISS index is rebuilt then)."""

    kind = "local"

    def __init__(
        self,
        vectors: Callable[[], tuple[Sequence[str], np.ndarray]],
        version: Callable[[], Any],
        dimension: int,
    ) -> None:
        self._vectors, self._version, self.dimension = vectors, version, dimension
        self._faiss: dict[tuple[str, int], tuple[Any, Any]] = {}  # (kind, m) -> (version, index)

    def key_of(self, chunk_id: str) -> str:
        """The id this store returns for a chunk (its chunk id)."""
        return chunk_id

    def index(self, exact: bool, m: int = 32) -> Any:
        """The FAISS index for the current vectors (exact, or HNSW of degree ``m``), built once per
        version of the index."""
        import faiss

        key = ("flat", 0) if exact else ("hnsw", m)
        version = self._version()
        cached = self._faiss.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        _, matrix = self._vectors()
        matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        if exact:
            index = faiss.IndexFlatIP(self.dimension)
        else:
            index = faiss.IndexHNSWFlat(self.dimension, m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = EF_CONSTRUCTION
        if len(matrix):
            index.add(matrix)
        self._faiss = {k: v for k, v in self._faiss.items() if v[0] == version}
        self._faiss[key] = (version, index)
        return index

    def search(
        self, vector: np.ndarray, k: int, exact: bool, ef: int | None, m: int = 32
    ) -> list[tuple[str, float]]:
        index = self.index(exact, m)
        k = min(k, index.ntotal)
        if k == 0:
            return []
        if not exact:
            index.hnsw.efSearch = max(ef or k, k)
        scores, rows = index.search(np.asarray(vector, dtype=np.float32).reshape(1, -1), k)
        ids, _ = self._vectors()
        return [(ids[r], float(s)) for r, s in zip(rows[0], scores[0], strict=True) if r >= 0]

    def fetch(self, chunk_ids: Sequence[str]) -> np.ndarray:
        ids, matrix = self._vectors()
        row = {c: i for i, c in enumerate(ids)}
        out = np.zeros((len(chunk_ids), self.dimension), dtype=np.float32)
        for i, c in enumerate(chunk_ids):
            if c in row:
                out[i] = matrix[row[c]]
        return out

    def count(self) -> int:
        return len(self._vectors()[0])

    # the write side: local vectors are written with the index's own generation files
    def upsert(
        self, doc_id: str, chunk_ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]
    ) -> None:
        raise IndexStoreError("local vectors are written with the index (IndexStore.add and save)")

    def delete_documents(self, doc_ids: Iterable[str]) -> None:
        raise IndexStoreError("local vectors are removed with the index's documents (IndexStore.remove)")

    def retain_only(self, doc_ids: Iterable[str]) -> None:
        """Nothing to sweep: the index's files hold exactly its documents' vectors."""

    def commit(self, optimize: bool = False) -> None:
        """Nothing to do: the index's save writes the vectors file atomically."""

    def close(self) -> None:
        self._faiss.clear()


class LocalKind(StoreKind):
    """Vectors in the index's own files (the default): written with each generation, searched by FAISS;
    the index opens its :class:`LocalFaissStore` itself."""

    component = Component(
        "store", "local", "local files (FAISS)", extras={"choices": {"local files (FAISS)": False}}
    )
