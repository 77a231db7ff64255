"""The two embedding backends side by side, in one run (issue 43): torch float32 against onnx-int8.

Parts (``--parts``: ``eval`` (= ``xquad`` and ``scifact``), ``throughput``, ``ingest``; all by default):

* ``eval``: ``ragkit eval run`` of ``bench/int8/dense-abstracts-{torch,int8}.json`` (dense search over
  whole documents) on SciFact's 300 test queries and, as a second set (NFCorpus is not on this machine
  and no PyPI package ships it), XQuAD English written as a BEIR retrieval set: its 240 paragraphs are
  the corpus, its 1,190 questions the queries, each judged relevant to its own paragraph. nDCG@10 of
  each, and the paired bootstrap 95 % CI of the difference (int8 − torch) as ``eval run`` reports it.
  ``--scifact-docs N`` runs SciFact over its N first abstracts plus every abstract a test query is
  judged relevant to (0: the whole 5,183).
* ``throughput``: chunks/s of each backend on the same sample of SciFact chunks (sliding 500/100), model
  loaded, no cache; the passes alternate (torch, int8, torch, …) so they share the machine alike.
* ``ingest``: ``ragkit ingest`` wall time (a process from start to exit, as a user runs it) of
  ``../shared/evaldata/pdfs`` plus a corpus of XQuAD's 48 articles written as text files (each its title
  and first ``--paragraphs`` paragraphs), into a new
  index with an empty embedding cache, per backend, alternating; the int8 model is converted before (its
  one-time conversion is timed apart).

    .venv/bin/python bench/int8_backend.py --name int8_backend                 # the whole SciFact corpus
    .venv/bin/python bench/int8_backend.py --scifact-docs 1000 --name int8_backend
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EVALDATA = ROOT.parent / "shared" / "evaldata"
CONFIGS = {
    "torch": ROOT / "bench/int8/dense-abstracts-torch.json",
    "onnx-int8": ROOT / "bench/int8/dense-abstracts-int8.json",
}
RAW = ROOT / "bench" / "results" / "raw"


def scifact_subset(target: Path, first: int) -> Path:
    """A BEIR folder: SciFact's ``first`` abstracts plus every abstract a test query is judged relevant to
    (the queries and test qrels unchanged)."""
    src = EVALDATA / "scifact"
    rows = [line.split("\t") for line in (src / "qrels" / "test.tsv").read_text().splitlines()[1:]]
    relevant = {r[1] for r in rows}
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    with gzip.open(src / "corpus.jsonl.gz", "rt") as f, open(target / "corpus.jsonl", "w") as out:
        for i, line in enumerate(f):
            if i < first or json.loads(line)["_id"] in relevant:
                out.write(line)
    shutil.copy(src / "queries.jsonl", target / "queries.jsonl")
    shutil.copy(src / "qrels" / "test.tsv", target / "qrels" / "test.tsv")
    return target


def xquad_beir(target: Path) -> Path:
    """XQuAD English as a BEIR folder: paragraphs ``p0000``… (titled by their article), questions by
    their id, each relevant to its own paragraph."""
    data = json.loads((EVALDATA / "xquad_en" / "xquad.en.json").read_text(encoding="utf-8"))["data"]
    (target / "qrels").mkdir(parents=True, exist_ok=True)
    corpus, queries, qrels, n = [], [], ["query-id\tcorpus-id\tscore"], 0
    for art in data:
        for p in art["paragraphs"]:
            pid = f"p{n:04d}"
            n += 1
            corpus.append({"_id": pid, "title": art["title"], "text": p["context"]})
            for qa in p["qas"]:
                queries.append({"_id": qa["id"], "text": qa["question"]})
                qrels.append(f"{qa['id']}\t{pid}\t1")
    (target / "corpus.jsonl").write_text("".join(json.dumps(c) + "\n" for c in corpus))
    (target / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (target / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n")
    return target


def eval_run(dataset: Path, tag: str, index_root: Path, env: dict[str, str], limit: int = 0) -> dict:
    """nDCG@10 of both configs and the paired comparison of int8 against torch, from ``eval run``."""
    out = RAW / f"int8_evalrun_{tag}.json"
    cmd = [sys.executable, "-m", "ragkit", "eval", "run", "--dataset", str(dataset),
           "--config", str(CONFIGS["torch"]), "--config", str(CONFIGS["onnx-int8"]),
           "--index-root", str(index_root), "--json", str(out),
           "--report", str(out.with_suffix(".md")), *(["--limit", str(limit)] if limit else [])]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    result = json.loads(out.read_text())
    means = {c["name"]: c["metrics"].get("ndcg@10") for c in result["configs"]}
    pair = next(x for x in result["comparisons"] if x["metric"] == "ndcg@10")
    return {
        "questions": pair["n"],
        "ndcg@10": means,
        "diff": round(pair["diff"], 4),
        "ci95": [round(pair["ci_low"], 4), round(pair["ci_high"], 4)],
        "p": pair["p_value"],
        "verdict": pair["verdict"],
        "pair": f"{pair['b']} − {pair['a']}",
        "wall_s": round(time.perf_counter() - t, 1),
    }


def throughput(sample: int, passes: int) -> dict:
    from ragkit.evaluation.datasets.loaders import load_beir
    from ragkit.index.embeddings import Embedder
    from ragkit.ingestion.chunkers import SlidingChunker

    docs = load_beir(str(EVALDATA / "scifact"), "test").documents()
    chunks = [c.text for d in docs for c in SlidingChunker().split(d)]
    texts = random.Random(0).sample(chunks, sample)
    embedders = {b: Embedder(backend=b, cache=False) for b in CONFIGS}
    for e in embedders.values():
        e.embed(texts[:64])  # loaded (int8: converted) and warm before any timing
    rates: dict[str, list[float]] = {b: [] for b in CONFIGS}
    for _ in range(passes):
        for b, e in embedders.items():
            t = time.perf_counter()
            e.embed(texts)
            rates[b].append(len(texts) / (time.perf_counter() - t))
    out = {b: {"chunks_per_s": round(statistics.median(r), 1), "passes": [round(x, 1) for x in r]}
           for b, r in rates.items()}  # fmt: skip
    out["ratio"] = round(out["onnx-int8"]["chunks_per_s"] / out["torch"]["chunks_per_s"], 2)
    out["sample"] = sample
    return out


def own_corpus(target: Path, paragraphs: int) -> int:
    """XQuAD's 48 articles as text files, each its title and first ``paragraphs`` paragraphs; how many."""
    data = json.loads((EVALDATA / "xquad_en" / "xquad.en.json").read_text(encoding="utf-8"))["data"]
    target.mkdir(parents=True, exist_ok=True)
    for i, art in enumerate(data):
        body = "\n\n".join(p["context"] for p in art["paragraphs"][:paragraphs])
        (target / f"{i:02d}_{art['title'][:40].replace('/', '_')}.txt").write_text(
            f"{art['title']}\n\n{body}\n", encoding="utf-8"
        )
    return len(data)


def ingest(repeat: int, env: dict[str, str], work: Path, paragraphs: int, before: Path | None = None) -> dict:
    corpus = work / "xquad_articles"
    n_docs = own_corpus(corpus, paragraphs)
    from ragkit.index.embeddings import Embedder

    t = time.perf_counter()
    Embedder(backend="onnx-int8", cache=False).warm_up()  # the one-time conversion, timed apart
    conversion_s = time.perf_counter() - t
    kinds = [*CONFIGS, *(["before"] if before else [])]
    runs: dict[str, list[float]] = {b: [] for b in kinds}
    chunks = {}
    for i in range(repeat):
        for b in kinds:
            index, cache = work / f"idx-{b}-{i}", work / f"cache-{b}-{i}"
            flags = [] if b == "before" else ["--embedding-backend", b]  # before: its default (torch)
            cmd = [sys.executable, "-m", "ragkit", "ingest", "--index", str(index), "--no-progress",
                   *flags, "--cache-dir", str(cache), str(EVALDATA / "pdfs"), str(corpus)]  # fmt: skip
            run_env = dict(env, PYTHONPATH=str(before)) if b == "before" else env
            t = time.perf_counter()
            subprocess.run(cmd, cwd=before if b == "before" else ROOT, env=run_env, check=True,
                           stdout=subprocess.DEVNULL)  # fmt: skip
            runs[b].append(time.perf_counter() - t)
            chunks[b] = json.loads((index / "manifest.json").read_text()).get("counts")
            shutil.rmtree(index, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
    out = {b: {"seconds": round(statistics.median(r), 1), "runs": [round(x, 1) for x in r],
               "index": chunks[b]} for b, r in runs.items()}  # fmt: skip
    out["speedup"] = round(out["torch"]["seconds"] / out["onnx-int8"]["seconds"], 2)
    if before:  # the round's starting point: torch, parsing then embedding
        out["speedup_over_before"] = round(out["before"]["seconds"] / out["onnx-int8"]["seconds"], 2)
    out["documents"] = {"pdfs": len(list((EVALDATA / "pdfs").glob("*.pdf"))), "xquad_articles": n_docs,
                        "paragraphs_per_article": paragraphs}  # fmt: skip
    out["int8_conversion_s"] = round(conversion_s, 1)
    return out


def main() -> None:
    from bench._common import write_result

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="eval,throughput,ingest")
    ap.add_argument("--scifact-docs", type=int, default=0, help="0: the whole corpus (see the docstring)")
    ap.add_argument("--xquad-limit", type=int, default=0, help="the first N XQuAD questions (0: all 1,190)")
    ap.add_argument("--sample", type=int, default=512, help="chunks per throughput pass")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=2, help="ingest runs per backend")
    ap.add_argument("--paragraphs", type=int, default=5, help="XQuAD paragraphs per article document")
    ap.add_argument("--work", default=None, help="keep indexes and the embedding cache here (reused)")
    ap.add_argument("--name", default="int8_backend")
    ap.add_argument("--before", default=None, help="a checkout of the round's start (git archive 289e23e): "
                    "its ingest, torch and sequential, joins the alternation")  # fmt: skip
    args = ap.parse_args()
    parts = {p.strip() for p in args.parts.split(",")}
    work = Path(args.work or tempfile.mkdtemp(prefix="ragkit-int8-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["RAGKIT_CACHE_DIR"] = str(work / "cache")  # the int8 model and the eval's vectors
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    RAW.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    if "throughput" in parts:
        out["throughput"] = throughput(args.sample, args.passes)
        print(json.dumps(out["throughput"]), flush=True)
    if "ingest" in parts:
        before = Path(args.before).resolve() if args.before else None
        out["ingest"] = ingest(args.repeat, env, work, args.paragraphs, before)
        print(json.dumps(out["ingest"]), flush=True)
    if parts & {"eval", "xquad"}:
        out["xquad"] = eval_run(xquad_beir(work / "xquad"), "xquad", work / "eval", env, args.xquad_limit)
        print(json.dumps(out["xquad"]), flush=True)
    if parts & {"eval", "scifact"}:
        if args.scifact_docs:
            scifact = scifact_subset(work / f"scifact-{args.scifact_docs}", args.scifact_docs)
        else:
            scifact = EVALDATA / "scifact"
        out["scifact"] = eval_run(scifact, "scifact", work / "eval", env)
        out["scifact"]["corpus"] = (
            "whole" if not args.scifact_docs else f"first {args.scifact_docs} + relevant"
        )
        print(json.dumps(out["scifact"]), flush=True)
    print(write_result(args.name, out))


if __name__ == "__main__":
    main()
