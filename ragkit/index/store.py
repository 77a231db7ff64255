"""On-disk index: manifest, parsed documents, chunks and vectors, written atomically.

Layout of an index directory::

    manifest.json            schema/ragkit version, model id, dimension and backend, chunker spec,
                             documents, and the generation whose data files are current
    documents-<gen>.jsonl    parsed pages per document (lets us re-chunk and highlight without re-parsing)
    chunks-<gen>.jsonl       one chunk per line, row i <-> vectors row i
    vectors-<gen>.npy        float32 (n_chunks, dim), unit-norm rows (``local`` store only)
    qdrant/                  the embedded Qdrant shard of a ``qdrant`` store without a URL

Where the vectors live is the manifest's ``store`` (:mod:`ragkit.index.vectorstores`): ``local`` files, a
Qdrant collection (embedded, or a server by URL) or a Milvus collection. Elsewhere than local files, a save
upserts new documents' points before switching the manifest and deletes the points of documents that left
it after, so the manifest stays the single source of truth.

A save writes new ``<gen+1>`` files (temp file + rename each), then atomically replaces
``manifest.json``; only then are generations older than the *previous* one deleted. A crash at any
point leaves the previous manifest pointing at complete files, so the index always opens; and a reader
that read the previous manifest an instant before the switch still finds its files (a reader that is
slower than two whole saves retries the open once more).

Writers serialise on an exclusive lock (``.lock``, ``flock``). A write must be based on the state it
replaces: :meth:`IndexStore.lock` waits for the other writer (telling the caller it waits, up to a
timeout) and :meth:`IndexStore.reload` then re-reads what that writer saved, so two processes that ingest
into one index at once both keep their documents."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ragkit import __version__
from ragkit.core.errors import IndexStoreError, ModelMismatchError
from ragkit.core.files import atomic_write, file_lock
from ragkit.core.types import Chunk, Document
from ragkit.index.manifest import (
    MANIFEST,
    SCHEMA_VERSION,
    _manifest_generation,
    _now,
    _Vanished,
    read_generation,
    read_manifest,
    remove_stale,
)
from ragkit.index.vectorstores import (
    HNSW_FROM,
    LocalFaissStore,
    VectorStore,
    describe_store,
    index_spec,
    open_vector_store,
    store_spec,
)

log = logging.getLogger(__name__)


class IndexStore:
    """A persistent, incrementally updated chunk + vector index (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        model_id: str,
        dimension: int,
        chunker: dict[str, Any],
        embedding_dtype: str = "float32",
        store: dict[str, Any] | None = None,
        embedding_backend: str = "torch",  # an index from before backends were recorded was torch
    ) -> None:
        self.path = Path(path)
        self.store = index_spec(store or store_spec(), self.path, model_id)  # a server collection named
        self._vectors_adapter: VectorStore | None = None
        self._pending: set[str] = set()  # doc_ids added since the last save (their points are not written)
        self.model_id, self.dimension, self.chunker = model_id, dimension, chunker
        self.embedding_dtype, self.embedding_backend = embedding_dtype, embedding_backend
        self.created_at = _now()
        self.updated_at = self.created_at
        self.generation = 0
        self.changes = 0  # adds and removes since the last open/save (in-memory, not yet a generation)
        self.documents: dict[str, Document] = {}  # doc_id -> parsed document
        self.doc_info: dict[str, dict[str, Any]] = {}  # doc_id -> manifest entry
        self._chunks: dict[str, list[Chunk]] = {}  # doc_id -> its chunks, in order
        self._vectors: dict[str, np.ndarray] = {}  # doc_id -> (n, dim)
        self._flat: tuple[list[Chunk], np.ndarray] | None = None
        self._ids: list[str] | None = None

    # ------------------------------------------------------------------ opening

    @classmethod
    def exists(cls, path: str | os.PathLike[str]) -> bool:
        return (Path(path) / MANIFEST).is_file()

    @classmethod
    def read_manifest(cls, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The manifest alone (cheap: no chunks or vectors are read)."""
        return read_manifest(path)

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], model_id: str | None = None, dimension: int | None = None
    ) -> IndexStore:
        """Load an index; with ``model_id``/``dimension``, refuse one built with another model.

        A data file that vanished between reading the manifest and the file (two saves by another
        process in that instant) is not damage: the manifest is read again, up to three times.
        """
        for attempt in range(3):
            try:
                return cls._open_once(Path(path), model_id, dimension)
            except _Vanished:
                if attempt == 2:
                    raise IndexStoreError(
                        f"index {path} kept changing while it was opened (another process is saving it "
                        "repeatedly); try again"
                    ) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def _open_once(cls, path: Path, model_id: str | None, dimension: int | None) -> IndexStore:
        m = cls.read_manifest(path)
        emb = m["embedding"]
        if model_id is not None and model_id != emb["model"]:
            raise ModelMismatchError(
                f"index {path} was built with embedding model {emb['model']!r} "
                f"(dimension {emb['dimension']}), not {model_id!r}: query it with "
                f"--model {emb['model']} or ingest into a new index directory"
            )
        if dimension is not None and dimension != emb["dimension"]:
            raise ModelMismatchError(
                f"index {path} holds {emb['dimension']}-dimensional vectors but the embedder "
                f"produces {dimension}: use the model the index was built with ({emb['model']})"
            )
        store = cls(path, emb["model"], emb["dimension"], m["chunker"], emb.get("dtype", "float32"),
                    m.get("store"), emb.get("backend", "torch"))  # fmt: skip
        store.created_at = m.get("created_at", store.created_at)
        store.updated_at = m.get("updated_at", store.updated_at)
        store.generation = m["generation"]
        docs, chunks, vectors = read_generation(path, m)
        infos = {d["doc_id"]: d for d in m["documents"]}
        store.documents = {d.doc_id: d for d in docs}
        store.doc_info = {d.doc_id: infos[d.doc_id] for d in docs if d.doc_id in infos}
        row = 0
        for doc in docs:
            n = store.doc_info[doc.doc_id]["chunks"]
            store._chunks[doc.doc_id] = chunks[row : row + n]
            store._vectors[doc.doc_id] = vectors[row : row + n]
            row += n
        if row != len(chunks):
            raise IndexStoreError(f"index {path} is damaged: document chunk counts do not add up")
        return store

    # ------------------------------------------------------------------ reading

    @property
    def chunks(self) -> list[Chunk]:
        return self._flatten()[0]

    @property
    def vectors(self) -> np.ndarray:
        """All vectors in chunk order (``local`` store; a Qdrant store keeps them in Qdrant: use
        :meth:`vectors_at` or search through :attr:`vector_store`)."""
        if not self.holds_vectors:
            raise IndexStoreError(
                f"index {self.path} keeps its vectors in {self.store_description}: they are not loaded"
            )
        return self._flatten()[1]

    @property
    def holds_vectors(self) -> bool:
        """Whether this process holds the vectors in memory (the ``local`` store, whose vectors are files
        of this index) rather than asking Qdrant (embedded or a server) for them."""
        return self.store.get("kind") == "local"

    @property
    def store_description(self) -> str:
        return describe_store(self.store)

    @property
    def vector_store(self) -> VectorStore:
        """The vectors behind the one protocol dense search uses: local files searched by FAISS, or a
        Qdrant adapter (opened on first use)."""
        if self._vectors_adapter is None:
            if self.holds_vectors:
                self._vectors_adapter = LocalFaissStore(self._vector_rows, self._version, self.dimension)
            else:
                self._vectors_adapter = open_vector_store(self.store, self.path, self.dimension)
        return self._vectors_adapter

    def _vector_rows(self) -> tuple[list[str], np.ndarray]:
        ids = self._ids
        if ids is None or len(ids) != len(self.chunks):
            ids = self._ids = [c.chunk_id for c in self.chunks]
        return ids, self.vectors

    def _version(self) -> tuple[int, int]:
        """Changes when the chunks do: a new generation, or adds and removes in memory."""
        return (self.generation, self.changes)

    def close(self) -> None:
        """Release the vector store (files, connections); the index can be used again afterwards."""
        if self._vectors_adapter is not None:
            self._vectors_adapter.close()
            self._vectors_adapter = None

    def vectors_at(self, rows: list[int]) -> np.ndarray:
        """The vectors of these chunk rows (from the vector store when they live there)."""
        if self.holds_vectors:
            return self.vectors[rows]
        chunks = self.chunks
        return self.vector_store.fetch([chunks[r].chunk_id for r in rows])

    def _flatten(self) -> tuple[list[Chunk], np.ndarray]:
        if self._flat is None:
            chunks = [c for d in self.documents for c in self._chunks[d]]
            parts = [self._vectors[d] for d in self.documents if len(self._vectors[d])]
            vecs = (
                np.concatenate(parts).astype(np.float32, copy=False)
                if parts and self.holds_vectors
                else np.zeros((0, self.dimension), dtype=np.float32)
            )
            self._flat = (chunks, vecs)
            self._ids = None
        return self._flat

    def find_source(self, source: str) -> str | None:
        """doc_id of the document ingested under file name ``source``, if any."""
        for doc_id, doc in self.documents.items():
            if doc.source == source:
                return doc_id
        return None

    def __len__(self) -> int:
        return len(self.chunks)

    def summary(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "documents": len(self.documents),
            "chunks": len(self.chunks),
            "model": self.model_id,
            "dimension": self.dimension,
            "embedding_dtype": self.embedding_dtype,
            "embedding_backend": self.embedding_backend,
            "store": self.store_description,
            "chunker": self.chunker,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
        }

    # ------------------------------------------------------------------ writing

    def add(self, document: Document, chunks: list[Chunk], vectors: np.ndarray, info: dict[str, Any]) -> None:
        """Add (or replace, if its file name is already indexed) one document with its chunks."""
        if vectors.shape != (len(chunks), self.dimension):
            raise IndexStoreError(
                f"{document.source}: {len(chunks)} chunks but vectors of shape {vectors.shape} "
                f"(index dimension {self.dimension})"
            )
        old = self.find_source(document.source)
        if old is not None:
            self.remove(old)
        self.documents[document.doc_id] = document
        self._chunks[document.doc_id] = list(chunks)
        self._vectors[document.doc_id] = np.asarray(vectors, dtype=np.float32)
        self._pending.add(document.doc_id)
        self.doc_info[document.doc_id] = {
            "doc_id": document.doc_id,
            "source": document.source,
            "sha256": document.sha256,
            "kind": document.kind,
            "pages": len(document.pages),
            "chunks": len(chunks),
            "ingested_at": _now(),
            **info,
        }
        self._flat = None
        self.changes += 1

    def remove(self, doc_id_or_source: str) -> bool:
        """Drop a document by id or file name; returns whether it was there."""
        doc_id = (
            doc_id_or_source if doc_id_or_source in self.documents else self.find_source(doc_id_or_source)
        )
        if doc_id is None:
            return False
        for table in (self.documents, self.doc_info, self._chunks, self._vectors):
            table.pop(doc_id, None)
        self._pending.discard(doc_id)
        self._flat = None
        self.changes += 1
        return True

    @contextlib.contextmanager
    def lock(
        self, timeout: float | None = None, on_wait: Callable[[str], None] | None = None
    ) -> Iterator[None]:
        """Hold the index's writer lock (one writer at a time), waiting up to ``timeout`` seconds for
        another writer; call :meth:`reload` inside it before changing anything."""
        with file_lock(self.path / ".lock", f"index {self.path}", timeout, on_wait):
            yield

    def reload(self) -> None:
        """Re-read the index from disk if another process saved a newer generation since it was read
        (call it holding :meth:`lock`, so the write is based on the latest state)."""
        if not IndexStore.exists(self.path):
            return
        if _manifest_generation(self.path) == self.generation:
            return
        fresh = IndexStore.open(self.path)
        theirs = (fresh.model_id, fresh.dimension, fresh.embedding_backend)
        if theirs != (self.model_id, self.dimension, self.embedding_backend):
            raise ModelMismatchError(f"index {self.path} was rebuilt with {theirs[::2]} by another process")
        if fresh.store != self.store:
            raise IndexStoreError(
                f"index {self.path} was moved to {fresh.store_description} by another process"
            )
        for attr in ("chunker", "embedding_dtype", "created_at", "updated_at", "generation", "documents",
                     "doc_info", "_chunks", "_vectors"):  # fmt: skip
            setattr(self, attr, getattr(fresh, attr))
        self._pending.clear()
        self._flat = None
        self.changes = 0

    def save(self) -> None:
        """Write a new generation of data files, then switch the manifest to it atomically."""
        self.path.mkdir(parents=True, exist_ok=True)
        gen = self.generation + 1
        files = {
            "documents": f"documents-{gen:06d}.jsonl",
            "chunks": f"chunks-{gen:06d}.jsonl",
        }
        if self.holds_vectors:
            files["vectors"] = f"vectors-{gen:06d}.npy"
        chunks, vectors = self._flatten()
        docs = list(self.documents.values())
        if not self.holds_vectors:
            self._write_points()
        atomic_write(
            self.path / files["documents"],
            lambda f: f.writelines(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in docs),
        )
        atomic_write(
            self.path / files["chunks"],
            lambda f: f.writelines(json.dumps(c.to_dict(), ensure_ascii=False) + "\n" for c in chunks),
        )
        if self.holds_vectors:
            atomic_write(self.path / files["vectors"], lambda f: np.save(f, vectors), mode="wb")
        self.updated_at = _now()
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "ragkit_version": __version__,
            "generation": gen,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "embedding": {
                "model": self.model_id,
                "dimension": self.dimension,
                "dtype": self.embedding_dtype,
                "backend": self.embedding_backend,
            },
            "chunker": self.chunker,
            "store": self.store,
            "documents": [self.doc_info[d.doc_id] for d in docs],
            "counts": {"documents": len(docs), "chunks": len(chunks)},
            "files": files,
        }
        atomic_write(self.path / MANIFEST, lambda f: json.dump(manifest, f, indent=2))
        self.generation = gen
        self.changes = 0
        if not self.holds_vectors:
            # after the switch: points of documents no longer in the manifest (removed, replaced, or
            # left by a writer that crashed before its switch) are deleted
            self.vector_store.retain_only(self.documents)
            self.vector_store.commit()
        remove_stale(self.path, files, self.generation)

    def _write_points(self) -> None:
        """Upsert the points of documents added since the last save (before the manifest switch), then
        drop their vectors from memory: the store holds them now."""
        for doc_id in [d for d in self.documents if d in self._pending]:
            chunks = self._chunks[doc_id]
            self.vector_store.upsert(
                doc_id, [c.chunk_id for c in chunks], self._vectors[doc_id], [c.text for c in chunks]
            )
        self.vector_store.commit(optimize=len(self.chunks) >= HNSW_FROM and bool(self._pending))
        for doc_id in self._pending:
            if doc_id in self._vectors:
                self._vectors[doc_id] = np.zeros((len(self._chunks[doc_id]), 0), dtype=np.float32)
        self._pending.clear()
