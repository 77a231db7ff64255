"""Pathological text: time every chunker, and the extractive answer over the resulting chunks, on inputs
that used to hang (issue #15): a 100 KB run of dots, a 100 KB ``# # # … a`` line, 200k tiny paragraphs,
a 2 MB single word. Median of ``--repeat`` runs per cell; the embedding model loads once, outside the
timings, and the answer's chunk embeddings come from the cache (so the answer time is the answerer's own
work: splitting, scoring, embedding the candidate sentences).

    .venv/bin/python bench/pathological.py --json bench/results/pathological.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from ragkit.core.types import Document, Page
from ragkit.index.embeddings import Embedder
from ragkit.index.ingest import ingest_documents, open_or_create
from ragkit.ingestion.chunkers import make_chunker
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline

CASES = {
    "100 KB of dots": "." * 100_000,
    "100 KB line '# # # … a'": "# " * 50_000 + "a",
    "200k tiny paragraphs": "\n\n".join("p." for _ in range(200_000)),
    "2 MB single word": "x" * 2_000_000,
}


def doc(name: str, text: str) -> Document:
    import hashlib

    sha = hashlib.sha256(text.encode()).hexdigest()
    return Document(sha[:16], f"{name}.txt", sha, (Page(1, text),), "txt")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    emb = Embedder()
    _ = emb.dimension
    rows = []
    for name, text in CASES.items():
        d = doc(name.replace(" ", "_").replace("'", ""), text)
        for chunker_name in ("sliding", "sentence", "markdown"):
            chunker = make_chunker(chunker_name)
            times, chunks = [], []
            for _ in range(args.repeat):
                t = time.perf_counter()
                chunks = chunker.split(d)
                times.append(time.perf_counter() - t)
            # the extractive answer over this document's top chunks (index built outside the timing)
            root = Path(tempfile.mkdtemp())
            store, ch = open_or_create(root / "i", emb, chunker)
            ingest_documents(store, [(d.source, d)], ch, emb)
            # threshold 0: the extractive answerer always runs (it is what is timed, not an abstention)
            cfg = PipelineConfig(chunker=chunker_name, retriever="dense", confidence_threshold=0.0)
            pipe = RagPipeline(cfg, store, emb)
            pipe.warm_up()
            answer_times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                pipe.ask("What does the text say?")
                answer_times.append(time.perf_counter() - t)
            row = {
                "input": name,
                "chunker": chunker_name,
                "chunk_s": round(statistics.median(times), 3),
                "chunks": len(chunks),
                "longest_chunk": max((len(c.text) for c in chunks), default=0),
                "answer_s": round(statistics.median(answer_times), 3),
            }
            rows.append(row)
            print(json.dumps(row), flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
