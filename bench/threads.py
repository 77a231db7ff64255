"""Torch threads for embedding on a shared machine: chunks/s with 1 and 2 threads, on an idle machine and
with 1 or 2 other processes spinning on the cores (what the app sees while a CLI ingest or a test suite
runs). Every cell embeds the same real SciFact chunks with the shipped MiniLM, uncached; medians of 3.
The competitors are plain Python loops (``--competitor python``) or another torch process doing matrix
products on 2 threads (``--competitor torch``: two OpenMP pools on the same cores, the case of the app
embedding while a CLI ingest embeds).

    .venv/bin/python bench/threads.py --chunks 400 --json bench/results/threads.json
    .venv/bin/python bench/threads.py --competitor torch --busy 1 --json bench/results/threads_torch.json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine
from ragkit.index.embeddings import Embedder


def spin(stop) -> None:  # a competing CPU-bound process
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def spin_torch(stop) -> None:  # a competing torch process with its own 2-thread pool
    import torch

    torch.set_num_threads(2)
    a = torch.randn(256, 256)
    while not stop.is_set():
        for _ in range(50):
            a = torch.tanh(a @ a.T / 16)


def texts(n: int) -> list[str]:
    import glob

    from ragkit.index.store import IndexStore

    found = sorted(glob.glob("indexes/.eval/scifact-sliding-d8cfffa0-*"))
    if not found:
        raise SystemExit("build the SciFact 500/100 index first (ragkit eval retrieval --dataset …/scifact)")
    return [c.text for c in IndexStore.open(found[0]).chunks[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=400)
    ap.add_argument("--json", default=None)
    ap.add_argument("--competitor", choices=["python", "torch"], default="python")
    ap.add_argument("--busy", default="0,1,2", help="numbers of competing processes")
    args = ap.parse_args()
    import torch

    from ragkit.index.embeddings import default_threads

    batch = texts(args.chunks)
    emb = Embedder()
    model = emb.model  # loaded once, outside every timing
    rows = []
    target = spin_torch if args.competitor == "torch" else spin
    for busy in [int(x) for x in args.busy.split(",")]:
        stop = mp.Event()
        procs = [mp.Process(target=target, args=(stop,), daemon=True) for _ in range(busy)]
        for p in procs:
            p.start()
        time.sleep(1.0)
        chosen = default_threads()
        for threads in (1, 2):
            torch.set_num_threads(threads)
            rates = []
            for _ in range(3):
                t = time.perf_counter()
                model.encode(batch, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
                rates.append(len(batch) / (time.perf_counter() - t))
            rows.append(
                {
                    "competitor": args.competitor,
                    "busy_processes": busy,
                    "threads": threads,
                    "chunks_per_s": statistics.median(rates),
                    "default_threads_chosen": chosen,
                }
            )
            print(json.dumps(rows[-1]), flush=True)
        stop.set()
        for p in procs:
            p.join()
    out = {"machine": machine(), "chunks": len(batch), "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
