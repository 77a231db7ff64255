"""Turning what the user named (files, folders, URLs, uploads) into parsed documents with distinct names,
each parsed in the bounded parse worker; every failure is that input's error."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.types import Document
from ragkit.index.reports import FileReport, IngestProgress
from ragkit.ingestion.reading import DEFAULT_MAX_MB, SUPPORTED_SUFFIXES
from ragkit.ingestion.worker import ParseSession, Request

log = logging.getLogger(__name__)


@dataclass
class Parsed:
    """One input after parsing: its document name, the document (or the error), and where it came from
    (the resolved path of a file on disk; ``None`` for uploads and generated documents)."""

    name: str
    item: Document | DocumentError
    origin: str | None = None


@dataclass(frozen=True)
class InputFile:
    """A file to read: the name it will be indexed under, its path, its resolved path (identity), and
    the folder the user named (a symlink may not lead outside it)."""

    name: str
    path: Path
    origin: str
    root: Path
    parts: tuple[str, ...]  # path components as given, for disambiguation


def expand_inputs(
    paths: Iterable[str | os.PathLike[str]],
) -> tuple[list[InputFile], list[FileReport]]:
    """Files named on the command line, with folders expanded (recursively, supported types only).

    Returns the inputs and a report for each argument that cannot be an input (missing path).
    """
    inputs: list[InputFile] = []
    errors: list[FileReport] = []
    for arg in paths:
        p = Path(arg)
        if p.is_dir() and not p.is_symlink():
            base = p.resolve()
            for f in sorted(p.rglob("*")):
                if f.suffix.lower() not in SUPPORTED_SUFFIXES or (f.is_dir() and not f.is_symlink()):
                    continue
                rel = f.relative_to(p)
                parts = (*_parts(p), *rel.parts)
                name = "/".join((p.resolve().name or p.name, *rel.parts))
                inputs.append(InputFile(name, f, _origin(f), base, parts))
        elif not p.exists() and not p.is_symlink():
            errors.append(
                FileReport.failed(p.name or str(p), DocumentError(p.name or str(p), "no such file"))
            )
        else:
            inputs.append(InputFile(p.name, p, _origin(p), p.parent.resolve(), _parts(p)))
    return _disambiguate(inputs), errors


def _parts(p: Path) -> tuple[str, ...]:
    return tuple(x for x in Path(os.path.normpath(p)).parts if x not in ("/", "."))


def _origin(p: Path) -> str:
    """The absolute path a file was read from (symlinks not resolved: the link is what the user named)."""
    return str(Path(os.path.abspath(p)))


def _disambiguate(inputs: list[InputFile]) -> list[InputFile]:
    """Rename inputs that share a name but are different files: longer path suffixes until unique."""
    by_name: dict[str, list[int]] = {}
    for i, x in enumerate(inputs):
        by_name.setdefault(x.name, []).append(i)
    out = list(inputs)
    for idxs in by_name.values():
        if len({inputs[i].origin for i in idxs}) <= 1:
            continue
        names = distinct_suffixes([inputs[i].parts for i in idxs])
        for i, name in zip(idxs, names, strict=True):
            x = inputs[i]
            out[i] = InputFile(name, x.path, x.origin, x.root, x.parts)
    return out


def distinct_suffixes(paths: Sequence[Sequence[str]]) -> list[str]:
    """The shortest trailing path of each that tells them all apart (``dirA/notes.txt``); paths that are
    equal to the last component get a numbered name."""
    depth = 1
    longest = max(len(p) for p in paths)
    while depth <= longest:
        names = ["/".join(p[-depth:]) for p in paths]
        if len(set(names)) == len(names):
            return names
        depth += 1
    names = ["/".join(p) for p in paths]
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else numbered(n, seen[n]))
    return out


def numbered(name: str, k: int) -> str:
    """``notes (2).txt``: the k-th file of one name."""
    stem, dot, suffix = name.rpartition(".")
    return f"{stem} ({k}).{suffix}" if dot and stem else f"{name} ({k})"


@dataclass(frozen=True)
class _Job:
    """One input of a stream: its name and origin, its progress stage, and how to make its request (a
    URL is fetched here, in this process, by ``make``; its body is parsed by the worker)."""

    name: str
    origin: str | None
    stage: str  # "parse" or "fetch"
    make: Callable[[], Request]


class ParseStream:
    """Inputs parsed in the parse worker (:mod:`ragkit.ingestion.worker`), in order and one ahead:
    iterating yields each :class:`Parsed` as soon as it is ready, while the worker already parses the next
    one — so the caller embeds one file as the worker parses the next, and holds at most two documents.
    ``pump()`` passes on the next file's page progress while the caller is busy; closing the stream (or
    leaving its ``with``) stops the worker, a file in flight included (a Ctrl-C, a Stop in the app)."""

    def __init__(
        self,
        inputs: Sequence[InputFile] = (),
        urls: Sequence[str] = (),
        max_mb: float = DEFAULT_MAX_MB,
        follow_symlinks: bool = False,
        progress: IngestProgress | None = None,
        settings: Any = None,
        uploads: Sequence[tuple[str, bytes]] = (),
        fetch_timeout: float | None = None,
        fetch_mb: float | None = None,
    ) -> None:
        self.progress = progress
        opts = settings.__dict__ if settings is not None else {}

        def from_disk(x: InputFile) -> Request:  # the worker reads the file: this process never holds it
            return Request(x.name, path=str(x.path), max_mb=max_mb, root=str(x.root),
                           follow_symlinks=follow_symlinks, settings=opts)  # fmt: skip

        jobs = [_Job(x.name, x.origin, "parse", lambda x=x: from_disk(x)) for x in inputs]
        jobs += [
            _Job(n, None, "parse", lambda n=n, d=d: Request(n, data=d, max_mb=max_mb, settings=opts))
            for n, d in uploads
        ]
        jobs += [_Job(u, None, "fetch", lambda u=u: _fetched(u, fetch_timeout, fetch_mb)) for u in urls]
        self.jobs = jobs
        self._session: ParseSession | None = None
        self._gen: Iterator[Parsed] | None = None

    def __len__(self) -> int:
        return len(self.jobs)

    def __iter__(self) -> Iterator[Parsed]:
        if self._gen is None:
            self._gen = self._run()
        return self._gen

    def __enter__(self) -> ParseStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._gen is not None:
            self._gen.close()  # leaves the session: its worker stops

    def pump(self) -> None:
        """Pass on the page progress of the file being parsed (call it while busy with the last one)."""
        if self._session is not None:
            self._session.pump()

    def _run(self) -> Iterator[Parsed]:
        if not self.jobs:
            return
        totals = {s: sum(j.stage == s for j in self.jobs) for s in ("parse", "fetch")}
        done = dict.fromkeys(totals, 0)
        with ParseSession() as session:
            self._session = session
            try:
                ahead = self._start(self.jobs[0])
                for k, job in enumerate(self.jobs):
                    item = ahead if ahead is not None else self._finish(job)
                    done[job.stage] += 1
                    if self.progress:
                        self.progress(job.stage, done[job.stage], totals[job.stage])
                    ahead = self._start(self.jobs[k + 1]) if k + 1 < len(self.jobs) else None
                    yield Parsed(job.name, item, job.origin)
            finally:
                self._session = None

    def _start(self, job: _Job) -> DocumentError | None:
        """Hand ``job`` to the worker; its error when it fails before (a URL that cannot be fetched)."""
        assert self._session is not None
        try:
            req = job.make()
        except DocumentError as e:
            return e

        def pages(done: int, total: int) -> None:
            if self.progress:
                self.progress(f"page {job.name}", done, total)

        self._session.submit(req, pages)
        return None

    def _finish(self, job: _Job) -> Document | DocumentError:
        assert self._session is not None
        try:
            return self._session.result()
        except DocumentError as e:
            return e


def _fetched(url: str, timeout: float | None, max_mb: float | None) -> Request:
    """Fetch ``url`` here (the fetch policy, timeout and size cap apply); its body for the worker."""
    from ragkit.ingestion.fetch import DEFAULT_FETCH_MB, DEFAULT_TIMEOUT_S, fetch

    return Request.for_page(url, fetch(url, timeout or DEFAULT_TIMEOUT_S, max_mb or DEFAULT_FETCH_MB))


def parse_urls(
    urls: Sequence[str],
    timeout: float | None = None,
    max_mb: float | None = None,
    progress: IngestProgress | None = None,
) -> list[Parsed]:
    """Fetch each URL and parse it in the worker (a document named by its URL); every failure is that
    URL's error."""
    with ParseStream(urls=urls, progress=progress, fetch_timeout=timeout, fetch_mb=max_mb) as stream:
        return list(stream)


def guarded_parse(name: str, parse: Callable[[], Document]) -> Document | DocumentError:
    """``parse()``, with any failure turned into a ``DocumentError`` for this file alone."""
    try:
        return parse()
    except DocumentError as e:
        return e
    except MemoryError:
        return DocumentError(name, "not enough memory to parse the file")
    except RecursionError:
        return DocumentError(name, "the file is nested too deeply to parse")
    except Exception as e:  # a parser bug on one file must not lose the batch
        log.exception("unexpected error parsing %s", name)
        return DocumentError(name, f"could not be parsed ({type(e).__name__}: {e})")


def skip_unchanged(
    store: Any, inputs: Sequence[Any], max_mb: float, follow_symlinks: bool, settings: Any
) -> tuple[list[Any], list[FileReport]]:
    """The inputs that need parsing, and a report for each one the index already holds as it is: same
    name, same bytes (sha256; reading and hashing a file costs milliseconds, parsing a PDF seconds) and,
    for a PDF, the same parser settings. Anything unreadable is left for the parser to report."""
    from ragkit.core.hashing import sha256_bytes
    from ragkit.ingestion.parsing import ParseSettings
    from ragkit.ingestion.reading import read_regular_file

    pdf_key = (settings or ParseSettings()).key()
    todo, same = [], []
    for x in inputs:
        existing = store.find_source(x.name)
        if existing is None:
            todo.append(x)
            continue
        old = store.documents[existing]
        try:
            data = read_regular_file(
                x.path, max_mb, name=x.name, root=x.root, follow_symlinks=follow_symlinks
            )
        except (DocumentError, OSError):
            todo.append(x)
            continue
        parser_same = old.kind != "pdf" or old.meta.get("parser") == pdf_key
        if sha256_bytes(data) != old.sha256 or not parser_same:
            todo.append(x)
            continue
        rep = FileReport.for_document(x.name, old)
        rep.action, rep.chunks = "unchanged", store.doc_info[existing]["chunks"]
        same.append(rep)
    return todo, same
