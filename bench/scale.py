"""Search at research scale: per-query latency of BM25 (bm25s and rank-bm25), dense exact (FAISS flat),
dense HNSW (with its recall@10 against exact) and hybrid, on collections of 10k, 100k and 1M chunks,
with build time, memory and disk.

Collections are real text: the SciFact 500/100 chunks (20,669, from the cached `eval retrieval` index),
copied with a deterministic 10 % word dropout per copy until the size is reached. Vectors are the real
MiniLM vectors of those chunks plus small Gaussian noise per copy (renormalised): synthetic, so that
embedding 1M chunks does not dominate, but clustered like real ones (random vectors would flatter
nothing and make HNSW look worse than it is). Queries are SciFact's 300 test queries, embedded for real
once before timing; hybrid latency excludes the query embedding.

    .venv/bin/python bench/scale.py --sizes 10000,100000 --json bench/results/scale.json
    .venv/bin/python bench/scale.py --sizes 1000000 --skip-rank-bm25 --json bench/results/scale_1m.json
    .venv/bin/python bench/scale.py --store local,qdrant --sizes 10000,100000 \
        --json bench/results/scale_stores.json

``--store qdrant`` keeps the vectors in Qdrant's embedded engine (qdrant-edge): dense search (exact, and
HNSW after the shard's optimiser has built it, timed as ``qdrant_optimize_s``) runs there; BM25 is
ragkit's bm25s over the same chunk texts in both stores.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ragkit.core.types import Chunk, Document, Page
from ragkit.evaluation.datasets.loaders import load_beir
from ragkit.index.embeddings import Embedder
from ragkit.index.store import IndexStore
from ragkit.retrievers.bm25 import BM25Retriever
from ragkit.retrievers.dense import DenseRetriever
from ragkit.retrievers.hybrid import HybridRetriever

HERE = Path(__file__).resolve().parent
EVALDATA = Path(os.environ.get("RAGKIT_EVALDATA", HERE.parents[1] / "shared" / "evaldata"))


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def dir_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1024**2


def base_index() -> IndexStore:
    found = sorted(glob.glob("indexes/.eval/scifact-sliding-d8cfffa0-*"))
    if not found:
        raise SystemExit(
            "build the SciFact 500/100 index first: python -m ragkit eval retrieval --dataset "
            "../shared/evaldata/scifact --retriever bm25"
        )
    return IndexStore.open(found[0])


def build_store(base: IndexStore, n: int, path: Path, seed: int = 0, store: dict | None = None) -> IndexStore:
    """``n`` chunks: the base chunks, then copies with 10 % of words dropped and noisy vectors."""
    spec = store
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    chunks, vectors = base.chunks, base.vectors
    store = IndexStore(path, base.model_id, base.dimension, base.chunker, store=spec)
    made, copy = 0, 0
    while made < n:
        take = min(len(chunks), n - made)
        rows: list[Chunk] = []
        for j in range(take):
            c = chunks[j]
            text = c.text
            if copy:
                words = text.split()
                text = " ".join(w for w in words if rng.random() > 0.1) or words[0]
            rows.append(Chunk(f"k{copy}-{j}", f"copy{copy}", f"copy{copy}.txt", j, text, c.spans))
        vecs = vectors[:take].copy()
        if copy:
            vecs += nrng.normal(0, 0.02, vecs.shape).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        doc = Document(f"copy{copy}", f"copy{copy}.txt", f"{copy:064x}", (Page(1, ""),), "txt")
        store.add(doc, rows, vecs, {})
        made += take
        copy += 1
    return store


class Pre:
    """The real embedder with every query vector computed before timing (hybrid timed without it)."""

    def __init__(self, embedder: Embedder, queries: list[str]) -> None:
        self.model_id = embedder.model_id
        self.vectors = {q: embedder.embed_query(q) for q in queries}
        self.dimension = embedder.dimension

    def embed_query(self, q: str) -> np.ndarray:
        return self.vectors[q]


def timed_queries(fn, queries: list[str]) -> dict[str, float]:
    times = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return {"p50": statistics.median(times), "p95": times[int(0.95 * (len(times) - 1))]}


def run(
    n: int, base: IndexStore, queries: list[str], pre: Pre, skip_rank_bm25: bool, tmp: Path, kind: str
) -> dict:
    row: dict = {"chunks": n, "store": kind}
    m0 = rss_mb()
    t = time.perf_counter()
    store = build_store(base, n, tmp / f"idx{n}", store={"kind": kind})
    row["build_store_s"] = time.perf_counter() - t
    t = time.perf_counter()
    store.save()
    row["save_s"] = time.perf_counter() - t
    if not store.holds_vectors:
        t = time.perf_counter()
        store.vector_store.commit(optimize=True)  # Qdrant's optimiser builds the HNSW graph
        row["qdrant_optimize_s"] = time.perf_counter() - t
    row["disk_mb_store"] = dir_mb(store.path)
    row["rss_store_mb"] = rss_mb() - m0

    out: dict = {}

    def build(name: str, fn) -> None:
        """Time ``fn`` (a build step) and the memory it added, as ``<name>_build_s`` / ``<name>_rss_mb``."""
        m1, t = rss_mb(), time.perf_counter()
        fn()
        out[f"{name}_build_s"] = time.perf_counter() - t
        out[f"{name}_rss_mb"] = rss_mb() - m1

    bm = BM25Retriever(store, None, engine="bm25s")
    build("bm25s", bm.build)
    row["disk_mb_bm25s_state"] = dir_mb(store.path / "bm25") if (store.path / "bm25").exists() else 0.0
    t = time.perf_counter()
    BM25Retriever(IndexStore.open(store.path), None, engine="bm25s").build()
    out["bm25s_reopen_s"] = time.perf_counter() - t  # loads the saved state (plus the store open)
    out["bm25s"] = timed_queries(lambda q: bm.search(q, 10), queries)
    if not skip_rank_bm25 and store.holds_vectors:
        ref = BM25Retriever(store, None, engine="rank_bm25")
        build("rank_bm25", ref.build)
        out["rank_bm25"] = timed_queries(lambda q: ref.search(q, 10), queries[:60])
        del ref
    flat = DenseRetriever(store, pre, index="flat")
    build("flat", flat.warm_up)
    out["flat"] = timed_queries(lambda q: flat.search(q, 10), queries)
    hnsw = DenseRetriever(store, pre, index="hnsw")
    build("hnsw", hnsw.warm_up)
    out["hnsw"] = timed_queries(lambda q: hnsw.search(q, 10), queries)
    overlap = [
        len({h.chunk_id for h in flat.search(q, 10)} & {h.chunk_id for h in hnsw.search(q, 10)}) / 10
        for q in queries
    ]
    out["hnsw_recall@10"] = statistics.fmean(overlap)
    for name, dense in (("hybrid_flat", flat), ("hybrid_hnsw", hnsw)):
        hy = HybridRetriever({"bm25": bm, "dense": dense}, k=60, depth=50)
        out[name] = timed_queries(lambda q, hy=hy: hy.search(q, 10), queries)
    row.update(out)
    row["rss_total_mb"] = rss_mb()
    store.close()
    shutil.rmtree(store.path, ignore_errors=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--skip-rank-bm25", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--store", default="local", help="local, qdrant, or both in one run: local,qdrant")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(max(1, (os.cpu_count() or 2)))
    sys.path.insert(0, str(HERE.parent))
    from bench._common import machine

    base = base_index()
    ds = load_beir(EVALDATA / "scifact")
    queries = [ds.queries[q] for q in sorted(ds.queries)]
    pre = Pre(Embedder(base.model_id), queries)
    tmp = Path(tempfile.mkdtemp(prefix="ragkit-scale-", dir="/tmp"))
    out = {"machine": machine(), "base_chunks": len(base.chunks), "queries": len(queries), "rows": []}
    for n in [int(x) for x in args.sizes.split(",")]:
        for kind in args.store.split(","):
            row = run(n, base, queries, pre, args.skip_rank_bm25, tmp, kind)
            out["rows"].append(row)
            print(json.dumps(row), flush=True)
    shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
