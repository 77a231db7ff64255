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
from pathlib import Path
from typing import Any

from ragkit.chunkers import BaseChunker
from ragkit.documents import DEFAULT_MAX_MB, parse_bytes
from ragkit.errors import ConfigError, DocumentError, IndexStoreError
from ragkit.ingest import FileReport, IngestProgress, IngestReport, open_or_create, sync_index
from ragkit.store import IndexStore, atomic_write
from ragkit.types import Document

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
    def create(cls, name: str, root: str | Path | None = None) -> Collection:
        c = cls(name, root)
        c.path.mkdir(parents=True, exist_ok=True)
        meta = c.path / "collection.json"
        if not meta.is_file():
            atomic_write(meta, lambda f: json.dump({"name": name, "schema_version": 1}, f))
        if not (c.path / "documents.jsonl").is_file():
            atomic_write(c.path / "documents.jsonl", lambda f: None)
        return c

    @property
    def exists(self) -> bool:
        return (self.path / "collection.json").is_file()

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

    def documents(self) -> list[Document]:
        return list(self._doc_map().values())

    def _save_documents(self) -> None:
        docs = self.documents()
        atomic_write(
            self.path / "documents.jsonl",
            lambda f: f.writelines(json.dumps(d.to_dict(), ensure_ascii=False) + "\n" for d in docs),
        )

    def add_files(self, files: Iterable[tuple[str, bytes]], max_mb: float = DEFAULT_MAX_MB) -> IngestReport:
        """Parse uploads into the collection; bad files are reported, the others kept."""
        if not self.exists:
            raise IndexStoreError(f"collection {self.name!r} does not exist")
        docs = self._doc_map()
        report = IngestReport()
        changed = False
        for name, data in files:
            try:
                doc = parse_bytes(name, data, max_mb=max_mb)
            except DocumentError as e:
                report.files.append(FileReport(file=name, status="error", action="failed", error=str(e)))
                continue
            rep = FileReport.for_document(name, doc)
            old = docs.get(name)
            if old is not None and old.sha256 == doc.sha256:
                rep.action = "unchanged"
            else:
                rep.action = "replaced" if old is not None else "added"
                docs[name] = doc
                changed = True
            report.files.append(rep)
        if changed:
            self._save_documents()
        return report

    def remove(self, source: str) -> bool:
        if self._doc_map().pop(source, None) is None:
            return False
        self._save_documents()
        return True

    # -------------------------------------------------------------- indexes

    def index_path(self, chunker: BaseChunker, embedder: Any) -> Path:
        model = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder.cache_key)
        return self.path / "indexes" / f"{chunker.name}-{chunker.key()}-{model}"

    def index(
        self, chunker: BaseChunker, embedder: Any, progress: IngestProgress | None = None
    ) -> tuple[IndexStore, IngestReport]:
        """The up-to-date index for this chunker and model (built or synced as needed)."""
        store, chunker = open_or_create(self.index_path(chunker, embedder), embedder, chunker)
        report = sync_index(store, self.documents(), chunker, embedder, progress)
        return store, report

    def is_indexed(self, chunker: BaseChunker, embedder: Any) -> bool:
        """Whether the index for this chunker and model already holds exactly the current documents."""
        path = self.index_path(chunker, embedder)
        if not IndexStore.exists(path):
            return False
        m = IndexStore.read_manifest(path)
        have = {(d["source"], d["sha256"]) for d in m["documents"]}
        return have == {(d.source, d.sha256) for d in self.documents()}

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
