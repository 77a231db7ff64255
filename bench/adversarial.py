"""The adversarial table of BENCHMARKS.md (issue 42): each file of the expansion corpus (``tests/bombs.py``)
ingested by ``ragkit ingest --json`` beside a good text file, with the default caps, one command per
file, then the whole corpus in one command. For each: what happened to the file, the peak resident
memory of the whole process tree (the CLI, its parse worker and OCR program, summed, sampled every 20 ms),
the largest single process's own peak (its ``VmHWM``, what ``/usr/bin/time -f %M`` means), and the
seconds.

    .venv/bin/python bench/adversarial.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import write_result
from tests.bombs import make_corpus
from tests.ingest_processes import run_measured

GOOD = "The kiln reached cone 10 after eleven hours of firing. " * 20


def _ingest(files: list[Path], index: Path) -> dict:
    cmd = [sys.executable, "-m", "ragkit", "ingest", "--json", "--no-progress", "--index", str(index)]
    run = run_measured([*cmd, *map(str, files)], env=dict(os.environ))
    report = json.loads(run.stdout) if run.stdout.lstrip().startswith("{") else {"files": []}
    return {
        "files": {f["file"]: f for f in report["files"]},
        "tree_peak_mb": round(run.tree_peak_mb),
        "process_peak_mb": round(run.process_peak_mb),
        "seconds": round(run.seconds, 1),
        "exit": run.returncode,
    }


def _outcome(f: dict | None) -> str:
    if f is None:
        return "missing from the report"
    if f["status"] == "error":
        return "refused: " + f["error"].split(": ", 1)[1]
    return f"read: {f['pages']} pages, {f['chunks']} chunks" + (
        f" ({f['warnings'][0]})" if f["warnings"] else ""
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", default=None, help="write the corpus here (and reuse it) instead of a temp dir")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp) / "bombs"
        made = make_corpus(folder)
        good = Path(tmp) / "good.txt"
        good.write_text(GOOD)
        rows = []
        baseline = _ingest([good], Path(tmp) / "idx-good")
        print(f"good.txt alone: {baseline['tree_peak_mb']} MB, {baseline['seconds']} s", flush=True)
        for k, (bomb, path) in enumerate(made):
            run = _ingest([path, good], Path(tmp) / f"idx-{k}")
            row = {
                "file": bomb.name,
                "size_bytes": path.stat().st_size,
                "what": bomb.why,
                "result": _outcome(run["files"].get(bomb.name)),
                "good_file": _outcome(run["files"].get("good.txt")),
                **{k: run[k] for k in ("tree_peak_mb", "process_peak_mb", "seconds")},
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
        together = [p for b, p in made if not b.worker_only]
        whole = _ingest([*together, good], Path(tmp) / "idx-all")
        summary = {
            "good_file_alone": {k: baseline[k] for k in ("tree_peak_mb", "process_peak_mb", "seconds")},
            "rows": rows,
            "one_command": {
                "files": len(together) + 1,
                "good_file": _outcome(whole["files"].get("good.txt")),
                **{k: whole[k] for k in ("tree_peak_mb", "process_peak_mb", "seconds")},
            },
        }
        print(json.dumps(summary["one_command"]))
    print(write_result("adversarial", summary))


if __name__ == "__main__":
    main()
