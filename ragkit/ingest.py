"""Batch ingestion: parse, chunk, embed and store many files, reporting each one separately.

A bad file gets an error naming it and its cause; the other files of the batch are still indexed.
Unchanged files (same name, same sha256) are skipped; changed ones replace their old version.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ragkit.chunkers import BaseChunker, chunker_from_spec
from ragkit.documents import DEFAULT_MAX_MB, load_document, parse_bytes
from ragkit.embeddings import Embedder
from ragkit.errors import DocumentError, IndexStoreError
from ragkit.store import IndexStore
from ragkit.types import Document

log = logging.getLogger(__name__)

#: ``progress(stage, done, total)`` with stage ``"parse"`` or ``"embed"``.
IngestProgress = Callable[[str, int, int], None]


@dataclass
class FileReport:
    """What happened to one file: ``status`` is ``"ok"`` or ``"error"``."""

    file: str
    status: str = "ok"
    action: str = ""  # added / replaced / unchanged / duplicate / failed
    error: str | None = None
    pages: int = 0
    chunks: int = 0
    tables: int = 0
    chars: int = 0
    empty_pages: list[int] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    new_embeddings: int = 0
    encoding: str | None = None

    @classmethod
    def for_document(cls, name: str, doc: Document) -> FileReport:
        """The report fields a parsed document already determines."""
        return cls(
            file=name,
            pages=len(doc.pages),
            tables=doc.n_tables,
            chars=doc.n_chars,
            empty_pages=doc.empty_pages,
            warnings=list(doc.warnings),
            encoding=doc.encoding,
        )


@dataclass
class IngestReport:
    files: list[FileReport] = field(default_factory=list)

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.status == "error"]

    def totals(self) -> dict[str, int]:
        return {
            "files": len(self.files),
            "failed": len(self.failed),
            "chunks": sum(f.chunks for f in self.files),
            "new_embeddings": sum(f.new_embeddings for f in self.files),
        }

    def to_dict(self) -> dict[str, Any]:
        return {"files": [asdict(f) for f in self.files], "totals": self.totals()}


def open_or_create(
    path: str | os.PathLike[str], embedder: Embedder, chunker: BaseChunker | None = None
) -> tuple[IndexStore, BaseChunker]:
    """Open the index at ``path`` (checking model and chunker) or start a new one.

    With ``chunker=None`` an existing index keeps its own chunker and a new one uses ``sliding``.
    """
    if IndexStore.exists(path):
        store = IndexStore.open(path, model_id=embedder.model_id)
        if chunker is None:
            return store, chunker_from_spec(store.chunker)
        if chunker.spec() != store.chunker:
            raise IndexStoreError(
                f"index {path} was chunked with {_describe(store.chunker)}, not "
                f"{_describe(chunker.spec())}: ingest into a new index directory, or drop the "
                "chunker options to keep the index's own"
            )
        return store, chunker
    if chunker is None:
        from ragkit.chunkers import SlidingChunker

        chunker = SlidingChunker()
    store = IndexStore(path, embedder.model_id, embedder.dimension, chunker.spec(), embedder.dtype)
    return store, chunker


def _describe(spec: dict[str, Any]) -> str:
    params = ", ".join(f"{k}={v}" for k, v in spec.get("config", {}).items())
    return f"{spec['name']}({params})"


def ingest_paths(
    store: IndexStore,
    paths: Iterable[str | os.PathLike[str]],
    chunker: BaseChunker,
    embedder: Embedder,
    max_mb: float = DEFAULT_MAX_MB,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Parse and index files from disk; see :func:`ingest_documents`."""
    paths = list(paths)
    parsed: list[tuple[str, Document | DocumentError]] = []
    for i, p in enumerate(paths):
        try:
            parsed.append((Path(p).name, load_document(p, max_mb=max_mb)))
        except DocumentError as e:
            parsed.append((Path(p).name, e))
        if progress:
            progress("parse", i + 1, len(paths))
    return ingest_documents(store, parsed, chunker, embedder, progress)


def ingest_bytes(
    store: IndexStore,
    files: Iterable[tuple[str, bytes]],
    chunker: BaseChunker,
    embedder: Embedder,
    max_mb: float = DEFAULT_MAX_MB,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Parse and index in-memory files (uploads): ``(file name, bytes)`` pairs."""
    parsed: list[tuple[str, Document | DocumentError]] = []
    for name, data in files:
        try:
            parsed.append((name, parse_bytes(name, data, max_mb=max_mb)))
        except DocumentError as e:
            parsed.append((name, e))
    return ingest_documents(store, parsed, chunker, embedder, progress)


def ingest_documents(
    store: IndexStore,
    parsed: list[tuple[str, Document | DocumentError]],
    chunker: BaseChunker,
    embedder: Embedder,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Chunk, embed and add parsed documents, then save the index once (atomically).

    Entries that are ``DocumentError``s are reported as failed; nothing about them touches the index.
    """
    report = IngestReport()
    todo: list[tuple[FileReport, Document, list]] = []
    for name, item in parsed:
        if isinstance(item, DocumentError):
            report.files.append(FileReport(file=name, status="error", action="failed", error=str(item)))
            continue
        doc = item
        rep = FileReport.for_document(name, doc)
        report.files.append(rep)
        existing = store.find_source(doc.source)
        if existing is not None and store.documents[existing].sha256 == doc.sha256:
            rep.action, rep.chunks = "unchanged", store.doc_info[existing]["chunks"]
            continue
        if doc.doc_id in store.documents and store.documents[doc.doc_id].source != doc.source:
            rep.action = "duplicate"
            rep.warnings.append(
                f"same content as {store.documents[doc.doc_id].source}, already indexed: skipped"
            )
            continue
        if any(d.doc_id == doc.doc_id for _, d, _ in todo):
            rep.action = "duplicate"
            rep.warnings.append("same content as another file in this batch: skipped")
            continue
        rep.action = "replaced" if existing is not None else "added"
        todo.append((rep, doc, chunker.split(doc)))

    total = sum(len(chunks) for _, _, chunks in todo)
    done = 0
    with store.lock():
        for rep, doc, chunks in todo:
            before = embedder.new_embeddings

            def step(d: int, _t: int, _base: int = done) -> None:
                if progress:
                    progress("embed", _base + d, total)

            vectors = embedder.embed([c.text for c in chunks], progress=step)
            done += len(chunks)
            rep.new_embeddings = embedder.new_embeddings - before
            rep.chunks = len(chunks)
            store.add(
                doc,
                chunks,
                vectors,
                {
                    "chars": doc.n_chars,
                    "tables": doc.n_tables,
                    "empty_pages": doc.empty_pages,
                    "warnings": list(doc.warnings),
                },
            )
            log.info("%s: %d chunks (%d newly embedded)", doc.source, len(chunks), rep.new_embeddings)
        if todo or not IndexStore.exists(store.path):
            store.save()
    return report


def sync_index(
    store: IndexStore,
    documents: list[Document],
    chunker: BaseChunker,
    embedder: Embedder,
    progress: IngestProgress | None = None,
) -> IngestReport:
    """Make ``store`` hold exactly ``documents``: add new or changed ones, drop the ones that are gone.

    Used when a collection is indexed under another chunker: documents are re-chunked from their
    parsed text, and the embedding cache makes identical chunks free.
    """
    wanted = {d.source for d in documents}
    stale = [doc_id for doc_id, d in store.documents.items() if d.source not in wanted]
    report = ingest_documents(store, [(d.source, d) for d in documents], chunker, embedder, progress)
    if stale or not IndexStore.exists(store.path):
        with store.lock():
            for doc_id in stale:
                store.remove(doc_id)
            store.save()
    return report
