"""HTML -> Markdown with trafilatura: the main content only (navigation, footers, cookie banners and ads
dropped), headings, lists, tables and code kept; the title from the page's metadata."""

from __future__ import annotations

from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.hashing import sha256_bytes
from ragkit.core.optional import require
from ragkit.core.types import Document, Page
from ragkit.ingestion.tables import count_markdown_tables


def html_to_document(name: str, data: bytes, url: str | None = None) -> Document:
    """The main content of an HTML page as a one-page Markdown document (``name`` is its file name or URL)."""
    trafilatura = require("trafilatura", "reading HTML")

    text = trafilatura.extract(
        data,
        output_format="markdown",
        include_tables=True,
        include_formatting=True,
        include_links=False,
        include_images=False,
        include_comments=False,
        favor_recall=True,
        url=url,
    )
    warnings: list[str] = []
    if not text or not text.strip():
        # a page with no article-like block (a bare <pre>, a list of links): keep its text as a whole
        _, baseline_text, _ = trafilatura.baseline(data)
        text = baseline_text or ""
        if text.strip():
            warnings.append("no main content block found: the page's whole text was kept")
    if not text or not text.strip():
        raise DocumentError(
            name, "no main text found in the page (empty after removing navigation and boilerplate)"
        )
    meta = trafilatura.extract_metadata(data, default_url=url)
    title = (meta.title if meta is not None else None) or ""
    info: dict[str, Any] = {"title": title}
    if url:
        info["url"] = url
    # trafilatura ends table rows with a space and escapes underscores ("read\\_bytes"): undo both, so
    # tables are plain Markdown and identifiers stay one word for BM25
    lines = (line.rstrip() for line in text.replace("\r\n", "\n").replace("\\_", "_").splitlines())
    text = "\n".join(lines).strip() + "\n"
    published = _published(meta.date if meta is not None else None)
    if published:
        # the byline is boilerplate to the extractor, but "when was it published?" is a real question:
        # the page's date (from its metadata) is kept as the first line of the text
        info["published"] = meta.date
        text = f"Published on {published}.\n\n{text}"
    return Document(
        sha256_bytes(data)[:16],
        name,
        sha256_bytes(data),
        (Page(1, text, count_markdown_tables(text)),),
        "html",
        tuple(warnings),
        meta=info,
    )


def _published(iso: str | None) -> str:
    """``2024-09-12`` -> ``12 September 2024`` (empty when there is no valid date)."""
    import datetime as dt

    try:
        day = dt.date.fromisoformat((iso or "")[:10])
    except ValueError:
        return ""
    return f"{day.day} {day.strftime('%B')} {day.year}"
