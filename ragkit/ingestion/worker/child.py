"""The parse worker process: ``python -m ragkit.ingestion.worker.child MEMORY_MB [--warm]``. It imports the
parsers (once, as files need them, or all at start with ``--warm``), caps its own address space, then
parses one request after another, sending page progress and the document (or the file's error) back as
frames. It dies with its parent and ignores Ctrl-C (the parent decides what a Ctrl-C stops)."""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import logging
import os
import resource
import signal
import sys
import time
from typing import Any

from ragkit.ingestion.worker.protocol import (
    BYTES,
    JSON,
    Request,
    read_frame,
    status_kb,
    write_frame,
    write_json,
)

#: what each kind of file needs imported (importing PyMuPDF also loads the layout engine's ONNX models,
#: seconds): imported for the first file that needs it, or all at once by a spare kept warm
NEEDS = {
    "pdf": ("pymupdf", "pymupdf4llm.helpers.document_layout", "pdfplumber"),
    "image": ("pymupdf", "pymupdf4llm.helpers.document_layout"),
    "html": ("trafilatura",),
    "docx": ("docx",),
    "text": ("charset_normalizer",),
}
BASE = ("ragkit.ingestion.parse", "ragkit.ingestion.fetch")
PROGRESS_EVERY_S = 0.05  # page events at most this often (and always the last page)
MB = 1024 * 1024


def _die_with_parent() -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: killed when the parent goes, whatever way
    if os.getppid() == 1:  # the parent died before prctl took effect
        os._exit(1)


class _Memory:
    """The address-space cap (set by the OS): what is mapped once the parsers are imported, plus
    ``memory_mb``; raised only to import a parser a file needs, never while a file is parsed."""

    def __init__(self, memory_mb: float) -> None:
        self.memory_mb, self.limit = memory_mb, 0
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash writes no core file

    def ensure(self, modules: tuple[str, ...]) -> None:
        """Import ``modules`` (those not yet imported) above the cap, then set the cap from what is mapped;
        with no modules, set it again (after a warm-up)."""
        missing = [m for m in modules if m not in sys.modules]
        if self.limit and modules and not missing:
            return
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        for module in missing:
            with contextlib.suppress(ImportError):
                importlib.import_module(module)
        self.limit = status_kb().get("VmSize", 0) * 1024 + int(self.memory_mb * MB)
        soft = self.limit if hard == resource.RLIM_INFINITY else min(self.limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _kind(req: Request) -> str:
    """Which parsers a request needs."""
    from ragkit.ingestion.reading import SUPPORTED_SUFFIXES

    if req.fetched is not None:
        ctype = req.fetched.get("content_type", "")
        return "pdf" if ctype == "application/pdf" else "text" if ctype.startswith("text/plain") else "html"
    kind = SUPPORTED_SUFFIXES.get(os.path.splitext(req.name)[1].lower(), "text")
    return kind if kind in NEEDS else "text"


def _cap_cpu(seconds: float) -> None:
    """This request's CPU seconds on top of what the worker has used: SIGXCPU (which kills it) after."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (int(used + seconds) + 1, hard))


def _set_env(env: dict[str, str]) -> None:
    from ragkit.ingestion.limits import ENV

    for var, _ in ENV.values():
        if var in env:
            os.environ[var] = env[var]
        else:
            os.environ.pop(var, None)


def parse(req: Request, progress: Any) -> Any:
    """The request's document, parsed here (raises ``DocumentError`` for the file)."""
    from ragkit.ingestion.parse import load_document, parse_bytes
    from ragkit.ingestion.parsing import ParseSettings

    settings = ParseSettings(**req.settings) if req.settings else None
    if req.fetched is not None:
        from ragkit.ingestion.fetch import Fetched, fetched_to_document

        f = req.fetched
        page = Fetched(f["url"], f["content_type"], req.data or b"", f.get("status", 200))
        return fetched_to_document(req.name, page)
    if req.data is not None:
        return parse_bytes(req.name, req.data, req.max_mb, progress, settings)
    assert req.path is not None
    return load_document(
        req.path, req.max_mb, name=req.name, root=req.root, follow_symlinks=req.follow_symlinks,
        progress=progress, settings=settings,
    )  # fmt: skip


class _Pages:
    """``progress(done, total)`` for the parser: a page frame at most every ``PROGRESS_EVERY_S``."""

    def __init__(self, fd: int) -> None:
        self.fd, self.last = fd, 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done >= total or now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            write_json(self.fd, {"event": "page", "done": done, "total": total})


def _out_of_memory(e: BaseException) -> bool:
    """Whether a ``MemoryError`` lies behind ``e`` (``raise … from None`` keeps it as the context)."""
    seen: BaseException | None = e
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, MemoryError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _trimmed_rss() -> int:
    """Resident memory (KB) once freed heap pages are handed back to the OS (glibc's ``malloc_trim``)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)
    return status_kb().get("VmRSS", 0)


def _answer(req: Request, fd_out: int, limit: int) -> None:
    """Parse one request and send the document or the file's error; exits after a failure that may have
    left the process damaged (out of memory, a parser bug), so the next file gets a fresh worker."""
    from ragkit.core.errors import DocumentError

    def fail(cause: str, code: int) -> None:
        write_json(fd_out, {"event": "error", "file": req.name, "cause": cause[:2000], "exiting": True})
        os._exit(code)

    try:
        doc = parse(req, _Pages(fd_out))
        body = {"event": "done", "doc": doc.to_dict(), "rss_kb": _trimmed_rss()}
        frame = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except DocumentError as e:
        if _out_of_memory(e):  # a parser that reports a failed allocation as a bad file
            write_json(fd_out, {"event": "memory"})
            os._exit(3)
        write_json(fd_out, {"event": "error", "file": e.file, "cause": e.cause})
        return
    except MemoryError:
        write_json(fd_out, {"event": "memory"})
        os._exit(3)
    except RecursionError:
        fail("the file is nested too deeply to parse", 4)
    except Exception as e:
        if status_kb().get("VmPeak", 0) * 1024 >= limit - 32 * MB:  # a C library out of memory
            write_json(fd_out, {"event": "memory"})
            os._exit(3)
        logging.getLogger(__name__).exception("unexpected error parsing %s", req.name)
        fail(f"could not be parsed ({type(e).__name__}: {e})", 5)
    write_frame(fd_out, JSON, frame)


def _warm_up() -> None:
    """Parse a tiny page and a tiny PDF once: the parsers' first call loads more than their import (a web
    page's first parse took 0.95 s in a freshly imported worker, the next 0.07 s)."""
    import pymupdf

    from ragkit.ingestion.fetch import Fetched, fetched_to_document
    from ragkit.ingestion.parse import parse_bytes

    url = "https://example.org/warm"
    html = b"<html><head><title>Warm</title><meta name='date' content='2024-01-02'></head><body><article>"
    html += b"<h1>Warm</h1><p>" + b"Warm words for the parser. " * 40 + b"</p></article></body></html>"
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Warm words.")
    with contextlib.suppress(Exception):
        fetched_to_document(url, Fetched(url, "text/html", html))  # as a web answer's pages are read
    for name, data in (("warm.pdf", pdf.tobytes()), ("w.txt", b"w")):
        with contextlib.suppress(Exception):
            parse_bytes(name, data)


def serve(memory_mb: float, warm: bool, fd_in: int, fd_out: int) -> None:
    """Report ready (a spare after importing every parser and using it once), then answer requests until
    stdin closes."""
    memory = _Memory(memory_mb)
    memory.ensure(BASE + (tuple(m for ms in NEEDS.values() for m in ms) if warm else ()))
    if warm:
        _warm_up()
        memory.ensure(())  # the cap from what is mapped now
    write_json(fd_out, {"event": "ready", **status_kb()})
    from ragkit.ingestion.limits import Limits

    while (frame := read_frame(fd_in)) is not None:
        header = json.loads(frame[1])
        data = None
        if header.get("has_data"):
            body = read_frame(fd_in)
            if body is None or body[0] != BYTES:
                return
            data = body[1]
        req = Request.from_header(header, data)
        memory.ensure(NEEDS[_kind(req)])
        write_json(fd_out, {"event": "start"})  # the parent's clock for this file starts now
        _set_env(req.env)
        _cap_cpu(Limits.from_env().cpu_s)
        _answer(req, fd_out, memory.limit)
        del req, data


def main(argv: list[str]) -> None:
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    fd_out = os.dup(1)  # frames only; anything a library prints goes to stderr
    os.dup2(2, 1)
    os.set_inheritable(fd_out, False)
    with contextlib.suppress(BrokenPipeError):  # the parent went away
        serve(float(argv[1]), "--warm" in argv, 0, fd_out)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
