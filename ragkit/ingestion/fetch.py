"""Fetching web pages: a timeout, a size cap counted on the bytes received, a clear User-Agent and at most
five redirects; every failure is that URL's error. Pages can go through an on-disk cache (web search
replays the same pages)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.errors import DocumentError
from ragkit.core.types import Document
from ragkit.ingestion.html import html_to_document
from ragkit.ingestion.netpolicy import FetchPolicy, FetchRefused, policy_client

USER_AGENT = f"ragkit/{__version__} (research RAG workbench; +https://pypi.org/project/ragkit/)"


HTML_TYPES = ("text/html", "application/xhtml+xml")


ACCEPTED_TYPES = (*HTML_TYPES, "text/plain", "text/markdown", "application/pdf")


DEFAULT_TIMEOUT_S = 15.0


DEFAULT_FETCH_MB = 10.0


def is_url(text: str) -> bool:
    return str(text).lower().startswith(("http://", "https://"))


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
        from ragkit.core.files import atomic_write

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
        from ragkit.core.files import atomic_write

        self.dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self._key(key).with_suffix(".json"), lambda f: json.dump({"value": value}, f))


def fetch(
    url: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    max_mb: float = DEFAULT_FETCH_MB,
    cache: PageCache | None = None,
    policy: FetchPolicy | None = None,
) -> Fetched:
    """GET ``url`` (redirects followed) under the fetch policy (default: the environment's, see
    :mod:`ragkit.ingestion.netpolicy`); a ``DocumentError`` naming the URL for every failure."""
    import httpx

    policy = policy or FetchPolicy.from_env()
    try:
        policy.check_url(url)  # before the cache too: a page cached under another policy is not served
    except FetchRefused as e:
        raise DocumentError(url, f"refused: {e}") from None
    if cache is not None:
        hit = cache.get(url)
        if hit is not None:
            return hit
    limit = int(max_mb * 1024 * 1024)
    hops: list[str] = []
    try:
        with (
            policy_client(
                policy, hops, follow_redirects=True, max_redirects=5, timeout=timeout,
                headers={"User-Agent": USER_AGENT},
            ) as client,
            client.stream("GET", url) as resp,
        ):  # fmt: skip
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
    except FetchRefused as e:
        where = f"redirected to {hops[-1]}, which was " if hops and hops[-1] != url else ""
        raise DocumentError(url, f"{where}refused: {e}") from None
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
    from ragkit.ingestion.parse import parse_bytes

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
    policy: FetchPolicy | None = None,
) -> Document:
    """Fetch and parse ``url`` into a document (see :func:`fetch`)."""
    return fetched_to_document(url, fetch(url, timeout, max_mb, cache, policy))
