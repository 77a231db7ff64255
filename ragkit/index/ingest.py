"""Batch ingestion: parse, chunk, embed and store many files, reporting each one separately.

A bad file gets an error naming it and its cause; the other files of the batch are still indexed
(whatever the failure: a parser bug or ``MemoryError`` on one file is that file's error).
Unchanged files (same name, same sha256) are skipped; changed ones replace their old version.

**Concurrent writers.** The expensive part (chunking, embedding) runs without the lock; then the index's
writer lock is taken (waiting for another writer, with a message), the index is re-read from disk, and
every decision — added, replaced, unchanged, duplicate — is made against that fresh state before it is
saved. Two processes ingesting different files into one index both keep their files.

**Document identity.** A document is named by its file name, unless that would merge two different files:
two files of one batch with the same name (``dirA/notes.txt``, ``dirB/notes.txt``), or a file whose name is
already indexed from another folder, are named by as much of their path as tells them apart. A file
inside a folder given on the command line is named by its path from that folder's parent
(``papers/2020/a.pdf``)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.core.errors import DocumentError, IndexStoreError
from ragkit.core.types import Chunk, Document
from ragkit.index.embedders import LEGACY_BACKEND, check_backend
from ragkit.index.embeddings import Embedder
from ragkit.index.inputs import (
    Parsed,
    _parts,
    distinct_suffixes,
    expand_inputs,
    numbered,
    parse_inputs,
    parse_urls,
    skip_unchanged,
)
from ragkit.index.reports import FileReport, IngestProgress, IngestReport, WaitCallback
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import BaseChunker, chunker_from_spec
from ragkit.ingestion.limits import Limits
from ragkit.ingestion.reading import DEFAULT_MAX_MB

log = logging.getLogger(__name__)


def open_or_create(
    path: str | os.PathLike[str],
    embedder: Embedder,
    chunker: BaseChunker | None = None,
    store_spec: dict[str, Any] | None = None,
) -> tuple[IndexStore, BaseChunker]:
    """Open the index at ``path`` (checking model, chunker and store) or start a new one.

    With ``chunker=None`` an existing index keeps its own chunker and a new one uses ``sliding``;
    ``store_spec`` (:func:`ragkit.index.vectorstores.store_spec`) says where a new index keeps its vectors
    (default: local files) and must match an existing index's.
    """
    if IndexStore.exists(path):
        from ragkit.index.maintenance import check_store

        check_store(path, store_spec)
        store = IndexStore.open(path, model_id=embedder.model_id)
        check_backend(path, store.embedding_backend, embedder)
        if store.embedding_dtype != embedder.dtype:
            raise IndexStoreError(
                f"index {path} holds {store.embedding_dtype} vectors, not {embedder.dtype}: mixing them "
                f"would make its scores inconsistent; ingest with --dtype {store.embedding_dtype}, or into "
                "a new index"
            )
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
        from ragkit.ingestion.chunkers import SlidingChunker

        chunker = SlidingChunker()
    backend = getattr(embedder, "backend", LEGACY_BACKEND)
    store = IndexStore(
        path, embedder.model_id, embedder.dimension, chunker.spec(), embedder.dtype, store_spec, backend
    )
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
    *,
    follow_symlinks: bool = False,
    lock_timeout: float | None = None,
    on_wait: WaitCallback | None = None,
    settings: Any = None,
) -> IngestReport:
    """Parse (PDFs with ``settings``, a ``ParseSettings``) and index files, folders and ``http(s)://``
    URLs; see :func:`ingest_documents`."""
    from ragkit.ingestion.fetch import is_url

    paths = list(paths)
    urls = [str(p) for p in paths if is_url(str(p))]
    inputs, missing = expand_inputs([p for p in paths if not is_url(str(p))])
    inputs, unchanged = skip_unchanged(store, inputs, max_mb, follow_symlinks, settings)
    if not inputs and not urls and IndexStore.exists(store.path):
        report = IngestReport()  # a no-op: nothing parsed, chunked, embedded or saved
    else:
        parsed = parse_inputs(inputs, max_mb, follow_symlinks, progress, settings) + parse_urls(
            urls, progress=progress
        )
        report = ingest_documents(
            store, parsed, chunker, embedder, progress, lock_timeout=lock_timeout, on_wait=on_wait
        )
    report.files = missing + unchanged + report.files
    return report


@dataclass
class _Prepared:
    doc: Document
    chunks: list[Chunk]
    vectors: np.ndarray
    new_embeddings: int


def ingest_documents(
    store: IndexStore,
    parsed: Sequence[Parsed | tuple[str, Document | DocumentError]],
    chunker: BaseChunker,
    embedder: Embedder,
    progress: IngestProgress | None = None,
    *,
    exact: bool = False,
    lock_timeout: float | None = None,
    on_wait: WaitCallback | None = None,
) -> IngestReport:
    """Chunk, embed and add parsed documents, then save the index once (atomically).

    Entries that are ``DocumentError``s are reported as failed; nothing about them touches the index.
    With ``exact=True`` the index ends up holding exactly these documents (others are removed): how a
    collection's index follows the collection.
    """
    items = [p if isinstance(p, Parsed) else Parsed(p[0], p[1]) for p in parsed]
    report = IngestReport()
    reps: dict[int, FileReport] = {}
    for i, p in enumerate(items):
        if isinstance(p.item, DocumentError):
            reps[i] = FileReport.failed(p.name, p.item)
        else:
            reps[i] = FileReport.for_document(p.name, p.item)
    report.files = [reps[i] for i in range(len(items))]

    # 1. without the lock: chunk and embed what the current snapshot does not already hold
    prepared: dict[int, _Prepared] = {}
    todo = [i for i, p in enumerate(items) if not isinstance(p.item, DocumentError)]
    todo = [i for i in todo if not _unchanged(store, items[i])]
    _prepare(items, todo, prepared, reps, chunker, embedder, progress)

    # 2. under the lock: re-read the index, decide against that state, add, save
    with store.lock(lock_timeout, on_wait):
        store.reload()
        changed = False
        if exact:
            wanted = {p.item.source for p in items if isinstance(p.item, Document)}
            for doc_id in [d for d, doc in store.documents.items() if doc.source not in wanted]:
                store.remove(doc_id)
                changed = True
        batch_ids: dict[str, str] = {}  # doc_id -> the name that brought it in this batch
        late: list[int] = []
        plan: list[tuple[int, Document, str | None]] = []
        for i, p in enumerate(items):
            rep = reps[i]
            if isinstance(p.item, DocumentError) or rep.status == "error":
                continue
            doc = _named(store, p, rep)
            existing = store.find_source(doc.source)
            if existing is not None and _same_text(store.documents[existing], doc):
                rep.action, rep.chunks = "unchanged", store.doc_info[existing]["chunks"]
                continue
            if doc.doc_id in store.documents and store.documents[doc.doc_id].source != doc.source:
                rep.action = "duplicate"
                rep.warnings.append(
                    f"same content as {store.documents[doc.doc_id].source}, already indexed: skipped"
                )
                continue
            if doc.doc_id in batch_ids:
                rep.action = "duplicate"
                rep.warnings.append(f"same content as {batch_ids[doc.doc_id]} in this batch: skipped")
                continue
            batch_ids[doc.doc_id] = doc.source
            rep.action = "replaced" if existing is not None else "added"
            plan.append((i, doc, p.origin))
            if i not in prepared:
                late.append(i)
        # documents another writer removed meanwhile, or renamed here: embed now (cached: cheap)
        _prepare(items, late, prepared, reps, chunker, embedder, None)
        for i, doc, origin in plan:
            if reps[i].status == "error":
                continue
            prep = prepared[i]
            rep = reps[i]
            rep.chunks, rep.new_embeddings = len(prep.chunks), prep.new_embeddings
            info = {
                "chars": doc.n_chars,
                "tables": doc.n_tables,
                "empty_pages": doc.empty_pages,
                "warnings": list(doc.warnings),
            }
            if origin is not None:
                info["origin"] = origin
            chunks = prep.chunks if prep.doc.source == doc.source else chunker.split(doc)
            store.add(doc, chunks, prep.vectors, info)
            changed = True
            log.info("%s: %d chunks (%d newly embedded)", doc.source, len(chunks), rep.new_embeddings)
        if changed or not IndexStore.exists(store.path):
            if progress:
                progress("save", 0, 1)
            store.save()
            if progress:
                progress("save", 1, 1)
    return report


def _unchanged(store: IndexStore, p: Parsed) -> bool:
    doc = p.item
    assert isinstance(doc, Document)
    name, _ = _resolve_name(store, p)
    existing = store.find_source(name)
    if existing is None:
        return False
    return _same_text(store.documents[existing], doc)


def _same_text(old: Document, new: Document) -> bool:
    """The same bytes read the same way (the same bytes read by another PDF parser are not the same text)."""
    return old.sha256 == new.sha256 and old.meta.get("parser") == new.meta.get("parser")


def _resolve_name(store: IndexStore, p: Parsed) -> tuple[str, str | None]:
    """The name this input is indexed under, and a warning when it had to differ from its own.

    A file read from a path that is already indexed keeps that document's name (it is the same file,
    perhaps changed); a file whose name is taken by a file from *another* path gets a longer name; an
    upload (no path) or a file from the same path replaces its namesake.
    """
    doc = p.item
    assert isinstance(doc, Document)
    if p.origin is None:
        return doc.source, None
    for doc_id, info in store.doc_info.items():
        if info.get("origin") == p.origin:
            return store.documents[doc_id].source, None
    existing = store.find_source(doc.source)
    if existing is None:
        return doc.source, None
    old_origin = store.doc_info.get(existing, {}).get("origin")
    if old_origin is None:
        return doc.source, None
    taken = {d.source for d in store.documents.values()}
    base = distinct_suffixes([_parts(Path(old_origin)), _parts(Path(p.origin))])[1]
    name, k = base, 2
    while name in taken:
        name, k = numbered(base, k), k + 1
    return (
        name,
        f"another file named {doc.source} (from {old_origin}) is indexed: kept both, this one as {name}",
    )


def _named(store: IndexStore, p: Parsed, rep: FileReport) -> Document:
    """The document under the name :func:`_resolve_name` gives it (noting a rename in its report)."""
    doc = p.item
    assert isinstance(doc, Document)
    name, warning = _resolve_name(store, p)
    if name == doc.source:
        return doc
    if warning:
        rep.warnings.append(warning)
    rep.file = name
    return Document(doc.doc_id, name, doc.sha256, doc.pages, doc.kind, doc.warnings, doc.encoding)


def _prepare(
    items: Sequence[Parsed],
    indices: Sequence[int],
    prepared: dict[int, _Prepared],
    reps: dict[int, FileReport],
    chunker: BaseChunker,
    embedder: Embedder,
    progress: IngestProgress | None,
) -> None:
    """Chunk and embed the given items (a chunking failure is that file's error)."""
    split: list[tuple[int, Document, list[Chunk]]] = []
    limits = Limits.from_env()
    for n, i in enumerate(indices):
        doc = items[i].item
        assert isinstance(doc, Document)
        try:
            chunks = chunker.split(doc)
            limits.check_chunks(doc.source, len(chunks))
            split.append((i, doc, chunks))
        except DocumentError as e:
            reps[i].status, reps[i].action, reps[i].error = "error", "failed", str(e)
        except Exception as e:  # per-file isolation: MemoryError, RecursionError, a chunker bug
            log.exception("chunking %s failed", doc.source)
            reps[i].status, reps[i].action = "error", "failed"
            reps[i].error = str(DocumentError(doc.source, f"could not be chunked ({type(e).__name__}: {e})"))
        if progress:
            progress("chunk", n + 1, len(indices))
    total = sum(len(c) for _, _, c in split)
    done = 0
    for i, doc, chunks in split:
        before = embedder.new_embeddings

        def step(d: int, _t: int, _base: int = done) -> None:
            if progress:
                progress("embed", _base + d, total)

        vectors = embedder.embed([c.text for c in chunks], progress=step)
        done += len(chunks)
        prepared[i] = _Prepared(doc, chunks, vectors, embedder.new_embeddings - before)
        if progress:
            progress("embed", done, total)


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
    return ingest_documents(
        store, [Parsed(d.source, d) for d in documents], chunker, embedder, progress, exact=True
    )
