"""A collection indexed for BM25 alone against the same collection embedded (issue 25: vectors only
when something needs them), in one run: the six PDFs of ``../shared/evaldata/pdfs`` added to a fresh
collection (parsed once, not timed), then the text-only index and the embedded index built from the same
parsed documents on an empty embedding cache, and the gauge's cost per question over the text-only index
(it embeds the chunks a question retrieved), with the gauge's values compared to those over the embedded
index.

    .venv/bin/python bench/text_only_index.py --json bench/results/text_only_index.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PDFS = ROOT.parent / "shared" / "evaldata" / "pdfs"
QUESTIONS = [
    "What did the IBM MT/ST record onto?",
    "When was the first typewriter patented?",
    "How many papers does S2ORC contain?",
    "Which dataset is used for table structure recognition?",
    "What is the boiling point of mercury on Mars?",
    "Who introduced the Selectric typewriter?",
    "How are tables represented in the output?",
    "What license is the corpus released under?",
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["RAGKIT_CACHE_DIR"] = str(Path(tmp) / "cache")  # an empty embedding cache
        from ragkit.index.collections import Collection
        from ragkit.index.embeddings import Embedder, EmbeddingCache
        from ragkit.index.lexical import TEXT_ONLY
        from ragkit.ingestion.chunkers import chunker_for
        from ragkit.pipeline.config import PipelineConfig
        from ragkit.pipeline.rag import RagPipeline

        c = Collection.create("bench", Path(tmp) / "root")
        report = c.add_files([(p.name, p.read_bytes()) for p in sorted(PDFS.glob("*.pdf"))])
        cfg = PipelineConfig(retriever="bm25", llm="extractive")
        chunker = chunker_for(cfg)
        t = time.perf_counter()
        text, _ = c.index(chunker, TEXT_ONLY)
        text_s = time.perf_counter() - t
        # two empty caches: the questions' chunks are embedded for real, and the index build finds none
        asking = Embedder(cache=EmbeddingCache(Path(tmp) / "ask.sqlite"))
        building = Embedder(cache=EmbeddingCache(Path(tmp) / "build.sqlite"))
        _ = asking.dimension, building.dimension  # the model's load is neither the build nor a question
        over_text = RagPipeline(cfg, text, asking)
        over_text.ask("warm up the tokenizer and the BM25 state")
        answers = [over_text.ask(q) for q in QUESTIONS]
        chunk_ms = [a.timings_ms.get("embed_chunks", 0.0) for a in answers]
        t = time.perf_counter()
        embedded, _ = c.index(chunker, building)
        embedded_s = time.perf_counter() - t
        over_vectors = RagPipeline(cfg, embedded, building)
        gauge_diff = [
            abs(a.confidence.value - b.confidence.value)
            for a, b in zip(answers, [over_vectors.ask(q) for q in QUESTIONS], strict=True)
            if a.confidence is not None and b.confidence is not None
        ]
        out = {
            "documents": len(report.files),
            "chunks": len(text.chunks),
            "text_only_index_s": round(text_s, 3),
            "embedded_index_s": round(embedded_s, 3),
            "ratio": round(text_s / embedded_s, 4),
            "embed_chunks_ms_median": round(statistics.median(chunk_ms), 1),
            "embed_chunks_ms_max": round(max(chunk_ms), 1),
            "top_k": cfg.top_k,
            "gauge_max_abs_diff": max(gauge_diff) if gauge_diff else None,
            "questions": len(QUESTIONS),
        }
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
