"""Loopback web servers for the source tests: pages as a real site serves them, and a SearXNG instance.

``PageServer`` serves the fixture pages in ``tests/fixtures/web`` and the awkward cases: a redirect chain,
a 404, a page that answers too slowly, one larger than any cap, an image, and a page in ISO-8859-1 whose
charset is only in its ``Content-Type`` header. ``FakeSearxng`` answers ``GET /search?q=…&format=json``
with SearXNG's own JSON shape (``query``, ``number_of_results``, ``results[]`` of ``url``/``title``/
``content``/``engine``/``score``…), picking the results whose keywords appear in the query.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.fake_servers import _Handler
from tests.fake_servers import _Server as _Base

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "web"


class PageServer(_Base):
    """``pages`` maps a path to ``(status, content type, body)``; the built-in routes cover the failures."""

    def __init__(self, slow_s: float = 3.0) -> None:
        super().__init__(_PageHandler)
        self.slow_s = slow_s
        self.agents: list[str] = []  # the User-Agent of every request
        self.pages: dict[str, tuple[int, str, bytes]] = {
            "/article": (200, "text/html; charset=utf-8", (FIXTURES / "article.html").read_bytes()),
            "/news": (200, "text/html; charset=utf-8", (FIXTURES / "news.html").read_bytes()),
            "/latin1": (200, "text/html; charset=iso-8859-1", (FIXTURES / "latin1.html").read_bytes()),
            "/notes.txt": (
                200,
                "text/plain; charset=utf-8",
                b"Plain text notes: the kiln runs at 1,280 degrees.",
            ),
            "/image.png": (200, "image/png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),
            "/empty": (
                200,
                "text/html",
                b"<html><head><title>App</title></head><body><script>boot()</script></body></html>",
            ),
        }


class _PageHandler(_Handler):  # HTTP/1.1, quiet log
    def do_GET(self) -> None:
        srv: PageServer = self.server.owner  # type: ignore[attr-defined]
        srv.requests.append(self.path)
        srv.agents.append(self.headers.get("User-Agent", ""))
        path = urlparse(self.path).path
        if path == "/redirect":
            return self._redirect("/redirect2")
        if path == "/redirect2":
            return self._redirect("/article")
        if path == "/go":  # an open redirect, as a hostile page would offer: /go?to=<any URL>
            return self._redirect(parse_qs(urlparse(self.path).query)["to"][0])
        if path == "/loop":
            return self._redirect("/loop")
        if path == "/slow":
            time.sleep(srv.slow_s)
            return self._send(200, "text/html", b"<html><body><p>late</p></body></html>")
        if path == "/huge":
            return self._send(
                200, "text/html", b"<html><body>" + b"<p>filler text</p>" * 800_000 + b"</body></html>"
            )
        status, ctype, body = srv.pages.get(
            path, (404, "text/html", b"<html><body><h1>Not found</h1></body></html>")
        )
        self._send(status, ctype, body)

    def _redirect(self, target: str) -> None:
        self.send_response(302)
        self.send_header("Location", target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status: int, ctype: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # a client stopped at its size cap
            self.wfile.write(body)


class FakeSearxng(_Base):
    """``index`` maps a keyword to result dicts; a query gets every result whose keyword it contains."""

    def __init__(self, index: dict[str, list[dict[str, str]]], json_enabled: bool = True) -> None:
        super().__init__(_SearxngHandler)
        self.index, self.json_enabled = index, json_enabled


class _SearxngHandler(_Handler):  # HTTP/1.1, quiet log
    def do_GET(self) -> None:
        srv: FakeSearxng = self.server.owner  # type: ignore[attr-defined]
        srv.requests.append(self.path)
        url = urlparse(self.path)
        params = parse_qs(url.query)
        if url.path != "/search" or params.get("format") != ["json"] or not srv.json_enabled:
            body = b"Forbidden"
            self.send_response(403)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        query = params.get("q", [""])[0]
        results = []
        for keyword, rows in srv.index.items():
            if keyword.lower() in query.lower():
                for i, r in enumerate(rows):
                    row = dict(url=r["url"], title=r.get("title", ""), content=r.get("content", ""))
                    row.update(engine="duckduckgo", engines=["duckduckgo"], positions=[i + 1])
                    row.update(score=1.0 / (i + 1), category="general", parsed_url=list(urlparse(r["url"])))
                    results.append(row)
        data = json.dumps(
            {
                "query": query,
                "number_of_results": len(results),
                "results": results,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
