"""Waiting for an exclusive ``flock``: the one loop behind the index writer lock and the embedded Qdrant
shard's owner lock (both wait for the other process, say so once, and give up with a clear error)."""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from typing import IO, Any

from ragkit.errors import IndexStoreError


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
