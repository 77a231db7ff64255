"""Ingesting in a separate process (as a second user or a CLI run would): the script, a launcher and the
wait for its JSON report. Shared by the tests of concurrent writers, reading guards and batches."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
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
