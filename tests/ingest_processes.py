"""Ingesting in a separate process (as a second user or a CLI run would): the script, a launcher and the
wait for its JSON report. Shared by the tests of concurrent writers, reading guards and batches."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


INGEST_SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    sys.path.insert(0, {root!r})
    from tests.conftest import FakeEmbedder
    from ragkit.index.ingest import ingest_paths, open_or_create

    class Slow(FakeEmbedder):
        def embed(self, texts, progress=None):
            time.sleep({sleep})  # both writers are mid-ingest at once
            return super().embed(texts, progress)

    emb = Slow()
    store, chunker = open_or_create({index!r}, emb, None)
    report = ingest_paths(store, {files!r}, chunker, emb, {max_mb}, follow_symlinks={follow})
    print(json.dumps(report.to_dict()))
    """
)


def run_ingest(index: Path, files: list[Path], sleep: float = 0.0, max_mb: float = 50, follow=False):
    script = INGEST_SCRIPT.format(
        root=str(ROOT),
        index=str(index),
        files=[str(f) for f in files],
        sleep=sleep,
        max_mb=max_mb,
        follow=follow,
    )
    return subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out)


@dataclass
class Measured:
    """A finished command: its exit code and output, the peak of its whole process tree's resident memory
    (sampled), the largest single process's peak (the kernel's, as ``/usr/bin/time -f %M`` reports) and
    its wall time."""

    returncode: int
    stdout: str
    stderr: str
    tree_peak_mb: float
    process_peak_mb: float
    seconds: float


def _tree_rss_kb(pid: int) -> int:
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                status = f.read()
            total += int(status.split("VmRSS:")[1].split()[0]) if "VmRSS:" in status else 0
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, IndexError, ValueError):
            continue  # it ended between two reads
    return total


def run_measured(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> Measured:
    """Run ``cmd``, sampling the resident memory of it and every process it starts every 20 ms."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT, env=env)
        peak = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)  # reaped here: wait4 has the kernel's peak
            if pid:
                break
            peak = max(peak, _tree_rss_kb(proc.pid))
            if time.monotonic() - start > timeout:
                proc.kill()
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    return Measured(proc.returncode, stdout, stderr, peak / 1024, usage.ru_maxrss / 1024, seconds)
