"""Would a pool of two workers, each laying out half of a PDF's pages, parse a large PDF faster on this
machine? The layout engine's pages timed in one process, then the two halves in two processes at once
(models loaded and one page laid out first in each, untimed). Issue 43 asked to keep a page pool only
if it helps; BENCHMARKS.md, "The parse worker", has the answer.

    .venv/bin/python bench/page_pool.py [--pdf ../shared/evaldata/pdfs/acl2020_s2orc_2020.acl-main.447.pdf]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import write_result

PDF = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "evaldata"
    / "pdfs"
    / "acl2020_s2orc_2020.acl-main.447.pdf"
)
PART = """
import json, sys, time
import pymupdf
from ragkit.ingestion.pdf_layout import layout_page
doc = pymupdf.open(sys.argv[1])
a, b = int(sys.argv[2]), min(int(sys.argv[3]), doc.page_count)
layout_page(doc.load_page(a))  # the models loaded, untimed
print("ready", flush=True)
sys.stdin.readline()  # start together
t, c = time.perf_counter(), time.process_time()
for i in range(a, b):
    layout_page(doc.load_page(i))
print(json.dumps({"wall_s": time.perf_counter() - t, "cpu_s": time.process_time() - c}), flush=True)
"""


def _run(pdf: Path, ranges: list[tuple[int, int]]) -> dict:
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", PART, str(pdf), str(a), str(b)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for a, b in ranges
    ]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"  # type: ignore[union-attr]
    t = time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")  # type: ignore[union-attr]
        p.stdin.flush()  # type: ignore[union-attr]
    parts = [json.loads(p.stdout.readline()) for p in procs]  # type: ignore[union-attr]
    wall = time.perf_counter() - t
    for p in procs:
        p.wait()
    return {"wall_s": wall, "cpu_s": sum(x["cpu_s"] for x in parts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", default=str(PDF))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import pymupdf

    n = pymupdf.open(args.pdf).page_count
    one, two = [], []
    for _ in range(args.repeat):
        one.append(_run(Path(args.pdf), [(0, n)]))
        two.append(_run(Path(args.pdf), [(0, n // 2), (n // 2, n)]))
        print(one[-1], two[-1], flush=True)
    best = {k: min(r["wall_s"] for r in runs) for k, runs in (("one_process", one), ("two_processes", two))}
    result = {"pdf": Path(args.pdf).name, "pages": n, "one_process": one, "two_processes": two,
              "best_wall_s": best, "speedup": best["one_process"] / best["two_processes"]}  # fmt: skip
    print(write_result("page_pool", result))


if __name__ == "__main__":
    main()
