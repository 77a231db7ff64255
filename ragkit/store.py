"""On-disk index: manifest, parsed documents, chunks and vectors, written atomically.

Layout of an index directory::

    manifest.json            schema/ragkit version, model id + dimension, chunker spec, documents,
                             and the generation whose data files are current
    documents-<gen>.jsonl    parsed pages per document (lets us re-chunk and highlight without re-parsing)
    chunks-<gen>.jsonl       one chunk per line, row i <-> vectors row i
    vectors-<gen>.npy        float32 (n_chunks, dim), unit-norm rows

A save writes new ``<gen+1>`` files (temp file + rename each), then atomically replaces
``manifest.json``; only then are older generations deleted. A crash at any point leaves the previous
manifest pointing at complete files, so the index always opens.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ragkit import __version__
from ragkit.errors import IndexStoreError, ModelMismatchError
from ragkit.types import Chunk, Document

log = logging.getLogger(__name__)

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def atomic_write(path: Path, write: Any, mode: str = "w") -> None:
    """Write ``path`` through a temp file in the same directory, fsync, then rename over it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600 files; an index is meant to be shared/readable
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class IndexStore:
    """A persistent, incrementally updated chunk + vector index (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        model_id: str,
        dimension: int,
        chunker: dict[str, Any],
        embedding_dtype: str = "float32",
    ) -> None:
        self.path = Path(path)
        self.model_id = model_id
        self.dimension = dimension
        self.chunker = chunker
        self.embedding_dtype = embedding_dtype
        self.created_at = _now()
        self.updated_at = self.created_at
        self.generation = 0
        self.documents: dict[str, Document] = {}  # doc_id -> parsed document
        self.doc_info: dict[str, dict[str, Any]] = {}  # doc_id -> manifest entry
        self._chunks: dict[str, list[Chunk]] = {}  # doc_id -> its chunks, in order
        self._vectors: dict[str, np.ndarray] = {}  # doc_id -> (n, dim)
        self._flat: tuple[list[Chunk], np.ndarray] | None = None

    # ------------------------------------------------------------------ opening

    @classmethod
    def exists(cls, path: str | os.PathLike[str]) -> bool:
        return (Path(path) / MANIFEST).is_file()

    @classmethod
    def read_manifest(cls, path: str | os.PathLike[str]) -> dict[str, Any]:
        """The manifest alone (cheap: no chunks or vectors are read)."""
        mpath = Path(path) / MANIFEST
        if not mpath.is_file():
            raise IndexStoreError(f"no ragkit index at {path} (no {MANIFEST}); ingest files first")
        try:
            manifest = json.loads(mpath.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise IndexStoreError(f"index {path}: {MANIFEST} is unreadable ({e})") from None
        if manifest.get("schema_version") != SCHEMA_VERSION:
            raise IndexStoreError(
                f"index {path} has schema version {manifest.get('schema_version')}; this ragkit "
                f"({__version__}) reads version {SCHEMA_VERSION}: re-ingest into a new directory"
            )
        return manifest

    @classmethod
    def open(
        cls, path: str | os.PathLike[str], model_id: str | None = None, dimension: int | None = None
    ) -> IndexStore:
        """Load an index; with ``model_id``/``dimension``, refuse one built with another model."""
        path = Path(path)
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
        store = cls(path, emb["model"], emb["dimension"], m["chunker"], emb.get("dtype", "float32"))
        store.created_at = m.get("created_at", store.created_at)
        store.updated_at = m.get("updated_at", store.updated_at)
        store.generation = m["generation"]
        files = m["files"]
        try:
            docs = [Document.from_dict(json.loads(line)) for line in _lines(path / files["documents"])]
            chunks = [Chunk.from_dict(json.loads(line)) for line in _lines(path / files["chunks"])]
            vectors = np.load(path / files["vectors"], allow_pickle=False)
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise IndexStoreError(f"index {path} is damaged: {e}") from None
        if vectors.shape != (len(chunks), emb["dimension"]):
            raise IndexStoreError(
                f"index {path} is damaged: {len(chunks)} chunks but vectors of shape {vectors.shape}"
            )
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
        return self._flatten()[1]

    def _flatten(self) -> tuple[list[Chunk], np.ndarray]:
        if self._flat is None:
            chunks = [c for d in self.documents for c in self._chunks[d]]
            parts = [self._vectors[d] for d in self.documents if len(self._vectors[d])]
            vecs = (
                np.concatenate(parts).astype(np.float32, copy=False)
                if parts
                else np.zeros((0, self.dimension), dtype=np.float32)
            )
            self._flat = (chunks, vecs)
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

    def remove(self, doc_id_or_source: str) -> bool:
        """Drop a document by id or file name; returns whether it was there."""
        doc_id = (
            doc_id_or_source if doc_id_or_source in self.documents else self.find_source(doc_id_or_source)
        )
        if doc_id is None:
            return False
        for table in (self.documents, self.doc_info, self._chunks, self._vectors):
            table.pop(doc_id, None)
        self._flat = None
        return True

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """Hold an exclusive lock on the index directory while writing (one writer at a time)."""
        import fcntl

        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as e:
                if e.errno in (errno.EAGAIN, errno.EACCES):
                    raise IndexStoreError(
                        f"index {self.path} is being written by another process; try again later"
                    ) from None
                raise
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def save(self) -> None:
        """Write a new generation of data files, then switch the manifest to it atomically."""
        self.path.mkdir(parents=True, exist_ok=True)
        gen = self.generation + 1
        files = {
            "documents": f"documents-{gen:06d}.jsonl",
            "chunks": f"chunks-{gen:06d}.jsonl",
            "vectors": f"vectors-{gen:06d}.npy",
        }
        chunks, vectors = self._flatten()
        docs = list(self.documents.values())
        atomic_write(
            self.path / files["documents"],
            lambda f: f.writelines(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in docs),
        )
        atomic_write(
            self.path / files["chunks"],
            lambda f: f.writelines(json.dumps(c.to_dict(), ensure_ascii=False) + "\n" for c in chunks),
        )
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
            },
            "chunker": self.chunker,
            "documents": [self.doc_info[d.doc_id] for d in docs],
            "counts": {"documents": len(docs), "chunks": len(chunks)},
            "files": files,
        }
        atomic_write(self.path / MANIFEST, lambda f: json.dump(manifest, f, indent=2))
        self.generation = gen
        self._remove_stale(files)

    def _remove_stale(self, current: dict[str, str]) -> None:
        keep = set(current.values()) | {MANIFEST, ".lock"}
        for p in self.path.iterdir():
            stale_data = p.name.split("-")[0] in ("documents", "chunks", "vectors")
            if p.is_file() and p.name not in keep and (stale_data or p.name.endswith(".tmp")):
                with contextlib.suppress(OSError):
                    p.unlink()


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield line


def list_indexes(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Summaries of the index directories directly under ``root`` (damaged ones say why)."""
    out: list[dict[str, Any]] = []
    root = Path(root)
    if not root.is_dir():
        return out
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not IndexStore.exists(d):
            continue
        try:
            m = IndexStore.read_manifest(d)
        except IndexStoreError as e:
            out.append({"name": d.name, "path": str(d), "error": str(e)})
            continue
        out.append(
            {
                "name": d.name,
                "path": str(d),
                "documents": m["counts"]["documents"],
                "chunks": m["counts"]["chunks"],
                "model": m["embedding"]["model"],
                "chunker": m["chunker"]["name"],
                "updated_at": m["updated_at"],
                "error": None,
            }
        )
    return out
