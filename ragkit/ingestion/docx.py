"""Word documents -> Markdown with python-docx: heading styles become ``#`` headings, list styles ``-``
items, tables Markdown tables, in document order."""

from __future__ import annotations

import io

from ragkit.core.errors import DocumentError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Document, Page
from ragkit.ingestion.limits import Budget, Limits, check_zip_expansion


def docx_to_document(name: str, data: bytes) -> Document:
    """A Word document as one Markdown page: headings, list items and tables in document order."""
    docx = require("docx", "reading .docx files")
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    limits = Limits.from_env()
    check_zip_expansion(name, data, limits)  # before python-docx inflates anything
    try:
        d = docx.Document(io.BytesIO(data))
    except Exception as e:  # python-docx raises PackageNotFoundError, BadZipFile, KeyError...
        raise DocumentError(
            name, f"not a readable .docx file — corrupt or not Word ({type(e).__name__})"
        ) from None
    from ragkit.ingestion.tables import count_markdown_tables, table_to_markdown

    parts: list[str] = []
    for block in d.iter_inner_content():
        if isinstance(block, Table):
            rows = [[cell.text for cell in row.cells] for row in block.rows]
            md = table_to_markdown(rows)
            if md:
                parts.append(md)
        elif isinstance(block, Paragraph):
            text = block.text.strip()
            if not text:
                continue
            style = (block.style.name if block.style is not None else "") or ""
            if style.lower().startswith("heading"):
                level = "".join(ch for ch in style if ch.isdigit()) or "1"
                parts.append("#" * min(int(level), 6) + " " + text)
            elif style.lower() == "title":
                parts.append("# " + text)
            elif "list" in style.lower():
                parts.append("- " + text)
            else:
                parts.append(text)
    text = "\n\n".join(parts)
    Budget(name, limits).add_text(len(text))
    warnings = [] if text.strip() else ["the document holds no text: nothing to index"]
    title = d.core_properties.title or ""
    page = Page(1, text, count_markdown_tables(text))
    return Document(
        sha256_bytes(data)[:16], name, sha256_bytes(data), (page,), "docx", tuple(warnings),
        meta={"title": title} if title else {},
    )  # fmt: skip
