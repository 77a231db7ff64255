"""Untrusted files are parsed in a separate process held to the caps of :mod:`ragkit.ingestion.limits` by
the OS and a watchdog: address space and resident memory, CPU seconds, wall time, output size. A breach
is that file's error ("parsing used more than 1 GB of memory: refused"), the worker is replaced, the
batch goes on and the calling process never grows. Results come back as JSON, never pickled.

``ParseSession`` parses a batch (a file in flight while the caller embeds the last one); ``POOL``
keeps workers warm for the app.
"""

from ragkit.ingestion.worker.protocol import Request
from ragkit.ingestion.worker.session import POOL, ParseSession

__all__ = ["POOL", "ParseSession", "Request"]
