"""Shared by the benchmarks: what machine a result came from, and a median timer."""

from __future__ import annotations

import os
import platform


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError):
        mem_gb = float("nan")
    import torch

    return (
        f"{cpu}, {os.cpu_count()} cores, {mem_gb:.0f} GiB, Python {platform.python_version()}, "
        f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
    )


def median_time(fn, repeat: int = 3) -> tuple[float, object]:
    """Median wall time of ``repeat`` calls of ``fn`` and the last call's result."""
    import statistics
    import time

    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out
