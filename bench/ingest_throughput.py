"""Ingest throughput: PDF parsing (pages/s), SciFact as text documents (docs/s), chunking (chunks/s),
a full cold ingest of SciFact (chunk + embed + save, chunks/s), a warm-cache re-ingest, and float32 vs
bfloat16 embedding on the same fixed subset of chunks (a ratio measured in one run).

The cold ingest writes its embeddings to ``--cache-dir``; point ``RAGKIT_CACHE_DIR`` there afterwards and
``ragkit eval retrieval`` reuses them instead of embedding SciFact again.

    python bench/ingest_throughput.py [--dataset ../shared/evaldata/scifact] [--limit N] [--cache-dir D]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median_time
from ragkit.evaluation.datasets.loaders import load_beir
from ragkit.index.embeddings import Embedder, EmbeddingCache
from ragkit.index.ingest import ingest_documents, open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.ingestion.parse import load_document, parse_bytes

EVAL = Path(__file__).resolve().parents[2] / "shared" / "evaldata"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=str(EVAL / "scifact"))
    ap.add_argument("--pdfs", default=str(EVAL / "pdfs"))
    ap.add_argument("--limit", type=int, default=0, help="only the first N corpus records (0 = all)")
    ap.add_argument("--subset", type=int, default=2000, help="chunks for the fp32 vs bf16 comparison")
    ap.add_argument("--cache-dir", default=None, help="embedding cache for the cold ingest (must be new)")
    args = ap.parse_args()
    res: dict = {"machine": machine()}

    pdfs = sorted(Path(args.pdfs).glob("*.pdf"))
    secs, docs = median_time(lambda: [load_document(p) for p in pdfs])
    pages = sum(len(d.pages) for d in docs)
    res["pdf_parse"] = {"files": len(pdfs), "pages": pages, "median_s": secs, "pages_per_s": pages / secs}

    ds = load_beir(args.dataset)
    records = list(ds.corpus.items())[: args.limit or None]
    blobs = [(f"{i}.txt", (f"{t}\n\n{x}").encode()) for i, (t, x) in records]
    secs, docs = median_time(lambda: [parse_bytes(n, b) for n, b in blobs])
    res["text_parse"] = {"docs": len(docs), "median_s": secs, "docs_per_s": len(docs) / secs}

    chunker = SlidingChunker()
    secs, chunks = median_time(lambda: [c for d in docs for c in chunker.split(d)])
    res["chunk"] = {
        "chunker": chunker.spec(),
        "chunks": len(chunks),
        "median_s": secs,
        "chunks_per_s": len(chunks) / secs,
    }
    texts = [c.text for c in chunks]

    subset = texts[: args.subset]
    res["embed_subset"] = {"chunks": len(subset)}
    for dtype in ("float32", "bfloat16"):
        emb = Embedder(dtype=dtype, cache=False)
        emb.embed(subset[:64])  # load + warm up
        t = time.perf_counter()
        emb.embed(subset)
        secs = time.perf_counter() - t
        res["embed_subset"][dtype] = {"s": secs, "chunks_per_s": len(subset) / secs}
    res["embed_subset"]["bf16_speedup"] = (
        res["embed_subset"]["float32"]["s"] / res["embed_subset"]["bfloat16"]["s"]
    )

    with tempfile.TemporaryDirectory() as tmp:
        cache_dir = Path(args.cache_dir) if args.cache_dir else Path(tmp)
        cache_dir.mkdir(parents=True, exist_ok=True)
        emb = Embedder(cache=EmbeddingCache(cache_dir / "embeddings.sqlite"))
        emb.embed(["warm up the model"])
        store, ch = open_or_create(Path(tmp) / "cold", emb, chunker)
        t = time.perf_counter()
        cold_rep = ingest_documents(store, [(d.source, d) for d in docs], ch, emb)
        cold = time.perf_counter() - t
        store, ch = open_or_create(Path(tmp) / "warm", emb, chunker)
        t = time.perf_counter()
        rep = ingest_documents(store, [(d.source, d) for d in docs], ch, emb)
        warm = time.perf_counter() - t
        res["ingest"] = {
            "docs": len(docs),
            "chunks": len(chunks),
            "cold_s": cold,
            "cold_new_embeddings": cold_rep.totals()["new_embeddings"],
            "cold_chunks_per_s": len(chunks) / cold,
            "warm_cache_s": warm,
            "warm_new_embeddings": rep.totals()["new_embeddings"],
        }

    out = Path(__file__).parent / "results" / "ingest_throughput.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
