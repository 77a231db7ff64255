"""One parse worker seen from the parent: the process, and a watchdog thread that reads its frames into a
queue and stops it at a breach — resident memory (with the OCR program it runs) over the cap, the wall
clock past the deadline, output over the cap, or a death of its own (CPU seconds, a crash). The thread
never calls back into the caller: events are taken from the queue by the caller's own thread, so progress
reaches the app's script thread and a Ctrl-C or a rerun lands there."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit.ingestion.limits import ENV, Limits, size_text
from ragkit.ingestion.worker.protocol import BYTES, HEADER, JSON, Request, status_kb, write_frame, write_json

POLL_S = 0.02  # how often the watchdog looks at memory and the clock
#: the worker's own deadline check (between pages, with a page number in its message) gets this long
#: before the watchdog stops it inside a page
GRACE_S = 1.0


@dataclass
class Breach:
    """A request that ended without an answer from the worker: the cause, for the file's error."""

    cause: str


def _tree_rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` and its descendants (the OCR program), in KB."""
    total, todo, seen = 0, [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        total += status_kb(p).get("VmRSS", 0)
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(int(c) for c in f.read().split())
    return total


#: the folder holding the ragkit package this process imported
_OWN_ROOT = str(Path(__file__).resolve().parents[3])


class WorkerProcess:
    """A started worker (``warm``: importing every parser in the background until its ``ready`` frame
    arrives; else each parser the first time a file needs it)."""

    def __init__(self, memory_mb: float, warm: bool = False) -> None:
        self.memory_mb = memory_mb
        env = dict(os.environ, MALLOC_ARENA_MAX="2", PYTHONUNBUFFERED="1")
        # the child imports the ragkit this process runs (-P: not a module of the working directory, where
        # a checkout of other code, or a file named like a parser's library, would win)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_OWN_ROOT, os.environ.get("PYTHONPATH")) if p)
        args = [str(memory_mb), *(["--warm"] * warm)]
        self.proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "ragkit.ingestion.worker.child", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True,
        )  # fmt: skip
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.ready = threading.Event()
        self.info: dict[str, Any] = {}
        self.files = 0  # requests answered
        self._lock = threading.Lock()
        self._deadline: float | None = None
        self._busy = False
        self._limits = Limits(memory_mb=memory_mb)
        self._where = ""  # the page the current request was last heard at
        self._stopped: str | None = None
        self._thread = threading.Thread(target=self._watch, name=f"parse-worker-{self.proc.pid}", daemon=True)
        self._thread.start()

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None and self._stopped is None

    def send(self, req: Request, limits: Limits) -> None:
        """Hand the worker one request (it must be idle); its events follow on :attr:`events`."""
        with self._lock:
            self._limits = limits
            self._where = ""
            self._busy = True
        try:
            assert self.proc.stdin is not None
            fd = self.proc.stdin.fileno()
            write_json(fd, req.header())
            if req.data is not None:
                write_frame(fd, BYTES, req.data)
        except OSError:
            self._stop("the parse worker stopped before it could read the file")

    def kill(self) -> None:
        """Stop the worker now (idempotent); a caller waiting on it is told the parse was stopped."""
        if self._stopped is None:
            self._stopped = "killed"
            self.events.put(("breach", Breach("not parsed: the parse was stopped")))
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]

    def _stop(self, cause: str) -> None:
        """A breach: stop the worker and tell the waiting caller why (once)."""
        if self._stopped is not None:
            return
        self._stopped = cause
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.events.put(("breach", Breach(cause)))

    # ------------------------------------------------------------------ the watchdog thread

    def _watch(self) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        buf = bytearray()
        need: int | None = None  # payload size of the frame being read
        try:
            while self._stopped is None:
                ready, _, _ = select.select([fd], [], [], POLL_S)
                if ready:
                    block = os.read(fd, 1 << 20)
                    if not block:
                        self._ended()
                        return
                    buf += block
                    while True:
                        if need is None and len(buf) >= HEADER.size:
                            kind, need = HEADER.unpack(buf[: HEADER.size])
                            if kind != JSON or need > self._limits.output_mb * 1024 * 1024:
                                self._stop(self._over_output(need))
                                return
                            del buf[: HEADER.size]
                        if need is None or len(buf) < need:
                            break
                        self._event(json.loads(bytes(buf[:need])))
                        del buf[:need]
                        need = None
                self._check()
        except (OSError, ValueError) as e:
            if self._stopped is None:
                self._stop(f"the parse worker failed ({type(e).__name__})")

    def _event(self, msg: dict[str, Any]) -> None:
        kind = msg.pop("event")
        if kind == "ready":
            self.info = msg
            self.ready.set()
            return
        if kind == "start":  # the clock runs from here, not from a wait for the worker's imports
            with self._lock:
                self._deadline = time.monotonic() + self._limits.parse_s + GRACE_S
            return
        if kind == "page":
            self._where = f"page {msg['done'] + 1} of {msg['total']}" if msg["done"] < msg["total"] else ""
            self.events.put(("page", (msg["done"], msg["total"])))
            return
        if kind == "memory":
            self._stop(self._over_memory())
            return
        with self._lock:
            self._deadline, self._busy = None, False
        self.files += 1
        if msg.pop("exiting", False):
            self._stopped = "exited"  # it answered, then left: the next file needs another worker
        self.events.put((kind, msg))  # "done" or "error"

    def _check(self) -> None:
        with self._lock:
            deadline, limits, busy = self._deadline, self._limits, self._busy
        if not busy:
            return  # idle or warming up: nothing to watch
        if deadline is not None and time.monotonic() > deadline:
            where = f"; stopped inside {self._where}" if self._where else ""
            self._stop(f"parsing took more than {limits.parse_s:g} s ({ENV['parse_s'][0]}{where}): refused")
        elif _tree_rss_kb(self.proc.pid) > self.memory_mb * 1024:
            self._stop(self._over_memory())

    def _over_memory(self) -> str:
        return (
            f"parsing used more than {size_text(self.memory_mb)} of memory ({ENV['memory_mb'][0]}): refused"
        )

    def _over_output(self, size: int) -> str:
        cap = f"{size_text(self._limits.output_mb)} cap ({ENV['output_mb'][0]})"
        mb = size / 1024 / 1024
        return f"parsing produced {mb:,.{1 if mb < 10 else 0}f} MB of output, over the {cap}: refused"

    def _ended(self) -> None:
        """The worker closed its output: it exited (a CPU-time kill, a crash, a memory failure)."""
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        if code is not None and -code == signal.SIGXCPU:
            cause = (
                f"parsing used more than {self._limits.cpu_s:g} s of CPU time ({ENV['cpu_s'][0]}): refused"
            )
        elif code == 3:
            cause = self._over_memory()
        elif code is not None and code < 0:
            cause = f"the parser crashed ({signal.Signals(-code).name}): not indexed"
        else:
            cause = f"the parse worker exited unexpectedly (code {code}): not indexed"
        self._stop(cause)


_SPAWNER: list[Any] = []  # one long-lived thread that starts every worker
_SPAWN_LOCK = threading.Lock()


def start_worker(memory_mb: float, warm: bool = False) -> WorkerProcess:
    """A new worker, started from a thread that lives as long as this process: a worker dies with the
    *thread* that started it (Linux's parent-death signal), and the app's script threads, or a web
    answer's fetch threads, end long before the workers they would start."""
    import concurrent.futures

    with _SPAWN_LOCK:
        if not _SPAWNER:
            _SPAWNER.append(concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="parse-spawner"))
    return _SPAWNER[0].submit(WorkerProcess, memory_mb, warm).result()
