"""bfloat16 against float32 on the whole SciFact 500/100 collection, in one run: cold ingest time of each
(chunk + embed + save, empty embedding caches), the cosine of every bf16 chunk vector to its fp32
twin, and nDCG@10 of bm25 / dense / hybrid on both indexes (BM25 on the bm25s engine, which does not
depend on the vectors except for hybrid's dense half).

    .venv/bin/python bench/bf16_parity.py --json bench/results/bf16_parity.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine
from ragkit.evaluation.datasets.loaders import load_beir
from ragkit.evaluation.runs.beir import evaluate_retrieval
from ragkit.index.embeddings import Embedder, EmbeddingCache
from ragkit.index.ingest import ingest_documents, open_or_create
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.pipeline.config import PipelineConfig
from ragkit.retrievers import retriever_from_config

EVALDATA = Path(
    os.environ.get("RAGKIT_EVALDATA", Path(__file__).resolve().parents[2] / "shared" / "evaldata")
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    ds = load_beir(EVALDATA / "scifact")
    docs = [(d.source, d) for d in ds.documents()]
    out: dict = {"machine": machine(), "documents": len(docs), "runs": {}}
    stores = {}
    tmp = Path(tempfile.mkdtemp(prefix="ragkit-bf16-"))
    for dtype in ("float32", "bfloat16"):
        emb = Embedder(dtype=dtype, cache=EmbeddingCache(tmp / f"cache-{dtype}"))
        _ = emb.dimension  # load the model before the clock starts
        t = time.perf_counter()
        store, chunker = open_or_create(tmp / f"idx-{dtype}", emb, SlidingChunker())
        ingest_documents(store, docs, chunker, emb)
        seconds = time.perf_counter() - t
        stores[dtype] = (store, emb)
        out["runs"][dtype] = {"cold_ingest_s": seconds, "chunks": len(store.chunks)}
        out["runs"][dtype]["chunks_per_s"] = len(store.chunks) / seconds
        print(dtype, out["runs"][dtype], flush=True)
    a, b = stores["float32"][0].vectors, stores["bfloat16"][0].vectors
    cos = np.sum(a * b, axis=1)
    out["cosine_bf16_fp32"] = {
        "min": float(cos.min()),
        "p01": float(np.percentile(cos, 1)),
        "mean": float(cos.mean()),
    }
    out["speedup"] = out["runs"]["bfloat16"]["chunks_per_s"] / out["runs"]["float32"]["chunks_per_s"]
    for dtype, (store, emb) in stores.items():
        for retriever in ("bm25", "dense", "hybrid"):
            for engine in ("bm25s", "rank_bm25") if retriever != "dense" else ("-",):
                cfg = PipelineConfig(
                    retriever=retriever,
                    hybrid_depth=300,  # as in the retrieval table
                    **({"bm25_engine": engine} if engine != "-" else {}),
                )
                r = retriever_from_config(cfg, store, emb)
                res = evaluate_retrieval(ds, r, 300, None, None)
                key = f"{dtype}/{retriever}" + (f"/{engine}" if engine != "-" else "")
                out["runs"][key] = {k: round(v, 4) for k, v in res["metrics"].items()}
                out["runs"][key]["p50_ms"] = round(res["latency_ms"]["p50"], 2)
                print(key, out["runs"][key], flush=True)
    print(json.dumps({k: out[k] for k in ("cosine_bf16_fp32", "speedup")}), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
