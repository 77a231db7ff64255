"""What the bounded parse worker costs, and what overlapping parsing with embedding gains (issues 42, 43).

Four ways to ingest the same files into a fresh index (sliding 500/100 chunks, MiniLM float32, no
embedding cache, the model loaded beforehand), each repeated and interleaved, medians reported:

- ``in_process``: today's order before the worker — every file parsed in this process, then chunked and
  embedded (parsers imported beforehand, untimed);
- ``worker_then_embed``: every file parsed by a new worker (its imports timed), then chunked and embedded;
- ``overlapped``: ``ingest_paths`` as the CLI runs it — a new worker parses the next file while this
  process chunks and embeds the last;
- ``overlapped_warm``: the same with a warm worker already started (the app keeps one; its start is
  outside the wall time, inside the CPU seconds).

Wall seconds and CPU seconds (this process and its workers) of each; on a machine shared with other work
the CPU seconds are the steadier figure.

Plus the worker's cost per file: a round trip of a tiny file through a warm worker, and a new worker's
start with the PDF parsers imported. Sets: the PDFs of ``../shared/evaldata/pdfs`` and ``bench/corpus``.

    .venv/bin/python bench/parse_worker.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import write_result
from ragkit.index.embeddings import Embedder
from ragkit.index.ingest import ingest_documents, ingest_paths, open_or_create
from ragkit.index.inputs import Parsed, ParseStream, expand_inputs
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.ingestion.parse import load_document
from ragkit.ingestion.worker import POOL, ParseSession, Request

HERE = Path(__file__).resolve().parent
CORPUS = ("lab_handbook.docx", "orbit_release.html", "tessera_README.md", "rfc9999_kvl.txt")
SETS = {
    "evaldata_pdfs": sorted((HERE.parents[1] / "shared" / "evaldata" / "pdfs").glob("*.pdf")),
    "bench_corpus": [HERE / "corpus" / n for n in CORPUS],
}


def _cpu() -> float:
    """CPU seconds of this process and of the workers it has reaped."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _ingest(way: str, files: list[Path], embedder: Embedder, root: Path) -> tuple[float, float, int]:
    chunker = SlidingChunker()
    store, _ = open_or_create(root / f"{way}-{time.monotonic_ns()}", embedder, chunker)
    if way != "overlapped_warm":
        POOL.shutdown()  # a new worker, as a new `ragkit ingest` starts one
    else:
        POOL.keep_warm(1, wait=120)
    t, cpu = time.perf_counter(), _cpu()
    if way == "in_process":
        parsed = [Parsed(f.name, load_document(f), str(f)) for f in files]
        ingest_documents(store, parsed, chunker, embedder)
    elif way == "worker_then_embed":
        inputs, _ = expand_inputs(files)
        with ParseStream(inputs) as stream:
            parsed = list(stream)
        ingest_documents(store, parsed, chunker, embedder)
    else:
        ingest_paths(store, files, chunker, embedder)
    secs = time.perf_counter() - t
    POOL.shutdown()  # the worker reaped, so its CPU seconds are counted
    return secs, _cpu() - cpu, len(store.chunks)


def _per_file() -> dict[str, float]:
    POOL.shutdown()
    with ParseSession() as s:
        t = time.perf_counter()
        s.parse(Request("a.pdf", path=str(SETS["evaldata_pdfs"][1])))
        first = time.perf_counter() - t
        t = time.perf_counter()
        s.parse(Request("a.pdf", path=str(SETS["evaldata_pdfs"][1])))
        again = time.perf_counter() - t
        t = time.perf_counter()
        for i in range(200):
            s.parse(Request(f"t{i}.txt", data=b"A short note on the kiln. " * 40))
        round_trip = (time.perf_counter() - t) / 200
    t = time.perf_counter()
    for _ in range(200):
        load_document(HERE / "corpus" / "tessera_README.md")
    local = (time.perf_counter() - t) / 200
    return {
        "new_worker_first_pdf_s": first,
        "warm_worker_same_pdf_s": again,
        "worker_start_and_imports_s": first - again,
        "tiny_file_round_trip_ms": round_trip * 1000,
        "tiny_file_in_process_ms": local * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sets", default=",".join(SETS), help="which sets, comma-separated")
    args = ap.parse_args()
    embedder = Embedder(cache=False)
    embedder.embed(["warm the model up"])
    for f in SETS["evaldata_pdfs"][:1]:
        load_document(f)  # the in-process parsers imported before anything is timed
    ways = ("in_process", "worker_then_embed", "overlapped", "overlapped_warm")
    results: dict = {"per_file": _per_file()}
    with tempfile.TemporaryDirectory() as tmp:
        for name, files in ((n, SETS[n]) for n in args.sets.split(",")):
            times: dict[str, list[float]] = {w: [] for w in ways}
            cpus: dict[str, list[float]] = {w: [] for w in ways}
            chunks: dict[str, int] = {}
            for _ in range(args.repeat):
                for way in ways:
                    secs, cpu, chunks[way] = _ingest(way, files, embedder, Path(tmp))
                    times[way].append(secs)
                    cpus[way].append(cpu)
                    print(f"{name:14s} {way:18s} {secs:6.2f} s  {cpu:6.2f} cpu-s", flush=True)
            assert len(set(chunks.values())) == 1, chunks  # every way indexes the same chunks
            med = {w: statistics.median(t) for w, t in times.items()}
            results[name] = {
                "files": len(files),
                "chunks": chunks["in_process"],
                "median_s": med,
                "median_cpu_s": {w: statistics.median(c) for w, c in cpus.items()},
                "runs_s": times,
                "worker_overhead_ratio": med["worker_then_embed"] / med["in_process"],
                "overlapped_vs_in_process": med["overlapped"] / med["in_process"],
                "overlap_gain": med["worker_then_embed"] / med["overlapped"],
            }
    print(write_result("parse_worker", results))


if __name__ == "__main__":
    main()
