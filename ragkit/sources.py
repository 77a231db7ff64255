"""Sources beyond PDF and text: HTML pages (files or URLs), Word documents, and fetching over HTTP.

- **HTML** → Markdown with trafilatura: the main content only (navigation, footers, cookie banners and
  ads dropped), headings, lists, tables and code kept; the title from the page's metadata.
- **DOCX** → Markdown with python-docx: heading styles become ``#`` headings, list styles ``-`` items,
  tables Markdown tables, in document order.
- **URLs** are fetched with a timeout, a size cap counted on the bytes received, a clear User-Agent, and
  at most five redirects; every failure is that URL's error in the ingest report (DNS, HTTP status,
  content type, too large, timeout, nothing left after extraction). A fetched page becomes a document
  named by its URL, so ingesting the URL again replaces it when its content changed. Fetches can go
  through an on-disk cache (web search uses it, so a comparison or evaluation replays the same pages).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.errors import DocumentError
from ragkit.hashing import sha256_bytes
from ragkit.types import Document, Page

USER_AGENT = f"ragkit/{__version__} (research RAG workbench; +https://pypi.org/project/ragkit/)"
HTML_TYPES = ("text/html", "application/xhtml+xml")
ACCEPTED_TYPES = (*HTML_TYPES, "text/plain", "text/markdown", "application/pdf")
DEFAULT_TIMEOUT_S = 15.0
DEFAULT_FETCH_MB = 10.0


def is_url(text: str) -> bool:
    return str(text).lower().startswith(("http://", "https://"))


# ------------------------------------------------------------------ HTML and DOCX


def html_to_document(name: str, data: bytes, url: str | None = None) -> Document:
    """The main content of an HTML page as a one-page Markdown document (``name`` is its file name or URL)."""
    import trafilatura

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
    return Document(
        sha256_bytes(data)[:16],
        name,
        sha256_bytes(data),
        (Page(1, text),),
        "html",
        tuple(warnings),
        meta=info,
    )


def docx_to_document(name: str, data: bytes) -> Document:
    """A Word document as one Markdown page: headings, list items and tables in document order."""
    try:
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph

        d = docx.Document(io.BytesIO(data))
    except Exception as e:  # python-docx raises PackageNotFoundError, BadZipFile, KeyError...
        raise DocumentError(
            name, f"not a readable .docx file — corrupt or not Word ({type(e).__name__})"
        ) from None
    from ragkit.documents import table_to_markdown

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
    warnings = [] if text.strip() else ["the document holds no text: nothing to index"]
    title = d.core_properties.title or ""
    return Document(
        sha256_bytes(data)[:16], name, sha256_bytes(data), (Page(1, text),), "docx", tuple(warnings),
        meta={"title": title} if title else {},
    )  # fmt: skip


# ------------------------------------------------------------------ fetching


@dataclass(frozen=True)
class Fetched:
    url: str  # the final URL, after redirects
    content_type: str
    data: bytes
    status: int = 200


class PageCache:
    """Fetched pages on disk, keyed by URL (``<dir>/<sha256>.json`` + ``.bin``), written atomically."""

    def __init__(self, directory: str | os.PathLike[str] | None = None) -> None:
        root = os.environ.get("RAGKIT_CACHE_DIR") or Path.home() / ".cache" / "ragkit"
        self.dir = Path(directory) if directory is not None else Path(root) / "web"

    def _key(self, key: str) -> Path:
        return self.dir / hashlib.sha256(key.encode()).hexdigest()

    def get(self, key: str) -> Fetched | None:
        p = self._key(key)
        try:
            meta = json.loads(p.with_suffix(".json").read_text(encoding="utf-8"))
            return Fetched(
                meta["url"], meta["content_type"], p.with_suffix(".bin").read_bytes(), meta["status"]
            )
        except (OSError, ValueError, KeyError):
            return None

    def put(self, key: str, page: Fetched) -> None:
        from ragkit.store import atomic_write

        self.dir.mkdir(parents=True, exist_ok=True)
        p = self._key(key)
        atomic_write(p.with_suffix(".bin"), lambda f: f.write(page.data), mode="wb")
        meta = {"url": page.url, "content_type": page.content_type, "status": page.status, "at": time.time()}
        atomic_write(p.with_suffix(".json"), lambda f: json.dump(meta, f))

    def get_json(self, key: str) -> Any:
        try:
            return json.loads(self._key(key).with_suffix(".json").read_text(encoding="utf-8"))["value"]
        except (OSError, ValueError, KeyError):
            return None

    def put_json(self, key: str, value: Any) -> None:
        from ragkit.store import atomic_write

        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self._key(key).with_suffix(".json"), lambda f: json.dump({"value": value}, f))


def fetch(
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_mb: float = DEFAULT_FETCH_MB,
    cache: PageCache | None = None,
) -> Fetched:
    """GET ``url`` (redirects followed); a ``DocumentError`` naming the URL for every failure."""
    import httpx

    if cache is not None:
        hit = cache.get(url)
        if hit is not None:
            return hit
    limit = int(max_mb * 1024 * 1024)
    try:
        with (
            httpx.Client(
                follow_redirects=True, max_redirects=5, timeout=timeout, headers={"User-Agent": USER_AGENT}
            ) as client,
            client.stream("GET", url) as resp,
        ):
            if resp.status_code >= 400:
                reason = resp.reason_phrase or ""
                raise DocumentError(url, f"the server answered HTTP {resp.status_code} {reason}".rstrip())
            ctype = resp.headers.get("content-type", "").split(";")[0].strip().lower()
            if ctype and ctype not in ACCEPTED_TYPES:
                raise DocumentError(
                    url, f"content type {ctype} is not a page ragkit reads (HTML, text or PDF)"
                )
            declared = resp.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > limit:
                raise DocumentError(
                    url, f"the page is {int(declared) / 1e6:.1f} MB, over the {max_mb:g} MB limit"
                )
            parts, got = [], 0
            for block in resp.iter_bytes():
                parts.append(block)
                got += len(block)
                if got > limit:
                    raise DocumentError(
                        url, f"the page is larger than the {max_mb:g} MB limit (read until it)"
                    )
            page = Fetched(str(resp.url), ctype or "text/html", b"".join(parts), resp.status_code)
    except DocumentError:
        raise
    except httpx.TooManyRedirects:
        raise DocumentError(url, "too many redirects (more than 5)") from None
    except httpx.TimeoutException:
        raise DocumentError(url, f"no answer within {timeout:g} s (timeout)") from None
    except httpx.ConnectError as e:
        cause = e.__cause__ or e.__context__
        if (
            isinstance(cause, socket.gaierror)
            or "name or service not known" in str(e).lower()
            or "nodename" in str(e).lower()
        ):
            raise DocumentError(url, "the host name does not resolve (DNS failure)") from None
        raise DocumentError(url, f"cannot connect ({e})") from None
    except (httpx.HTTPError, httpx.InvalidURL, ValueError) as e:
        raise DocumentError(url, f"cannot fetch the page ({type(e).__name__}: {e})") from None
    if cache is not None:
        cache.put(url, page)
    return page


def fetched_to_document(url: str, page: Fetched) -> Document:
    """A fetched page as a document named by the URL the user gave (its final URL in the metadata)."""
    from ragkit.documents import parse_bytes

    if not page.data:
        raise DocumentError(url, "the page is empty")
    if page.content_type in HTML_TYPES or (not page.content_type and page.data.lstrip()[:1] == b"<"):
        doc = html_to_document(url, page.data, page.url)
        return doc
    suffix = ".pdf" if page.content_type == "application/pdf" else ".txt"
    doc = parse_bytes(f"page{suffix}", page.data)
    return Document(
        doc.doc_id,
        url,
        doc.sha256,
        doc.pages,
        doc.kind,
        doc.warnings,
        doc.encoding,
        meta={"url": page.url, "title": url},
    )


def load_url(
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_mb: float = DEFAULT_FETCH_MB,
    cache: PageCache | None = None,
) -> Document:
    """Fetch and parse ``url`` into a document (see :func:`fetch`)."""
    return fetched_to_document(url, fetch(url, timeout, max_mb, cache))
