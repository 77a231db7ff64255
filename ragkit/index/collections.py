"""Collections: a named set of uploaded documents, kept parsed under ``indexes/<name>/``.

An index is (collection x chunker config x embedding model): built on first use under
``indexes/<name>/indexes/``, and brought up to date (re-chunked from the parsed text, with cached
embeddings for identical chunks) whenever the collection changes. Comparisons are appended to
``indexes/<name>/comparisons.jsonl``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError, DocumentError, IndexStoreError
from ragkit.core.files import atomic_write, file_lock
from ragkit.core.types import Document
from ragkit.index.ingest import IngestProgress, WaitCallback, open_or_create, sync_index
from ragkit.index.inputs import guarded_parse, numbered
from ragkit.index.reports import FileReport, IngestReport
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import BaseChunker
from ragkit.ingestion.content_filter import filter_document
from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.reading import DEFAULT_MAX_MB

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$")


def default_root() -> Path:
    return Path(os.environ.get("RAGKIT_INDEX_ROOT", "indexes"))


def list_collections(root: str | Path | None = None) -> list[str]:
    root = Path(root) if root is not None else default_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / "collection.json").is_file())


class Collection:
    """Parsed documents of one collection, and the indexes built over them."""

    def __init__(self, name: str, root: str | Path | None = None) -> None:
        if not _NAME.match(name):
            raise ConfigError(f"collection name {name!r}: use 1-64 letters, digits, spaces, '.', '_' or '-'")
        self.name = name
        self.path = (Path(root) if root is not None else default_root()) / name
        self._docs: dict[str, Document] | None = None

    @classmethod
    def create(
        cls, name: str, root: str | Path | None = None, store: dict[str, Any] | None = None
    ) -> Collection:
        """Create the collection (idempotent). ``store`` (:func:`ragkit.index.vectorstores.store_spec`) says
        where its indexes keep their vectors; it is fixed at creation."""
        c = cls(name, root)
        meta = c.path / "collection.json"
        if meta.is_file():
            if store is not None and store != c.store:
                from ragkit.index.vectorstores import describe_store

                raise IndexStoreError(
                    f"collection {name!r} already exists with its vectors in {describe_store(c.store)}"
                )
        else:
            c.path.mkdir(parents=True, exist_ok=True)
            record = {"name": name, "schema_version": 1, "store": store or {"kind": "local"}}
            atomic_write(meta, lambda f: json.dump(record, f))
        if not (c.path / "documents.jsonl").is_file():
            atomic_write(c.path / "documents.jsonl", lambda f: None)
        return c

    @property
    def exists(self) -> bool:
        return (self.path / "collection.json").is_file()

    @property
    def store(self) -> dict[str, Any]:
        """Where this collection's indexes keep their vectors (local files unless created otherwise)."""
        try:
            meta = json.loads((self.path / "collection.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"kind": "local"}
        return meta.get("store") or {"kind": "local"}

    def index_store(self, index_path: Path, model_id: str = "") -> dict[str, Any]:
        """The store spec of one of its indexes: a server collection per index, named after both."""
        from ragkit.index.vectorstores import index_spec

        return index_spec(self.store, index_path, model_id, prefix=f"ragkit_{self.name}")

    # -------------------------------------------------------------- documents

    def _doc_map(self) -> dict[str, Document]:
        """File name -> parsed document, read from disk once."""
        if self._docs is None:
            self._docs = {}
            p = self.path / "documents.jsonl"
            if p.is_file():
                for line in p.read_text(encoding="utf-8").splitlines():
                    if line.strip():
                        d = Document.from_dict(json.loads(line))
                        self._docs[d.source] = d
        return self._docs

    def documents(self, settings: ParseSettings | None = None, progress: Any = None) -> list[Document]:
        """The collection's documents; with ``settings``, its PDFs as that parser reads them (parsed once
        from the kept bytes and cached under ``parsed/<settings>/``) and its HTML pages through the
        content filter when it is on."""
        docs = list(self._doc_map().values())
        if settings is None:
            return docs
        docs = [self._parsed_as(d, settings, progress) for d in docs]
        scorer = settings.scorer()
        if scorer is None:
            return docs
        return [filter_document(d, scorer)[0] if d.kind == "html" else d for d in docs]

    def _parsed_as(self, doc: Document, settings: ParseSettings, progress: Any = None) -> Document:
        if doc.kind != "pdf" or doc.meta.get("parser", "plain-auto-eng") == settings.key():
            return doc  # documents parsed before parsers were named were read by the plain reader
        cache = self.path / "parsed" / settings.key() / f"{doc.sha256}.json"
        if cache.is_file():
            parsed = Document.from_dict(json.loads(cache.read_text(encoding="utf-8")))
        else:
            blob = self._blob(doc.sha256)
            if not blob.is_file() and settings.is_default:
                note = "read by the plain reader before ragkit kept PDFs' bytes: upload it again for layout"
                return replace(doc, warnings=(*doc.warnings, note))
            if not blob.is_file():
                raise IndexStoreError(
                    f"{doc.source} was ingested before ragkit kept PDFs' bytes, so it cannot be read with "
                    f"the {settings.pdf_parser} parser: upload it again"
                )

            def pages(done: int, total: int) -> None:
                if progress:
                    progress(f"page {doc.source} ({settings.pdf_parser})", done, total)

            parsed = parse_bytes(doc.source, blob.read_bytes(), max_mb=float("inf"), progress=pages,
                                 settings=settings)  # fmt: skip
            cache.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(cache, lambda f: json.dump(parsed.to_dict(), f, ensure_ascii=False))
        return replace(parsed, doc_id=doc.doc_id, source=doc.source, meta={**doc.meta, **parsed.meta})

    def readings(self, doc: Document) -> list[Document]:
        """Every reading of ``doc`` parsed so far by another parser setting (from ``parsed/``)."""
        out = []
        for cache in sorted((self.path / "parsed").glob(f"*/{doc.sha256}.json")):
            try:
                parsed = Document.from_dict(json.loads(cache.read_text(encoding="utf-8")))
            except (OSError, ValueError, KeyError):
                continue
            out.append(replace(parsed, doc_id=doc.doc_id, source=doc.source))
        return out

    def _blob(self, sha256: str) -> Path:
        return self.path / "files" / f"{sha256}.pdf"

    def _keep_bytes(self, doc: Document, data: bytes) -> None:
        """Keep a PDF's bytes (by content), so another parser can read it later."""
        blob = self._blob(doc.sha256)
        if doc.kind == "pdf" and not blob.is_file():
            blob.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(blob, lambda f: f.write(data), mode="wb")

    def _save_documents(self) -> None:
        docs = self.documents()
        atomic_write(
            self.path / "documents.jsonl",
            lambda f: f.writelines(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in docs),
        )

    def lock(self, on_wait: WaitCallback | None = None, timeout: float | None = None):
        """The collection's writer lock: held while its document list is read, changed and saved."""
        return file_lock(self.path / ".lock", f"collection {self.name!r}", timeout, on_wait)

    def add_files(
        self,
        files: Iterable[tuple[str, bytes]],
        max_mb: float = DEFAULT_MAX_MB,
        progress: IngestProgress | None = None,
        on_wait: WaitCallback | None = None,
    ) -> IngestReport:
        """Parse uploads into the collection; bad files are reported, the others kept.

        A file whose name is already in the collection replaces it (an upload of a new version); two
        different files of one batch with the same name are both kept (``notes (2).txt``).
        """
        if not self.exists:
            raise IndexStoreError(f"collection {self.name!r} does not exist")
        files = list(files)
        report = IngestReport()
        parsed: list[tuple[FileReport, Document | None]] = []
        names: dict[str, int] = {}
        for i, (name, data) in enumerate(files):

            def pages(done: int, total: int, _name: str = name) -> None:
                if progress:
                    progress(f"page {_name}", done, total)

            names[name] = names.get(name, 0) + 1
            shown = name if names[name] == 1 else numbered(name, names[name])
            item = guarded_parse(shown, lambda d=data, n=shown, p=pages: parse_bytes(n, d, max_mb, p))
            if isinstance(item, DocumentError):
                parsed.append((FileReport.failed(shown, item), None))
            else:
                self._keep_bytes(item, data)
                rep = FileReport.for_document(shown, item)
                if shown != name:
                    rep.warnings.append(f"another file named {name} is in this upload: kept as {shown}")
                parsed.append((rep, item))
            if progress:
                progress("parse", i + 1, len(files))
        self._store_parsed(parsed, report, on_wait)
        return report

    def add_urls(
        self,
        urls: Iterable[str],
        progress: IngestProgress | None = None,
        on_wait: WaitCallback | None = None,
    ) -> IngestReport:
        """Fetch web pages (or PDFs, text) into the collection, each named by its URL; a URL already in
        the collection is replaced when its content changed. Failures are reported per URL."""
        from ragkit.index.inputs import parse_urls

        if not self.exists:
            raise IndexStoreError(f"collection {self.name!r} does not exist")
        report = IngestReport()
        parsed: list[tuple[FileReport, Document | None]] = []
        for p in parse_urls([u.strip() for u in urls if u.strip()], progress=progress):
            if isinstance(p.item, DocumentError):
                parsed.append((FileReport.failed(p.name, p.item), None))
            else:
                parsed.append((FileReport.for_document(p.name, p.item), p.item))
        self._store_parsed(parsed, report, on_wait)
        return report

    def _store_parsed(
        self,
        parsed: list[tuple[FileReport, Document | None]],
        report: IngestReport,
        on_wait: WaitCallback | None,
    ) -> None:
        with self.lock(on_wait):
            self._docs = None  # re-read: another session may have added files meanwhile
            docs = self._doc_map()
            batch: dict[str, str] = {}
            changed = False
            for rep, doc in parsed:
                report.files.append(rep)
                if doc is None:
                    continue
                old = docs.get(doc.source)
                if old is not None and old.sha256 == doc.sha256:
                    rep.action = "unchanged"
                elif doc.sha256 in batch:
                    rep.action = "duplicate"
                    rep.warnings.append(f"same content as {batch[doc.sha256]} in this upload: skipped")
                else:
                    rep.action = "replaced" if old is not None else "added"
                    docs[doc.source] = doc
                    batch[doc.sha256] = doc.source
                    changed = True
            if changed:
                self._save_documents()

    def add_documents(self, documents: Iterable[Document]) -> int:
        """Add already parsed documents (from a CLI index, say); returns how many were new or changed."""
        with self.lock():
            self._docs = None
            docs = self._doc_map()
            n = 0
            for d in documents:
                old = docs.get(d.source)
                if old is None or old.sha256 != d.sha256:
                    docs[d.source] = d
                    n += 1
            if n:
                self._save_documents()
        return n

    def remove(self, source: str) -> bool:
        with self.lock():
            self._docs = None
            gone = self._doc_map().pop(source, None)
            if gone is None:
                return False
            self._save_documents()
            if all(d.sha256 != gone.sha256 for d in self.documents()):
                self._blob(gone.sha256).unlink(missing_ok=True)
        return True

    # -------------------------------------------------------------- indexes

    def index_path(self, chunker: BaseChunker, embedder: Any, settings: ParseSettings | None = None) -> Path:
        """Where the index of (PDF parsing, chunker, model) lives; the default parsing names no key, so
        indexes built before parsers were a setting keep their place."""
        model = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder.cache_key)
        parse = "" if settings is None or settings.is_default else f"-{settings.index_key()}"
        return self.path / "indexes" / f"{chunker.name}-{chunker.key()}{parse}-{model}"

    def index(
        self,
        chunker: BaseChunker,
        embedder: Any,
        progress: IngestProgress | None = None,
        settings: ParseSettings | None = None,
    ) -> tuple[IndexStore, IngestReport]:
        """The up-to-date index for this PDF parsing, chunker and model (built or synced as needed)."""
        settings = settings or ParseSettings()
        path = self.index_path(chunker, embedder, settings)
        # a text-only index (no vector components) keeps nothing in a vector store: local files
        spec = self.index_store(path, embedder.model_id) if embedder.dimension else {"kind": "local"}
        store, chunker = open_or_create(path, embedder, chunker, spec)
        docs = self.documents(settings, progress)
        report = sync_index(store, docs, chunker, embedder, progress)
        return store, report

    def is_indexed(self, chunker: BaseChunker, embedder: Any, settings: ParseSettings | None = None) -> bool:
        """Whether the index for this chunker and model already holds exactly the current documents."""
        return self.indexed_generation(chunker, embedder, settings) is not None

    def indexed_generation(
        self, chunker: BaseChunker, embedder: Any, settings: ParseSettings | None = None
    ) -> int | None:
        """The saved generation of the index for this chunker and model when it holds exactly the current
        documents, else None (one read of its manifest)."""
        path = self.index_path(chunker, embedder, settings)
        if not IndexStore.exists(path):
            return None
        m = IndexStore.read_manifest(path)
        have = {(d["source"], d["sha256"]) for d in m["documents"]}
        if have != {(d.source, d.sha256) for d in self.documents()}:
            return None
        return int(m.get("generation", -1))  # a manifest from before generations: indexed, none known

    # -------------------------------------------------------------- comparisons

    def save_comparison(self, record: dict[str, Any]) -> None:
        """Append one comparison (both configs in full) to ``comparisons.jsonl``."""
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        with open(self.path / "comparisons.jsonl", "a", encoding="utf-8") as f:
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def comparisons(self) -> list[dict[str, Any]]:
        p = self.path / "comparisons.jsonl"
        if not p.is_file():
            return []
        return [json.loads(x) for x in p.read_text(encoding="utf-8").splitlines() if x.strip()]
