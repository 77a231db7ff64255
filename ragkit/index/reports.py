"""What ingestion did, per file and in total: the report the CLI prints, the app shows, `--json` writes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.types import Document

#: ``progress(stage, done, total)``; stages: ``"parse"`` (files), ``"page <file>"`` (pages of one PDF),
#: ``"chunk"`` (documents), ``"embed"`` (chunks), ``"save"``.
IngestProgress = Callable[[str, int, int], None]


#: ``on_wait(message)``: the index is locked by another writer and this one waits.
WaitCallback = Callable[[str], None]


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

    @classmethod
    def failed(cls, name: str, error: DocumentError | str) -> FileReport:
        return cls(file=name, status="error", action="failed", error=str(error))


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
