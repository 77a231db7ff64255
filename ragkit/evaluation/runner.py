"""``ragkit eval run``: several pipeline configs over one labelled question set, per-question scores,
metrics, paired comparisons with bootstrap CIs and significance, and calibration of the confidence.

Question sets: a BEIR directory (retrieval metrics at document level) or a SQuAD JSON file (answer
metrics: contains-gold, token F1, exact match, abstention, confidence calibration).
"""

from __future__ import annotations

import hashlib
import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.chunkers import make_chunker
from ragkit.config import PipelineConfig
from ragkit.embeddings import Embedder
from ragkit.errors import RagkitError
from ragkit.evaluation.answers import contains_gold, exact_match, token_f1
from ragkit.evaluation.calibration import expected_calibration_error, reliability_bins, risk_coverage
from ragkit.evaluation.datasets import load_beir, load_squad
from ragkit.evaluation.metrics import max_by_document, per_query_metrics
from ragkit.evaluation.retrieval import dataset_index, latency_summary, query_order
from ragkit.evaluation.stats import compare_paired
from ragkit.pipeline import RagPipeline
from ragkit.retrievers import retriever_from_config

Progress = Callable[[str, int, int], None]
BEIR_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
QA_METRICS = ("contains_gold", "f1", "exact_match", "abstained")
LOWER_IS_BETTER = frozenset({"abstained"})  # on answerable questions, abstaining is a miss


@dataclass
class ConfigRun:
    config: PipelineConfig
    per_question: dict[str, dict[str, Any]]  # question id -> metric -> value (plus details)
    metrics: dict[str, float]
    latency_ms: dict[str, float]
    calibration: dict[str, Any] | None = None


def dataset_hash(path: str | Path) -> str:
    """sha256 over the dataset's files (a directory's files in sorted order), to stamp every run."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    for f in files:
        h.update(f.name.encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def _indexed(
    name: str,
    documents: list,
    config: PipelineConfig,
    embedders: dict[str, Embedder],
    index_root: str,
    progress: Progress | None,
) -> tuple[Any, Embedder]:
    """The dataset's cached index for this config's chunker and model, and the (shared) embedder."""
    if config.embedding_model not in embedders:
        embedders[config.embedding_model] = Embedder(config.embedding_model)
    emb = embedders[config.embedding_model]
    chunker = make_chunker(config.chunker, **config.chunker_params)
    store, _, _ = dataset_index(name, documents, chunker, emb, index_root, progress)
    return store, emb


def run_beir(
    path: str | Path,
    config: PipelineConfig,
    embedders: dict,
    depth: int = 300,
    limit: int | None = None,
    index_root: str = "indexes/.eval",
    progress: Progress | None = None,
) -> ConfigRun:
    ds = load_beir(path)
    store, emb = _indexed(ds.name, ds.documents(), config, embedders, index_root, progress)
    retriever = retriever_from_config(config, store, emb)
    retriever.search("warm up", 1)
    qids = sorted(ds.queries, key=query_order)[: limit or None]
    run, lat = {}, []
    for i, qid in enumerate(qids):
        t = time.perf_counter()
        hits = retriever.search(ds.queries[qid], depth)
        lat.append((time.perf_counter() - t) * 1000)
        run[qid] = max_by_document([(h.chunk.doc_id, h.score) for h in hits], 100)
        if progress:
            progress(f"{config.name}: queries", i + 1, len(qids))
    per_q = per_query_metrics({q: ds.qrels[q] for q in qids}, run)
    for qid, ms in zip(qids, lat, strict=True):
        per_q[qid]["latency_ms"] = ms
    metrics = {m: statistics.fmean(v[m] for v in per_q.values()) for m in BEIR_METRICS}
    return ConfigRun(config, per_q, metrics, latency_summary(lat))


def run_squad(
    path: str | Path,
    config: PipelineConfig,
    embedders: dict,
    limit: int | None = None,
    index_root: str = "indexes/.eval",
    progress: Progress | None = None,
) -> ConfigRun:
    ds = load_squad(path)
    store, emb = _indexed(ds.name, ds.documents(), config, embedders, index_root, progress)
    pipe = RagPipeline(config, store, emb)
    questions = ds.questions[: limit or None]
    per_q: dict[str, dict[str, Any]] = {}
    lat = []
    for i, q in enumerate(questions):
        ans = pipe.ask(q.question)
        lat.append(ans.timings_ms.get("total", 0.0))
        answered = not ans.abstained
        per_q[q.qid] = {
            "contains_gold": contains_gold(ans.text, q.answers) if answered else 0.0,
            "f1": token_f1(ans.text, q.answers) if answered else 0.0,
            "exact_match": exact_match(ans.text, q.answers) if answered else 0.0,
            "abstained": float(ans.abstained),
            "confidence": ans.confidence.value if ans.confidence else None,
            # "correct" for calibration: the right paragraph was retrieved and the answer holds the gold
            "retrieved_gold": float(any(h.chunk.doc_id == q.paragraph_id for h in ans.hits)),
            "latency_ms": ans.timings_ms.get("total", 0.0),
            "prompt_tokens": ans.prompt_tokens,
            "completion_tokens": ans.completion_tokens,
        }
        if progress:
            progress(f"{config.name}: questions", i + 1, len(questions))
    metrics = {m: statistics.fmean(v[m] for v in per_q.values()) for m in QA_METRICS}
    conf = [v["confidence"] for v in per_q.values() if v["confidence"] is not None]
    corr = [v["retrieved_gold"] for v in per_q.values() if v["confidence"] is not None]
    calibration = None
    if conf:
        calibration = {
            "correct_means": "the gold paragraph is among the retrieved chunks",
            "ece": expected_calibration_error(conf, corr),
            "bins": [b.__dict__ for b in reliability_bins(conf, corr)],
            "risk_coverage": risk_coverage(conf, corr),
        }
        metrics["ece"] = calibration["ece"]
    return ConfigRun(config, per_q, metrics, latency_summary(lat), calibration)


def evaluate_configs(
    dataset: str | Path,
    configs: Sequence[PipelineConfig],
    limit: int | None = None,
    index_root: str = "indexes/.eval",
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run every config over the dataset and compare every pair on every per-question metric."""
    if not 1 <= len(configs) <= 4:
        raise RagkitError(f"evaluate 1 to 4 configs at a time, got {len(configs)}")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise RagkitError(f"config names must differ, got {names}")
    p = Path(dataset)
    embedders: dict[str, Embedder] = {}
    if p.is_dir():
        kind, runs = (
            "beir",
            [
                run_beir(p, c, embedders, limit=limit, index_root=index_root, progress=progress)
                for c in configs
            ],
        )
        metric_names = BEIR_METRICS
    elif p.suffix == ".json":
        kind, runs = "squad", [run_squad(p, c, embedders, limit, index_root, progress) for c in configs]
        metric_names = QA_METRICS
    else:
        raise RagkitError(f"{dataset}: expected a BEIR directory or a SQuAD .json file")
    comparisons = []
    for ra, rb in itertools.combinations(runs, 2):
        qids = [q for q in ra.per_question if q in rb.per_question]
        for m in metric_names:
            res = compare_paired(
                [ra.per_question[q][m] for q in qids],
                [rb.per_question[q][m] for q in qids],
                higher_is_better=m not in LOWER_IS_BETTER,
            )
            comparisons.append({"a": ra.config.name, "b": rb.config.name, "metric": m, **res.to_dict()})
    return {
        "dataset": str(dataset),
        "dataset_kind": kind,
        "dataset_hash": dataset_hash(p),
        "ragkit_version": __version__,
        "questions": len(runs[0].per_question),
        "configs": [
            {
                "name": r.config.name,
                "hash": r.config.cache_key(),
                "config": r.config.to_dict(),
                "metrics": r.metrics,
                "latency_ms": r.latency_ms,
                "calibration": r.calibration,
                "per_question": r.per_question,
            }
            for r in runs
        ],
        "comparisons": comparisons,
    }


def markdown_report(result: dict[str, Any]) -> str:
    """The run as Markdown: metric table per config, then every comparison with its CI and verdict."""
    lines = [
        f"# ragkit evaluation: {Path(result['dataset']).name}",
        "",
        f"{result['questions']} questions · dataset sha256 {result['dataset_hash'][:12]} · "
        f"ragkit {result['ragkit_version']}",
        "",
    ]
    metrics = list(result["configs"][0]["metrics"])
    lines += [
        "| config | hash | " + " | ".join(metrics) + " | p50 ms | p95 ms |",
        "|---|---|" + "---|" * len(metrics) + "---|---|",
    ]
    for c in result["configs"]:
        vals = " | ".join(f"{c['metrics'][m]:.4f}" for m in metrics)
        lines.append(
            f"| {c['name']} | {c['hash'][:10]} | {vals} | {c['latency_ms']['p50']:.1f} | "
            f"{c['latency_ms']['p95']:.1f} |"
        )
    lines += [
        "",
        "| a | b | metric | diff (b − a) | 95 % CI | p | test | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for x in result["comparisons"]:
        lines.append(
            f"| {x['a']} | {x['b']} | {x['metric']} | {x['diff']:+.4f} | [{x['ci_low']:+.4f}, "
            f"{x['ci_high']:+.4f}] | {x['p_value']:.3g} | {x['test']} | {x['verdict']} |"
        )
    return "\n".join(lines) + "\n"
