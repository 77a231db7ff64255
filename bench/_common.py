"""Shared by the benchmarks: what machine a result came from, a median timer, and the small results
file every BENCHMARKS.md table names (numbers, command, commit, machine; raw outputs go to
``bench/results/raw/``, which is not kept)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


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


def commit() -> str:
    """The commit the benchmark ran on (with ``+dirty`` when the tree had changes)."""
    root = Path(__file__).resolve().parents[1]
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True
        ).stdout
    except OSError:
        return "unknown"
    return head.strip()[:12] + ("+dirty" if dirty.strip() else "")


def write_result(name: str, numbers: dict, command: str | None = None) -> Path:
    """Write ``bench/results/<name>.json``: the figures a BENCHMARKS.md table shows, with the command that
    made them, the commit, the machine and the date. Keep it small: per-item rows belong in raw/."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {
        "command": command or " ".join([".venv/bin/python", *sys.argv]),
        "commit": commit(),
        "machine": machine(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "results": numbers,
    }
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(record, indent=1, default=str) + "\n", encoding="utf-8")
    return path
