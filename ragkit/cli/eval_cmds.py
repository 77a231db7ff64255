"""Evaluation commands: ``eval retrieval`` (BEIR metrics and latency for one retriever), ``eval run``
(1-5 configs over a labelled set, with CIs and significance), ``calibrate`` and ``presets``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ragkit import __version__
from ragkit.cli.common import (
    add_model_args,
    add_store_args,
    embedder_from_args,
    load_models,
    progress_bar,
    say,
    say_problems,
    store_from_args,
    write_file,
    write_json,
)
from ragkit.cli.flags import add_config_flags, config_from_args
from ragkit.core.errors import RagkitError

#: ``eval retrieval`` fuses this many candidates per retriever (its metrics look 300 chunks deep)
EVAL_DEPTH = 300


def add_commands(sub: Any) -> None:
    from ragkit.llms import LLMS

    judges = [c.name for c in LLMS.components() if c.generative]
    ev = sub.add_parser("eval", help="evaluate on labelled data").add_subparsers(dest="what", required=True)
    p = ev.add_parser("retrieval", help="nDCG@10, Recall@10/100, MRR@10 and latency on a BEIR dataset")
    p.add_argument("--dataset", required=True, help="BEIR directory (corpus, queries.jsonl, qrels/)")
    p.add_argument("--split", default="test")
    p.add_argument("--index-root", default="indexes/.eval", help="where dataset indexes are cached")
    p.add_argument(
        "--eval-depth",
        type=int,
        default=EVAL_DEPTH,
        help="chunks retrieved per query before aggregating to documents",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N queries (quick checks)")
    p.add_argument("--json", dest="json_out", default=None, help="write the result JSON here")
    add_config_flags(p, "index", "retrieval")
    add_store_args(p, new=True)
    add_model_args(p)
    p.set_defaults(func=cmd_eval_retrieval)

    p = ev.add_parser("run", help="1-5 pipeline configs over a labelled set, with CIs and significance")
    p.add_argument(
        "--dataset",
        required=True,
        help="a BEIR directory, a SQuAD .json file, or a .csv/.jsonl question set (with --collection)",
    )
    p.add_argument(
        "--collection",
        default=None,
        help="the collection a .csv/.jsonl set runs over (or whose UI labels to use with --dataset labels)",
    )
    p.add_argument(
        "--holdout",
        type=float,
        default=0.0,
        help="SQuAD: leave this fraction of paragraphs out of the index; their questions have no evidence",
    )
    p.add_argument(
        "--split", default="test", help="BEIR: the queries and qrels of this split (qrels/<split>.tsv)"
    )
    p.add_argument("--save", action="store_true", help="also save the run under <index-root>/runs/")
    p.add_argument(
        "--config",
        dest="configs",
        action="append",
        required=True,
        help="a pipeline config JSON (repeat: 1 to 5 of them; configs/presets/ holds the presets)",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N questions")
    p.add_argument("--index-root", default="indexes/.eval")
    p.add_argument("--json", dest="json_out", default=None, help="write the full result JSON here")
    p.add_argument("--report", default=None, help="write a Markdown report here")
    p.add_argument(
        "--primary-metric",
        default=None,
        help="the metric the run is decided on, declared before it runs: its pairwise tests are corrected "
        "together (Holm), every other test is exploratory (default: ndcg@10 when relevance is labelled, "
        "else contains_gold)",
    )
    p.add_argument(
        "--offline-fallbacks",
        action="store_true",
        help="swap what cannot run here (an LLM service without key or server, missing weights) for the "
        "extractive backend / no rerank, and say so (the run records the configs that really ran)",
    )
    p.add_argument(
        "--judge",
        choices=judges,
        default=None,
        help="grade answers with this LLM: RAGAS-style metrics and SimpleQA grades (see --metrics)",
    )
    p.add_argument("--judge-model", default=None, help="the judge's model (default: the backend's)")
    p.add_argument(
        "--metrics",
        default="all",
        help="judge metrics, comma-separated: faithfulness, answer_relevancy, context_precision, "
        "context_recall, answer_correctness, simpleqa (default: all; those needing a gold answer are "
        "skipped on questions without one)",
    )
    p.add_argument(
        "--judge2",
        choices=judges,
        default=None,
        help="a second judge on the same metrics: the run reports how well the two agree",
    )
    p.add_argument("--judge2-model", default=None)
    p.add_argument(
        "--llm-citation-check",
        action="store_true",
        help="decide whether a citation supports its sentence with the judge, not the offline check",
    )
    p.set_defaults(func=cmd_eval_run)

    p = sub.add_parser(
        "calibrate",
        help="fit the confidence gauge of one config of a saved eval run; write the calibrated config",
    )
    p.add_argument("run", help="an eval run JSON (eval run --json, or a run saved under indexes/.eval/runs)")
    p.add_argument("--config", dest="config_name", required=True, help="the config's name in the run")
    p.add_argument("--method", choices=("isotonic", "platt"), default="isotonic")
    p.add_argument("--out", required=True, help="write the calibrated config JSON here")
    p.set_defaults(func=cmd_calibrate)

    p = sub.add_parser("presets", help="list the shipped presets (configs/presets/*.json)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_presets)


def cmd_eval_retrieval(args: argparse.Namespace) -> int:
    from ragkit.cli.query_cmds import retrieval_summary
    from ragkit.evaluation.datasets.loaders import load_beir
    from ragkit.evaluation.runs.beir import dataset_index, evaluate_retrieval
    from ragkit.index.lexical import needs_vectors
    from ragkit.ingestion.chunkers import chunker_for
    from ragkit.retrievers import retriever_from_config
    from ragkit.retrievers.base import warm_up

    dataset = load_beir(args.dataset, args.split)
    config = config_from_args(args, hybrid_depth=EVAL_DEPTH)
    chunker = chunker_for(config)
    embedder = embedder_from_args(args, backend=config.embedding_backend)
    vectors = needs_vectors(config)  # BM25 alone: nothing embedded, no model loaded
    if vectors:
        load_models(embedder)
    progress, close = progress_bar(True)
    try:
        store, build_s, cached = dataset_index(
            dataset.name,
            dataset.documents(),
            chunker,
            embedder,
            args.index_root,
            progress,
            store_from_args(args),
            vectors=vectors,
        )
        retriever = retriever_from_config(config, store, embedder if vectors else None)
        say("building the search structures (BM25 statistics, FAISS) before timing queries …")
        warm_up(retriever)
        result = evaluate_retrieval(dataset, retriever, args.eval_depth, args.limit, progress)
        ann = None
        if config.dense_index != "flat" and "dense" in retrieval_summary(config):
            from ragkit.evaluation.runs.beir import ann_recall, query_order

            say("measuring HNSW against the exact search (recall@10 of the dense top-10) …")
            qids = sorted(dataset.queries, key=query_order)[: args.limit or None]
            ann = ann_recall(
                store,
                embedder,
                [dataset.queries[q] for q in qids],
                {"hnsw_m": config.hnsw_m, "hnsw_ef_search": config.hnsw_ef_search},
            )
    finally:
        close()
    out = {
        "dataset": dataset.name,
        "split": args.split,
        "queries": result["queries"],
        "retriever": config.retriever + ("+rerank" if config.rerank else ""),
        "config": {
            **retrieval_summary(config),
            "chunker": chunker.spec(),
            "embedding": embedder.cache_key if vectors else "none (bm25 alone reads no vectors)",
            "eval_depth": args.eval_depth,
        },
        "metrics": result["metrics"],
        "latency_ms": result["latency_ms"],
        **({"ann": ann} if ann else {}),
        "index_build_s": build_s,
        "index_cached": cached,
        "index": {
            "path": str(store.path) if store.path else None,
            "documents": len(store.documents),
            "chunks": len(store.chunks),
            "store": store.store_description,
        },
        "ragkit_version": __version__,
    }
    m, lat = out["metrics"], out["latency_ms"]
    spec = chunker.spec()
    print(
        f"{out['dataset']} ({out['queries']} queries), {out['retriever']}, "
        f"chunker {spec['name']}{spec['config']}"
    )
    print("  " + "  ".join(f"{k} {v:.4f}" for k, v in m.items()))
    print(
        f"  latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms; index build {build_s:.1f} s"
        f"{' (cached)' if cached else ''}"
    )
    if ann:
        print(
            f"  HNSW recall@10 vs exact {ann['ann_recall@10']:.4f}; dense search p50 exact "
            f"{ann['exact_p50_ms']:.2f} ms, HNSW {ann['hnsw_p50_ms']:.2f} ms"
        )
    write_json(args.json_out, {**out, "per_query": result["per_query"]})
    return 0


def cmd_eval_run(args: argparse.Namespace) -> int:
    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.metrics.comparisons import check_primary
    from ragkit.evaluation.runs.evaluate import evaluate_configs
    from ragkit.evaluation.runs.report_markdown import markdown_report
    from ragkit.evaluation.runs.saved import save_run
    from ragkit.pipeline.config import PipelineConfig

    configs = [PipelineConfig.load(c) for c in args.configs]
    check_primary(args.primary_metric)
    collection = None
    if args.collection:
        from ragkit.index.collections import Collection

        collection = Collection(args.collection)
        if not collection.exists:
            raise RagkitError(f"no collection {args.collection!r} under {collection.path.parent}")
    labels = args.dataset == "labels"
    qset = load_question_set(
        None if labels else args.dataset,
        collection=collection,
        holdout=args.holdout,
        labels=labels,
        split=args.split,
    )
    say_problems(qset)
    say(f"{qset.n} questions, {len(configs)} configs: loading models and building indexes …")
    judge = judge2 = cite_decide = None
    metrics: tuple[str, ...] = ()
    if args.judge:
        from ragkit.evaluation.metrics.judge import build_judge, parse_metrics

        metrics = parse_metrics(args.metrics)
        judge = build_judge(args.judge, args.judge_model, host=configs[0].ollama_host)
        if args.judge2:
            judge2 = build_judge(args.judge2, args.judge2_model, host=configs[0].ollama_host)
        if args.llm_citation_check:
            from ragkit.evaluation.metrics.citations import llm_support

            cite_decide = llm_support(judge.llm)
        say(
            f"judge {judge.model_id} on {', '.join(metrics)}"
            + (f"; second judge {judge2.model_id}" if judge2 else "")
        )
    elif args.judge2 or args.llm_citation_check:
        raise RagkitError("--judge2 and --llm-citation-check need --judge")
    progress, close = progress_bar(True)
    try:
        result = evaluate_configs(
            qset,
            configs,
            args.limit,
            args.index_root,
            progress,
            judge=judge,
            judge2=judge2,
            judge_metrics=metrics,
            cite_decide=cite_decide,
            primary_metric=args.primary_metric,
            offline_fallbacks=args.offline_fallbacks,
        )
    finally:
        close()
    for note in result["params"].get("fallbacks") or []:
        say(f"note: {note}")
    for f in result["failures"]:
        say(f"error: config {f['config']} failed ({f['when']}): {f['error']}; the others finished")
    report = markdown_report(result)
    print(report)
    if args.save:
        print(f"saved run {save_run(result, args.index_root)}", file=sys.stderr)
    write_json(args.json_out, result)
    write_file(args.report, lambda f: f.write(report))
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragkit.evaluation.metrics.calibration import calibrate_from_run

    try:
        result = json.loads(Path(args.run).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RagkitError(
            f"{args.run}: not a readable eval run JSON ({getattr(e, 'strerror', None) or e})"
        ) from None
    try:
        config, cmap = calibrate_from_run(result, args.config_name, args.method)
    except ValueError as e:
        raise RagkitError(f"{args.run}: {e}") from None
    write_file(args.out, lambda f: f.write(config.to_json()))
    print(cmap.describe())
    print(f"wrote {args.out} (config hash {config.cache_key()[:10]})")
    return 0


def cmd_presets(args: argparse.Namespace) -> int:
    from ragkit.pipeline.presets import PRESETS_DIR, load_preset, preset_names

    presets = [load_preset(n) for n in preset_names()]
    if args.json:
        print(json.dumps([p.to_dict() for p in presets], indent=2, ensure_ascii=False))
        return 0
    for p in presets:
        print(f"{p.name}  ({PRESETS_DIR / (p.name + '.json')})")
        print(f"    {p.description}")
        print(f"    reproduces: {p.reference}")
    return 0
