"""How many threads an embedding model computes with: every core this process may run on, unless
``$RAGKIT_TORCH_THREADS`` says otherwise (read by the torch and the ONNX Runtime backends alike)."""

from __future__ import annotations

import logging
import os
import sys
import time

log = logging.getLogger(__name__)


def _cpu_times() -> tuple[int, int]:
    """(idle, total) jiffies over all CPUs, from ``/proc/stat``."""
    with open("/proc/stat", encoding="utf-8") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields[:8])


def default_threads(sample_s: float = 0.2) -> int:
    """Threads for this process: ``$RAGKIT_TORCH_THREADS`` if it is a number; with ``free``, the
    cores this process may run on minus those other processes keep busy right now (sampled over
    ``sample_s``), at least 1; otherwise every core this process may run on (its CPU affinity, which a
    container or ``taskset`` may have narrowed: torch's own default counts the host's cores).

    Measured on this machine (``bench/threads.py``, BENCHMARKS.md "Torch threads"): leaving a busy core
    out helped against a plain CPU-bound process (+19 %) but cost 12-13 % against another torch process or
    two busy cores, so all cores is the default and ``free`` is the opt-in.
    """
    env = (os.environ.get("RAGKIT_TORCH_THREADS") or "").strip().lower()
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if env and env != "free":
        return max(1, int(env))
    if env != "free":
        return cores
    try:
        idle0, total0 = _cpu_times()
        time.sleep(sample_s)
        idle1, total1 = _cpu_times()
    except (OSError, ValueError, IndexError):
        return cores
    total = max(total1 - total0, 1)
    busy = (1 - (idle1 - idle0) / total) * (os.cpu_count() or cores)
    return max(1, min(cores, cores - int(busy + 0.5)))


def tune_threads() -> int:
    """Set torch's intra-op threads to :func:`default_threads` (if torch is loaded); returns the count."""
    n = default_threads()
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != n:
        log.info("torch threads: %d (of %d cores)", n, os.cpu_count() or n)
        torch.set_num_threads(n)
    return n
