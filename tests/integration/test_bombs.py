"""The expansion corpus (tests/bombs.py) through one ``ragkit ingest``, as the issue measured it: each file
ends as its own error or a bounded read, the good file beside them is indexed, and the whole ingest — the
CLI, its parse worker and the OCR program — stays under 1 GB of resident memory and 60 s."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.bombs import CORPUS, make_corpus
from tests.ingest_processes import run_measured

pytestmark = pytest.mark.slow


def test_the_expansion_corpus_is_refused_or_read_bounded_while_the_good_file_is_indexed(tmp_path):
    cases = [b for b in CORPUS if not b.worker_only]
    made = make_corpus(tmp_path / "bombs", tuple(b.name for b in cases))
    good = tmp_path / "good.txt"
    good.write_text("The kiln reached cone 10 after eleven hours of firing. " * 20)
    cmd = [
        sys.executable,
        "-m",
        "ragkit",
        "ingest",
        "--json",
        "--no-progress",
        "--index",
        str(tmp_path / "idx"),
    ]
    run = run_measured([*cmd, *(str(p) for _, p in made), str(good)], env=dict(os.environ))
    assert run.returncode == 1, run.stderr[-3000:]  # some inputs failed, the command did not
    by = {f["file"]: f for f in json.loads(run.stdout)["files"]}
    for bomb in cases:
        f = by[bomb.name]
        if bomb.error_has:
            assert f["status"] == "error", (bomb.name, f)
            assert f["error"].startswith(f"{bomb.name}: ") and bomb.error_has in f["error"], f["error"]
        else:
            assert f["status"] == "ok", (bomb.name, f)
    assert by["good.txt"]["status"] == "ok" and by["good.txt"]["chunks"] > 0
    assert run.tree_peak_mb < 1024, f"the ingest's processes held {run.tree_peak_mb:.0f} MB at once"
    assert run.process_peak_mb < 1024
    assert run.seconds < 60, f"the ingest took {run.seconds:.0f} s"
