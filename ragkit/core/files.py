"""Files written safely: atomic replacement (temp file, fsync, rename) and exclusive ``flock`` locks that
wait for their holder, say so once, and give up with a clear error (the index writer lock and the
embedded Qdrant shard's owner lock)."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ragkit.core.errors import IndexStoreError


def wait_for_flock(
    fh: IO[Any],
    timeout: float,
    waiting: str,
    gave_up: str,
    on_wait: Callable[[str], None] | None = None,
) -> None:
    """Take an exclusive ``flock`` on ``fh``, waiting up to ``timeout`` seconds for its holder; calls
    ``on_wait(waiting)`` once when the wait starts and raises ``IndexStoreError(gave_up)`` at the end."""
    import fcntl

    deadline = time.monotonic() + timeout
    told = False
    while True:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.EACCES):
                raise
        if time.monotonic() >= deadline:
            raise IndexStoreError(gave_up)
        if not told and on_wait is not None:
            on_wait(waiting)
            told = True
        time.sleep(0.05)


#: how long a writer waits for another one before giving up (seconds; ``RAGKIT_LOCK_TIMEOUT``)
LOCK_TIMEOUT_S = float(os.environ.get("RAGKIT_LOCK_TIMEOUT", "600"))


@contextlib.contextmanager
def file_lock(
    path: Path,
    what: str,
    timeout: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing); wait for another holder up to
    ``timeout`` seconds, calling ``on_wait(message)`` once when the wait starts."""
    import fcntl

    timeout = LOCK_TIMEOUT_S if timeout is None else timeout
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        wait_for_flock(
            fh,
            timeout,
            f"{what} is being written by another process: waiting for it to finish…",
            f"{what} is being written by another process; gave up after waiting {timeout:g} s "
            "(try again when it has finished)",
            on_wait,
        )
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def atomic_write(path: Path, write: Any, mode: str = "w") -> None:
    """Write ``path`` through a temp file in the same directory, fsync, then rename over it."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp makes 0600 files; an index is meant to be shared/readable
        with os.fdopen(fd, mode, **({"encoding": "utf-8"} if "b" not in mode else {})) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
