"""Parse sessions: the files of one batch parsed, one after another, by one warm worker; the next file
can be handed over while the caller works on the last one (one in flight).

A worker is replaced after a breach, a crash or a parser failure, and when it holds more than half its
memory cap after a file (a grown heap: the next file starts with at least half the cap free, while the
layout engine's own warm state, some 250 MB, is kept). In a process that serves visitors (the app) a
worker serves one session only — another user's files never meet a worker that parsed someone else's —
and a pool keeps a spare warm so a batch or a web answer never waits for the parsers' imports; in a
process of one user (the CLI, a script) a healthy worker goes on to that user's next batch.
``RAGKIT_PARSE_WORKERS`` (default 2) bounds how many sessions parse at once, so simultaneous bombs cost
at most that many memory caps.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.types import Document
from ragkit.ingestion.limits import Limits
from ragkit.ingestion.worker.process import Breach, WorkerProcess, start_worker
from ragkit.ingestion.worker.protocol import Request

#: a worker holding more than this share of its memory cap after a file is replaced (a grown heap)
RECYCLE_AT = 0.5
WORKERS_ENV = "RAGKIT_PARSE_WORKERS"
READY_TIMEOUT_S = 180.0  # the parsers' imports, on a busy machine

PageCallback = Callable[[int, int], None]


class WorkerPool:
    """Spare warm workers (none unless :meth:`keep_warm` asked for them) and the bound on live sessions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spares: list[WorkerProcess] = []  # warm, never used
        self._idle: list[WorkerProcess] = []  # used by this process's one user, healthy
        self._keep = 0
        self._live: set[WorkerProcess] = set()
        slots = int(os.environ.get(WORKERS_ENV, "2") or 2)
        self.slots = threading.BoundedSemaphore(max(1, slots))

    def keep_warm(self, n: int = 1, wait: float = 0.0, after_s: float = 0.0) -> None:
        """Keep ``n`` workers started ahead with every parser imported, so a batch or a web answer begins
        without waiting for imports; ``wait``: seconds to wait for them to be ready; ``after_s``: start
        them that much later, in the background (the app's first page settles first)."""
        with self._lock:
            self._keep = n
        if after_s > 0:
            timer = threading.Timer(after_s, self._refill, (Limits.from_env().memory_mb,))
            timer.daemon = True
            timer.start()
            return
        self._refill(Limits.from_env().memory_mb)
        deadline = time.monotonic() + wait
        for w in list(self._spares):
            w.ready.wait(max(0.0, deadline - time.monotonic()))

    def take(self, memory_mb: float) -> WorkerProcess:
        """A worker with this memory cap: this user's idle one (not when serving visitors), a warm spare no
        one has used, else a new one."""
        from ragkit.ingestion.netpolicy import serving_visitors

        with self._lock:
            if serving_visitors():  # never hand one user's worker to another
                for w in self._idle:
                    w.kill()
                self._idle.clear()
            pick = next((w for w in self._idle + self._spares if w.alive and w.memory_mb == memory_mb), None)
            for pool in (self._idle, self._spares):
                if pick in pool:
                    pool.remove(pick)
        worker = pick or start_worker(memory_mb)
        with self._lock:
            self._live.add(worker)
        return worker  # the spare is replaced when the session is done: its imports would compete now

    def release(self, worker: WorkerProcess, healthy: bool = False) -> None:
        """A session is done with ``worker``: kept for the same user's next batch when it is healthy and
        this process serves no visitors, else stopped."""
        from ragkit.ingestion.netpolicy import serving_visitors

        with self._lock:
            self._live.discard(worker)
            keep = healthy and worker.alive and not serving_visitors() and not self._idle
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.kill()
        self._refill(worker.memory_mb)

    def _refill(self, memory_mb: float) -> None:
        with self._lock:
            for w in [w for w in self._spares if not w.alive or w.memory_mb != memory_mb]:
                w.kill()
                self._spares.remove(w)
            while len(self._spares) > self._keep:
                self._spares.pop().kill()
            while len(self._spares) < self._keep:
                self._spares.append(start_worker(memory_mb, warm=True))

    def shutdown(self) -> None:
        """Stop every worker (at exit; a worker also dies with its parent)."""
        with self._lock:
            workers = [*self._spares, *self._idle, *self._live]
            self._spares, self._idle, self._live, self._keep = [], [], set(), 0
        for w in workers:
            w.kill()


POOL = WorkerPool()
atexit.register(POOL.shutdown)


class ParseSession:
    """``with ParseSession() as s: doc = s.parse(Request(...))``; or ``s.submit(req)`` … ``s.result()``
    to let the worker parse while this thread does something else, calling ``s.pump()`` now and then
    to pass on page progress. Errors are ``DocumentError``s naming the file."""

    def __init__(self, pool: WorkerPool | None = None) -> None:
        self.pool = pool or POOL
        self._worker: WorkerProcess | None = None
        self._pending: tuple[Request, PageCallback | None, Limits] | None = None
        self._backlog: collections.deque[tuple[str, Any]] = collections.deque()
        self._lock = threading.Lock()  # one file at a time
        self._state = threading.Lock()  # worker, slot and closing, changed together
        self._slot = False  # a slot is taken with the first file, so a session that parses nothing is free
        self.closed = False

    def __enter__(self) -> ParseSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a session dropped unclosed must not keep its slot
        with contextlib.suppress(Exception):
            self.close()

    def close(self) -> None:
        """Stop the session's worker (a file in flight is abandoned: its waiter gets an error) and free its
        slot; the session takes no more files (safe from another thread)."""
        with self._state:
            self.closed = True
            worker, self._worker = self._worker, None
            slot, self._slot = self._slot, False
        if worker is not None:
            self.pool.release(worker, healthy=self._pending is None)
        if slot:
            self.pool.slots.release()

    def parse(self, req: Request, on_page: PageCallback | None = None) -> Document:
        """Parse one file and wait for it (thread-safe: concurrent callers take turns)."""
        with self._lock:
            self.submit(req, on_page)
            return self.result()

    def submit(self, req: Request, on_page: PageCallback | None = None) -> None:
        """Hand one file to the worker and return at once."""
        if self._pending is not None:
            raise RuntimeError("a file is already being parsed in this session")
        stopped = DocumentError(req.name, "not parsed: the batch was stopped")
        while not self._slot:  # waiting for a slot never outlasts the session
            if self.closed:
                raise stopped
            if self.pool.slots.acquire(timeout=0.2):
                with self._state:
                    if self.closed:
                        self.pool.slots.release()
                        raise stopped
                    self._slot = True
        limits = Limits.from_env()
        req.env = Limits.environment()
        with self._state:
            if self.closed:
                raise stopped
            w = self._worker
            if w is None or not w.alive or w.memory_mb != limits.memory_mb:
                if w is not None:
                    self.pool.release(w)
                w = self._worker = self.pool.take(limits.memory_mb)
            self._backlog.clear()
            self._pending = (req, on_page, limits)
        w.send(req, limits)

    def pump(self) -> None:
        """Pass on the page progress the worker has sent so far, without waiting."""
        if self._pending is None or self._worker is None:
            return
        while True:
            try:
                self._backlog.append(self._worker.events.get_nowait())
            except queue.Empty:
                break
        self._deliver_pages()

    def result(self) -> Document:
        """Wait for the file handed over last: its document, or a ``DocumentError`` naming it."""
        if self._pending is None:
            raise RuntimeError("no file is being parsed in this session")
        req, _, _ = self._pending
        w = self._worker
        if w is None:
            raise DocumentError(req.name, "not parsed: the batch was stopped")
        started = time.monotonic()
        while True:
            self._deliver_pages()
            if self._backlog:
                kind, payload = self._backlog.popleft()
                break
            try:
                self._backlog.append(w.events.get(timeout=0.1))
            except queue.Empty:
                if not w.ready.is_set() and time.monotonic() - started > READY_TIMEOUT_S:
                    w.kill()
                    kind, payload = "breach", Breach("the parse worker did not start: not indexed")
                    break
        self._pending = None
        if kind == "done":
            if payload.get("rss_kb", 0) > w.memory_mb * 1024 * RECYCLE_AT:
                self._drop(w)  # a heap that grew stays grown: the next file starts with half the cap free
            return Document.from_dict(payload["doc"])
        if kind == "error":
            raise DocumentError(payload["file"], payload["cause"])
        self._drop(w)
        raise DocumentError(req.name, payload.cause)

    def _drop(self, w: WorkerProcess) -> None:
        with self._state:
            if self._worker is w:
                self._worker = None
        self.pool.release(w)

    def _deliver_pages(self) -> None:
        """Page events at the head of the backlog, to the caller's callback (in the caller's thread)."""
        on_page = self._pending[1] if self._pending else None
        while self._backlog and self._backlog[0][0] == "page":
            done, total = self._backlog.popleft()[1]
            if on_page is not None:
                on_page(done, total)
