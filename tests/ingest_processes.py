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
    (sampled), the largest single process's own peak (its ``VmHWM``, what ``/usr/bin/time -f %M`` means) and
    its wall time."""

    returncode: int
    stdout: str
    stderr: str
    tree_peak_mb: float
    process_peak_mb: float
    seconds: float


def _cmdline(pid: int) -> bytes:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (every thread's children), leaving out a child still running its
    parent's program: forked and not yet exec'd, it shares the parent's memory and would count it twice."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children", encoding="ascii") as f:
                    kids = [int(c) for c in f.read().split()]
                todo.extend(k for k in kids if _cmdline(k) != _cmdline(p))
        except (OSError, ValueError):
            continue  # it ended between two reads
    return out


def _status_kb(pid: int) -> dict[str, int]:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return {k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in f) if k.startswith("Vm")}
    except (OSError, ValueError):
        return {}


def run_measured(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300) -> Measured:
    """Run ``cmd``, reading every 20 ms the resident memory of it and of every process it starts: their
    sum, and each one's own peak (``VmHWM``: exact, and unlike the kernel's ``ru_maxrss`` not inherited
    from the process that started it — a large test process would show through)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=ROOT, env=env)
        tree_peak, peaks = 0, {}
        while proc.poll() is None:
            total = 0
            for p in _tree(proc.pid):
                vm = _status_kb(p)
                total += vm.get("VmRSS", 0)
                peaks[p] = max(peaks.get(p, 0), vm.get("VmHWM", 0))
            tree_peak = max(tree_peak, total)
            if time.monotonic() - start > timeout:
                proc.kill()
            time.sleep(0.02)
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    return Measured(
        proc.returncode, stdout, stderr, tree_peak / 1024, max(peaks.values(), default=0) / 1024, seconds
    )
