"""An unchanged re-ingest against the first ingest, as whole processes (issue 25): the six PDFs of
``../shared/evaldata/pdfs`` plus three text files, ingested into a fresh index with an empty embedding
cache, then re-ingested unchanged ``--repeat`` times. Reports the first ingest's wall time, the median and
range of the re-ingests, and their ratio, measured in one run.

    .venv/bin/python bench/noop_ingest.py --repeat 7 --json bench/results/noop_ingest.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVALDATA = ROOT.parent / "shared" / "evaldata"


def ingest(index: Path, src: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "ragkit", "ingest", "--index", str(index), str(src), "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    return wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        src.mkdir()
        for pdf in sorted((EVALDATA / "pdfs").glob("*.pdf")):
            shutil.copy(pdf, src)
        shutil.copy(ROOT / "README.md", src / "readme.md")
        shutil.copy(EVALDATA / "SOURCES.md", src / "sources.md")
        (src / "notes.txt").write_text("Plain notes: the kiln runs at 1,280 degrees.\n")
        env = {**os.environ, "RAGKIT_CACHE_DIR": str(Path(tmp) / "cache"), "PYTHONPATH": str(ROOT)}
        index = Path(tmp) / "idx"
        first = ingest(index, src, env)
        again = [ingest(index, src, env) for _ in range(args.repeat)]
    med = statistics.median(again)
    out = {
        "files": 9,
        "first_s": round(first, 2),
        "unchanged_s": {
            "median": round(med, 3),
            "min": round(min(again), 3),
            "max": round(max(again), 3),
            "n": len(again),
        },
        "ratio": round(med / first, 4),
    }
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
