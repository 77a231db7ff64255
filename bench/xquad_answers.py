"""Answer quality on XQuAD (English): index the 240 paragraphs, ask the 1,190 questions.

Per backend: share of answers containing the gold answer, share whose citations include the gold
paragraph, abstention rate, token F1 / exact match, median latency. Then 100 questions (seeded sample)
against an index with their paragraphs removed: the "I don't know" rate we want high.

    python bench/xquad_answers.py --llm extractive
    python bench/xquad_answers.py --llm local --limit 300
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine
from ragkit.evaluation.datasets.loaders import load_squad
from ragkit.evaluation.metrics.answers import contains_gold, exact_match, token_f1
from ragkit.evaluation.runs.beir import dataset_index
from ragkit.index.embeddings import Embedder
from ragkit.ingestion.chunkers import make_chunker
from ragkit.llms import build_llm
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline

EVAL = Path(__file__).resolve().parents[2] / "shared" / "evaldata"


def run(pipeline: RagPipeline, questions, progress_label: str) -> dict:
    rows = []
    for i, q in enumerate(questions):
        t = time.perf_counter()
        ans = pipeline.ask(q.question)
        latency = (time.perf_counter() - t) * 1000
        rows.append(
            {
                "qid": q.qid,
                "contains_gold": contains_gold(ans.text, q.answers) if not ans.abstained else 0.0,
                "f1": token_f1(ans.text, q.answers) if not ans.abstained else 0.0,
                "em": exact_match(ans.text, q.answers) if not ans.abstained else 0.0,
                "cites_gold": float(any(c.source == q.paragraph_id for c in ans.citations)),
                "retrieved_gold": float(any(h.chunk.doc_id == q.paragraph_id for h in ans.hits)),
                "abstained": float(ans.abstained),
                "confidence": ans.confidence.value if ans.confidence else None,
                "latency_ms": latency,
                "answer": ans.text,
            }
        )
        if (i + 1) % 100 == 0:
            print(f"  {progress_label}: {i + 1}/{len(questions)}", file=sys.stderr, flush=True)
    n = len(rows)

    def mean(key: str) -> float:
        return sum(r[key] for r in rows) / n if n else 0.0

    return {
        "questions": n,
        "contains_gold": mean("contains_gold"),
        "cites_gold_paragraph": mean("cites_gold"),
        "gold_paragraph_retrieved": mean("retrieved_gold"),
        "f1": mean("f1"),
        "exact_match": mean("em"),
        "abstention_rate": mean("abstained"),
        "latency_ms_p50": statistics.median(r["latency_ms"] for r in rows) if rows else 0.0,
        "rows": rows,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", default=str(EVAL / "xquad_en" / "xquad.en.json"))
    ap.add_argument("--llm", default="extractive", choices=["extractive", "local", "groq", "ollama"])
    ap.add_argument("--model", default=None)
    ap.add_argument("--retriever", default="hybrid")
    ap.add_argument("--chunker", default="sliding")
    ap.add_argument("--top-k", type=int, default=5)
    ap.add_argument("--threshold", type=float, default=0.25)
    ap.add_argument("--limit", type=int, default=0, help="answerable questions to ask (0 = all 1,190)")
    ap.add_argument("--unanswerable", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    ds = load_squad(args.dataset)
    embedder = Embedder()
    chunker = make_chunker(args.chunker)
    # extractive is built by each pipeline (it reads whole sentences from that pipeline's index);
    # a model-backed LLM is loaded once and shared by both pipelines
    llm = None if args.llm == "extractive" else build_llm(args.llm, model=args.model, embedder=embedder)
    config = PipelineConfig(
        name=args.llm,
        retriever=args.retriever,
        chunker=args.chunker,
        llm=args.llm,
        llm_model=args.model,
        top_k=args.top_k,
        confidence_threshold=args.threshold,
        max_tokens=64,
    )
    res: dict = {
        "machine": machine(),
        "dataset": ds.name,
        "config": config.to_dict(),
        "paragraphs": len(ds.paragraphs),
    }

    store, build_s, _ = dataset_index("xquad", ds.documents(), chunker, embedder)
    res["index"] = {"chunks": len(store.chunks), "build_s": build_s}
    pipe = RagPipeline(config, store, embedder, llm=llm)
    res["llm_model"] = pipe.llm.model
    pipe.ask("warm up: what is this?")
    questions = ds.questions[: args.limit or None]
    res["answerable"] = run(pipe, questions, "answerable")

    sample = random.Random(args.seed).sample(ds.questions, args.unanswerable)
    removed = {q.paragraph_id for q in sample}
    store2, _, _ = dataset_index("xquad-minus", ds.documents(exclude=removed), chunker, embedder)
    pipe2 = RagPipeline(config, store2, embedder, llm=llm)
    res["unanswerable"] = run(pipe2, sample, "paragraph removed")
    res["unanswerable"]["paragraphs_removed"] = len(removed)

    out = Path(args.out or Path(__file__).parent / "results" / f"xquad_{args.llm}.json")
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(res, indent=2))
    summary = {
        k: {kk: vv for kk, vv in v.items() if kk != "rows"} if isinstance(v, dict) else v
        for k, v in res.items()
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
