"""Vector stores at scale: local FAISS (flat and HNSW), Qdrant embedded and a real Milvus server (FLAT and
HNSW), each through ragkit's own store adapter and dense retriever, on 100k and 1M chunks.

Per store and size: the ingest rate (a save of the index: chunks written to the store, HNSW built where it
is built, until searchable), p50/p95 latency of a dense top-10 search (the retriever's whole path: the
store's search and the mapping back to chunks; no query embedding), recall@10 against exact search (numpy
over all vectors), and memory: ragkit's process (RSS; embedded Qdrant lives in it) and the Milvus server's
(RSS and peak). Vectors are synthetic: 384-dimensional unit vectors around 2,000 centres (clustered like
real embeddings; uniform random vectors would make every ANN index look worse than it is), queries drawn
the same way. The Milvus server is the one the tests start (``tests/milvus_server.py``: Milvus 2.3.5
standalone in a network namespace of its own, on a loopback port).

    .venv/bin/python bench/vector_stores.py --sizes 100000
    .venv/bin/python bench/vector_stores.py --sizes 1000000 --name vector_stores_1m

Results: ``bench/results/<name>.json`` (figures per store and size).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import write_result  # noqa: E402
from ragkit.core.types import Chunk, Document, Page, Span  # noqa: E402
from ragkit.index.store import IndexStore  # noqa: E402
from ragkit.index.vectorstores import store_spec  # noqa: E402
from ragkit.retrievers.dense import DenseRetriever  # noqa: E402

DIM, CENTRES, PER_DOC, QUERIES = 384, 2_000, 1_000, 200


def rss_mb(pid: int | str = "self", key: str = "VmRSS:") -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def vectors(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(0).normal(size=(CENTRES, DIM)).astype(np.float32)
    out = centres[rng.integers(0, CENTRES, n)] + rng.normal(scale=0.6, size=(n, DIM)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


class QueryEmbedder:
    """The dense retriever's embedder, answering with the benchmark's query vectors (no model)."""

    model_id, dtype = "bench/synthetic-384", "float32"
    dimension = DIM

    def __init__(self, queries: np.ndarray) -> None:
        self.queries = queries

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries[int(text)]


def build(path: Path, matrix: np.ndarray, spec: dict) -> tuple[IndexStore, float]:
    """An index of ``matrix`` (documents of ``PER_DOC`` chunks), saved: the seconds of the save."""
    store = IndexStore(path, QueryEmbedder.model_id, DIM, {"name": "sliding", "config": {}}, store=spec)
    for d, start in enumerate(range(0, len(matrix), PER_DOC)):
        rows = matrix[start : start + PER_DOC]
        doc = Document(f"d{d:06d}", f"doc{d}.txt", f"{d:064x}", (Page(1, "x"),), "txt")
        chunks = [Chunk(f"d{d:06d}-{i:05d}", doc.doc_id, doc.source, i, "x", (Span(1, 0, 1),))
                  for i in range(len(rows))]  # fmt: skip
        store.add(doc, chunks, rows, {})
    t = time.perf_counter()
    store.save()
    return store, time.perf_counter() - t


def wait_for_milvus_index(store: IndexStore) -> None:
    """Seal Milvus's segments and wait until its index covers every row (else growing segments are
    scanned by brute force and the index is not what is measured)."""
    vs = store.vector_store
    client, name = vs.client, vs.collection
    client.flush(name)
    while True:
        info = client.describe_index(name, "vector")
        indexed, pending = int(info.get("indexed_rows", 0)), int(info.get("pending_index_rows", 0))
        if pending == 0 and indexed >= len(store.chunks):
            return
        time.sleep(1)


def run_store(label: str, spec: dict, exact: bool, matrix, queries, truth, workdir: Path, server) -> dict:
    path = workdir / label
    rss_before = rss_mb()
    store, save_s = build(path, matrix, spec)
    t = time.perf_counter()
    if spec["kind"] == "qdrant" and not exact:
        store.vector_store.commit(optimize=True)  # its HNSW, built now rather than by its optimiser later
    if spec["kind"] == "milvus":
        wait_for_milvus_index(store)
    retriever = DenseRetriever(store, QueryEmbedder(queries), index="flat" if exact else "hnsw")
    retriever.warm_up()  # FAISS builds its index here; the others check their collection
    index_s = time.perf_counter() - t
    n = len(matrix)
    row = {c.chunk_id: i for i, c in enumerate(store.chunks)}
    latencies, recalls = [], []
    for q in range(len(queries)):
        t0 = time.perf_counter()
        hits = retriever.search(str(q), 10)
        latencies.append((time.perf_counter() - t0) * 1000)
        recalls.append(len({row[h.chunk_id] for h in hits} & set(truth[q])) / 10)
    latencies.sort()
    out = {
        "chunks": n,
        "save_s": round(save_s, 2),
        "index_s": round(index_s, 2),
        "ingest_s": round(save_s + index_s, 2),
        "ingest_chunks_per_s": round(n / (save_s + index_s)),
        "p50_ms": round(statistics.median(latencies), 2),
        "p95_ms": round(latencies[int(0.95 * len(latencies)) - 1], 2),
        "recall_at_10": round(float(np.mean(recalls)), 4),
        "ragkit_rss_mb": round(rss_mb()),
        "ragkit_rss_growth_mb": round(rss_mb() - rss_before),
    }
    if spec["kind"] == "milvus":
        pid = server.server_pid()
        out |= {"server_rss_mb": round(rss_mb(pid)), "server_peak_mb": round(rss_mb(pid, "VmHWM:"))}
        store.vector_store.client.drop_collection(store.vector_store.collection)
    store.close()
    del store, retriever
    gc.collect()
    shutil.rmtree(path, ignore_errors=True)
    print(label, out, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--stores", default="faiss-flat,faiss-hnsw,qdrant-hnsw,milvus-flat,milvus-hnsw")
    ap.add_argument("--name", default="vector_stores")
    args = ap.parse_args()
    from tests.milvus_server import ROOT_TOKEN, MilvusServer

    workdir = Path(tempfile.mkdtemp(prefix="ragkit-vs-bench-"))
    server = None
    stores = args.stores.split(",")
    if any(s.startswith("milvus") for s in stores):
        server = MilvusServer(workdir / "milvus").start()
        os.environ["MILVUS_TOKEN"] = ROOT_TOKEN
        os.environ.setdefault("RAGKIT_MILVUS_TIMEOUT", "600")  # a 1M-row save or load takes minutes
    specs = {
        "faiss-flat": (store_spec("local"), True),
        "faiss-hnsw": (store_spec("local"), False),
        "qdrant-hnsw": (store_spec("qdrant"), False),
        "milvus-flat": (lambda: store_spec("milvus", server.uri, index="flat"), True),
        "milvus-hnsw": (lambda: store_spec("milvus", server.uri, index="hnsw"), False),
    }
    results: dict = {"server_idle_rss_mb": round(rss_mb(server.server_pid())) if server else None}
    try:
        for n in [int(s) for s in args.sizes.split(",")]:
            matrix, queries = vectors(n, seed=1), vectors(QUERIES, seed=2)
            scores = queries @ matrix.T  # exact search: the ground truth of recall@10
            truth = np.argpartition(-scores, 10, axis=1)[:, :10]
            del scores
            for label in stores:
                spec, exact = specs[label]
                spec = spec() if callable(spec) else spec
                row = run_store(label, spec, exact, matrix, queries, truth, workdir, server)
                results[f"{label}@{n}"] = row
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(write_result(args.name, results))


if __name__ == "__main__":
    main()
