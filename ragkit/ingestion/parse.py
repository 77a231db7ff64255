"""Any supported file -> ``Document``: the format is chosen by the file's extension (PDF, text, Markdown,
HTML, DOCX, question-answer CSV/JSONL)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ragkit.core.errors import DocumentError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.types import Document, Page
from ragkit.ingestion.limits import Budget
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf import _parse_pdf
from ragkit.ingestion.reading import (
    DEFAULT_MAX_MB,
    PageProgress,
    _check_not_binary_markup,
    _check_size,
    _check_suffix,
    read_regular_file,
)
from ragkit.ingestion.text import _decode_text

log = logging.getLogger(__name__)


def load_document(
    path: str | os.PathLike[str],
    max_mb: float = DEFAULT_MAX_MB,
    name: str | None = None,
    root: str | os.PathLike[str] | None = None,
    follow_symlinks: bool = False,
    progress: PageProgress | None = None,
    settings: ParseSettings | None = None,
) -> Document:
    """Parse the file at ``path``; raises :class:`DocumentError` naming the file and the cause.

    Args:
        name: the document's name (``source``); default the file name.
        root: the folder the user named; a symlink resolving outside it is refused unless
            ``follow_symlinks`` (default: the file's own folder).
    """
    data = read_regular_file(path, max_mb, name=name, root=root, follow_symlinks=follow_symlinks)
    return parse_bytes(name or Path(path).name, data, max_mb=max_mb, progress=progress, settings=settings)


def parse_bytes(
    name: str,
    data: bytes,
    max_mb: float = DEFAULT_MAX_MB,
    progress: PageProgress | None = None,
    settings: ParseSettings | None = None,
) -> Document:
    """Parse a file's bytes (an upload, say); ``name`` decides the format by its extension, ``settings``
    the PDF parser and OCR (default: layout, OCR where the text layer is not usable)."""
    kind = _check_suffix(name)
    _check_size(name, len(data), max_mb)
    if not data:
        raise DocumentError(name, "the file is empty (0 bytes)")
    sha = sha256_bytes(data)
    if kind == "html":
        from ragkit.ingestion.html import html_to_document

        _check_not_binary_markup(name, data)
        return html_to_document(name, data)
    if kind == "docx":
        from ragkit.ingestion.docx import docx_to_document

        return docx_to_document(name, data)
    if kind == "qa":
        from ragkit.ingestion.qa import looks_like_qa, qa_document

        if not looks_like_qa(name, data):
            raise DocumentError(
                name,
                "a .csv/.jsonl file is ingested as question-answer pairs: it needs 'question' and 'answer'",
            )
        return qa_document(name, data)
    meta: dict[str, str] = {}
    if kind == "image":
        from ragkit.ingestion.pdf import parse_image

        s = settings or ParseSettings()
        pages, warnings = parse_image(name, data, progress, s.ocr_language)
        encoding = None
    elif kind == "pdf":
        s = settings or ParseSettings()
        pages, warnings = _parse_pdf(name, data, progress, s.pdf_parser, s.ocr, s.ocr_language)
        encoding = None
        meta["parser"] = s.key()
    else:
        text, encoding, warnings = _decode_text(name, data)
        Budget(name).add_text(len(text))
        pages = text_pages(text)
        if not text.strip():
            warnings.append("the file holds only whitespace: nothing to index")
    doc = Document(
        doc_id=sha[:16],
        source=name,
        sha256=sha,
        pages=tuple(pages),
        kind=kind,
        warnings=tuple(warnings),
        encoding=encoding,
        meta=meta,
    )
    return doc


def text_pages(text: str) -> list[Page]:
    """A text file's pages: form feeds separate them (an RFC's 8 pages are 8 pages, numbered as printed;
    an empty page keeps its number), each with the Markdown tables it holds."""
    from ragkit.ingestion.tables import count_markdown_tables

    parts = text.split("\f")
    if len(parts) > 1 and not parts[-1].strip():
        parts.pop()  # a form feed that ends the file starts no page
    return [Page(number=i, text=t, tables=count_markdown_tables(t)) for i, t in enumerate(parts, 1)]
