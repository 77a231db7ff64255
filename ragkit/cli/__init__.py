"""``python -m ragkit``: ingest files, inspect indexes (later issues add search, ask and eval).

Every ``RagkitError`` is caught here and printed as one line on stderr; exit codes are 0 (ok),
1 (some input failed or an error occurred), 2 (bad command line), 130 (interrupted).
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ragkit import __version__
from ragkit.core.errors import RagkitError
from ragkit.ingestion.reading import DEFAULT_MAX_MB

log = logging.getLogger("ragkit")


def _add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        default=None,
        help="sentence-transformers model name or local path (default: all-MiniLM-L6-v2, shipped offline)",
    )
    p.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "bfloat16", "auto"],
        help="embedding precision of a new index (bfloat16 is faster on AMX CPUs; auto picks it where the "
        "CPU has native bf16); an existing index keeps its own",
    )
    p.add_argument(
        "--cache-dir",
        default=None,
        help="embedding cache directory (default $RAGKIT_CACHE_DIR or ~/.cache/ragkit)",
    )


def _add_store_args(p: argparse.ArgumentParser, new: bool = False) -> None:
    g = p.add_argument_group("vector store")
    g.add_argument(
        "--store",
        choices=["local", "qdrant"],
        default=None,
        help=(
            "where a new index keeps its vectors: local files (default) or Qdrant (embedded, or a server "
            "with --uri)"
            if new
            else "where the index keeps its vectors (default: as recorded in the index; a different one is "
            "refused)"
        ),
    )
    g.add_argument(
        "--uri", default=None, help="Qdrant server URL, e.g. http://localhost:6333 (key: $QDRANT_API_KEY)"
    )
    g.add_argument("--collection", default=None, help="Qdrant server collection (default ragkit_<index>)")


def _store_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """The store spec the flags ask for (None: no flag given)."""
    from ragkit.index.vectorstores.base import store_spec

    if args.store is None and not args.uri and not args.collection:
        return None
    kind = args.store or "qdrant"  # --uri alone means a Qdrant server
    return store_spec(kind, args.uri, args.collection)


def _check_store_args(args: argparse.Namespace, index: str) -> None:
    """Refuse --store/--uri flags that contradict where the index keeps its vectors."""
    from ragkit.index.manifest import check_store

    check_store(index, _store_from_args(args))


def _add_retriever_args(p: argparse.ArgumentParser, default_depth: int = 50) -> None:
    g = p.add_argument_group("retrieval")
    g.add_argument("--retriever", choices=["dense", "bm25", "hybrid"], default="hybrid")
    g.add_argument("--k1", type=float, default=0.9, help="bm25 term saturation")
    g.add_argument("--b", type=float, default=0.4, help="bm25 length normalisation")
    g.add_argument(
        "--bm25-engine",
        choices=["bm25s", "rank_bm25"],
        default="bm25s",
        help="bm25s (default: fast, state saved with the index) or rank_bm25 (the reference engine)",
    )
    g.add_argument(
        "--dense-index",
        choices=["flat", "hnsw", "auto"],
        default="flat",
        help="dense search: flat (exact), hnsw (approximate), auto (HNSW from 200k chunks)",
    )
    g.add_argument("--hnsw-m", type=int, default=32, help="HNSW graph degree")
    g.add_argument("--hnsw-ef-search", type=int, default=64, help="HNSW candidates per query")
    g.add_argument("--rrf-k", type=float, default=60.0, help="hybrid: RRF constant k")
    g.add_argument("--depth", type=int, default=default_depth, help="hybrid: candidates per retriever")
    g.add_argument("--weights", default=None, help="hybrid: e.g. bm25=0.6,dense=0.4")
    g.add_argument(
        "--intent-routing",
        action="store_true",
        help="hybrid: weight bm25/dense by query intent (FACT/CONCEPT/COMPARISON)",
    )
    g.add_argument("--rerank", action="store_true", help="rerank with a cross-encoder")
    g.add_argument(
        "--rerank-model",
        default=None,
        help="cross-encoder name or local path (default cross-encoder/ms-marco-MiniLM-L-6-v2)",
    )
    g.add_argument("--rerank-candidates", type=int, default=50, help="how many candidates to rerank")


def _parse_weights(text: str | None) -> dict[str, float] | None:
    if not text:
        return None
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise RagkitError(f"--weights: {part!r} is not name=number") from None
    return out


def _parse_where(items: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RagkitError(f"--where {item!r}: use KEY=VALUE, e.g. kind=code")
        out[key.strip()] = value.strip()
    return out


def _retriever_from_args(args: argparse.Namespace, store: Any, embedder: Any) -> Any:
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.retrievers import retriever_from_config

    weights = _parse_weights(args.weights)
    config = PipelineConfig(
        retriever=args.retriever,
        bm25_k1=args.k1,
        bm25_b=args.b,
        bm25_engine=args.bm25_engine,
        dense_index=args.dense_index,
        hnsw_m=args.hnsw_m,
        hnsw_ef_search=args.hnsw_ef_search,
        rrf_k=args.rrf_k,
        hybrid_depth=args.depth,
        intent_routing=args.intent_routing,
        rerank=args.rerank,
        rerank_candidates=args.rerank_candidates,
        **({"hybrid_weights": weights} if weights else {}),
        **({"rerank_model": args.rerank_model} if args.rerank_model else {}),
    )
    return retriever_from_config(config, store, embedder)


def _retrieval_config(args: argparse.Namespace) -> dict[str, Any]:
    cfg: dict[str, Any] = {"retriever": args.retriever}
    if args.retriever in ("dense", "hybrid") and args.dense_index != "flat":
        cfg["dense"] = {
            "index": args.dense_index,
            "hnsw_m": args.hnsw_m,
            "hnsw_ef_search": args.hnsw_ef_search,
        }
    if args.retriever in ("bm25", "hybrid"):
        cfg["bm25"] = {"k1": args.k1, "b": args.b, "engine": args.bm25_engine}
    if args.retriever == "hybrid":
        cfg["hybrid"] = {
            "k": args.rrf_k,
            "depth": args.depth,
            "weights": _parse_weights(args.weights),
            "intent_routing": args.intent_routing,
        }
    if args.rerank:
        from ragkit.retrievers.rerank import DEFAULT_RERANKER

        cfg["rerank"] = {"model": args.rerank_model or DEFAULT_RERANKER, "candidates": args.rerank_candidates}
    return cfg


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m ragkit", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"ragkit {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress details")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "ingest",
        help="add PDF/TXT/MD/HTML/DOCX files, Q&A CSV/JSONL and http(s) URLs to an index (incremental)",
    )
    p.add_argument("--index", required=True, help="index directory (created if missing)")
    p.add_argument(
        "--chunker",
        choices=["sliding", "sentence", "markdown"],
        default=None,
        help="default: the index's own chunker, or sliding for a new index",
    )
    p.add_argument("--chunk-size", type=int, default=None, help="sliding: window size in characters")
    p.add_argument(
        "--overlap",
        type=int,
        default=None,
        help="sliding: overlap in characters; sentence: overlap in sentences",
    )
    p.add_argument("--window", type=int, default=None, help="sentence: sentences per chunk")
    p.add_argument("--min-chars", type=int, default=None, help="markdown: merge pieces shorter than this")
    p.add_argument("--max-chars", type=int, default=None, help="markdown: window prose longer than this")
    p.add_argument(
        "--max-mb",
        type=float,
        default=DEFAULT_MAX_MB,
        help=f"skip files larger than this (MB; {DEFAULT_MAX_MB:g})",
    )
    p.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="read symbolic links that lead outside the folder they were named in (refused by default)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress on stderr")
    _add_store_args(p, new=True)
    _add_model_args(p)
    p.add_argument(
        "files", nargs="+", help="files, folders (every supported file inside) and http(s):// URLs to ingest"
    )
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("info", help="summarise an index")
    p.add_argument("--index", required=True)
    p.add_argument("--json", action="store_true")
    _add_store_args(p)
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("search", help="retrieve chunks for a query, with every stage score")
    p.add_argument("--index", required=True)
    p.add_argument("--top-k", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p.add_argument("--threshold", type=float, default=None, help="abstention threshold for confidence")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep chunks whose metadata matches (kind=code, tags=python, url=...); repeatable",
    )
    _add_retriever_args(p)
    _add_store_args(p)
    _add_model_args(p)
    p.add_argument("query")
    p.set_defaults(func=cmd_search)

    ev = sub.add_parser("eval", help="evaluate on labelled data").add_subparsers(dest="what", required=True)
    p = ev.add_parser("retrieval", help="nDCG@10, Recall@10/100, MRR@10 and latency on a BEIR dataset")
    p.add_argument("--dataset", required=True, help="BEIR directory (corpus, queries.jsonl, qrels/)")
    p.add_argument("--split", default="test")
    p.add_argument("--chunker", choices=["sliding", "sentence", "markdown"], default="sliding")
    p.add_argument("--chunk-size", type=int, default=None)
    p.add_argument("--overlap", type=int, default=None)
    p.add_argument("--window", type=int, default=None)
    p.add_argument("--min-chars", type=int, default=None)
    p.add_argument("--max-chars", type=int, default=None)
    p.add_argument("--index-root", default="indexes/.eval", help="where dataset indexes are cached")
    _add_store_args(p, new=True)
    p.add_argument(
        "--eval-depth",
        type=int,
        default=300,
        help="chunks retrieved per query before aggregating to documents",
    )
    p.add_argument("--limit", type=int, default=None, help="only the first N queries (quick checks)")
    p.add_argument("--json", dest="json_out", default=None, help="write the result JSON here")
    _add_retriever_args(p, default_depth=300)
    _add_model_args(p)
    p.set_defaults(func=cmd_eval_retrieval)

    p = ev.add_parser("run", help="2-5 pipeline configs over a labelled set, with CIs and significance")
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
        "--offline-fallbacks",
        action="store_true",
        help="swap what cannot run here (an LLM service without key or server, missing weights) for the "
        "extractive backend / no rerank, and say so (the run records the configs that really ran)",
    )
    p.add_argument(
        "--judge",
        choices=("groq", "ollama", "openai", "local"),
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
        choices=("groq", "ollama", "openai", "local"),
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

    p = sub.add_parser("ask", help="answer a question from an index, with citations and confidence")
    p.add_argument("--index", required=True)
    p.add_argument(
        "--config",
        default=None,
        help="a pipeline config JSON (as the sidebar exports); the flags below override its fields",
    )
    p.add_argument("--retriever", choices=["dense", "bm25", "hybrid"], default=None)
    p.add_argument("--rerank", action="store_true", default=None)
    p.add_argument("--rerank-model", default=None)
    p.add_argument("--intent-routing", action="store_true", default=None)
    p.add_argument(
        "--llm",
        choices=["extractive", "groq", "ollama", "local", "openai"],
        default=None,
        help="default: groq with GROQ_API_KEY, else ollama if a server answers, else extractive",
    )
    p.add_argument("--model", default=None, help="the LLM's model name (or local path)")
    p.add_argument("--ollama-host", default=None)
    p.add_argument(
        "--base-url", default=None, help="openai: the server's base URL (vLLM, llama.cpp, LM Studio)"
    )
    p.add_argument("--top-k", type=int, default=None)
    p.add_argument("--threshold", type=float, default=None, help="abstain below this retrieval confidence")
    p.add_argument("--temperature", type=float, default=None)
    p.add_argument("--max-tokens", type=int, default=None)
    p.add_argument(
        "--no-retrieval",
        action="store_true",
        default=None,
        help="baseline: the plain LLM without any retrieved context",
    )
    p.add_argument("--json", action="store_true")
    _add_store_args(p)
    p.add_argument("question")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser(
        "copy",
        help="copy an index into a new one whose vectors live elsewhere (e.g. Qdrant), no re-embedding",
    )
    p.add_argument("--index", required=True, help="the index to copy")
    p.add_argument("--to", required=True, help="the new index directory")
    _add_store_args(p, new=True)
    p.set_defaults(func=cmd_copy)

    p = sub.add_parser("remove", help="remove documents (by file name or id) from an index")
    p.add_argument("--index", required=True)
    _add_store_args(p)
    p.add_argument("documents", nargs="+")
    p.set_defaults(func=cmd_remove)
    return parser


def _chunker_from_args(args: argparse.Namespace) -> Any:
    from ragkit.ingestion.chunkers import make_chunker

    settings_by_chunker = {
        "sliding": {"size": args.chunk_size, "overlap": args.overlap},
        "sentence": {"n": args.window, "overlap": args.overlap},
        "markdown": {"min_chars": args.min_chars, "max_chars": args.max_chars},
    }
    if args.chunker is None:
        given = [
            k
            for k in ("chunk_size", "overlap", "window", "min_chars", "max_chars")
            if getattr(args, k) is not None
        ]
        if given:
            raise RagkitError(f"--{given[0].replace('_', '-')} needs --chunker")
        return None
    chosen = settings_by_chunker[args.chunker]
    for name, settings in settings_by_chunker.items():
        if name != args.chunker:
            stray = [k for k, v in settings.items() if v is not None and k not in chosen]
            if stray:
                raise RagkitError(f"option for {name} chunker given with --chunker {args.chunker}")
    return make_chunker(args.chunker, **{k: v for k, v in chosen.items() if v is not None})


def _embedder_from_args(args: argparse.Namespace, model: str | None = None) -> Any:
    from pathlib import Path

    from ragkit.index.embeddings import Embedder

    cache = Path(args.cache_dir) / "embeddings.sqlite" if args.cache_dir else None
    return Embedder(model or args.model, dtype=args.dtype, cache=cache)


def _progress_bar(enabled: bool) -> tuple[Callable[[str, int, int], None] | None, Callable[[], None]]:
    """Progress on stderr (a bar on a terminal, periodic lines when redirected), and its closer."""
    from ragkit.core.progress import CliProgress

    if not enabled:
        return None, lambda: None
    progress = CliProgress()
    return progress, progress.close


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _load_models(embedder: Any, what: str = "the embedding model") -> float:
    """Load the embedding model now, saying so on stderr; returns the milliseconds it took (reported as
    the ``load`` stage, never inside a query's latency)."""
    import time

    _say(f"loading {what} {embedder.model_id} …")
    t = time.perf_counter()
    _ = embedder.dimension
    return (time.perf_counter() - t) * 1000


def cmd_ingest(args: argparse.Namespace) -> int:
    from ragkit.index.ingest import ingest_paths, open_or_create

    chunker = _chunker_from_args(args)
    embedder = _embedder_from_args(args)
    if not args.json:
        _load_models(embedder)
    store, chunker = open_or_create(args.index, embedder, chunker, _store_from_args(args))
    progress, close = _progress_bar(not args.no_progress and not args.json)
    try:
        report = ingest_paths(
            store,
            args.files,
            chunker,
            embedder,
            args.max_mb,
            progress,
            follow_symlinks=args.follow_symlinks,
            on_wait=_say,
        )
    finally:
        close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2, ensure_ascii=False))
    else:
        for f in report.files:
            if f.status == "error":
                print(f"error  {f.error}")
                continue
            print(
                f"ok     {f.file}: {f.action}, {f.pages} pages, {f.chunks} chunks, "
                f"{f.tables} tables, {f.new_embeddings} new embeddings"
            )
            for w in f.warnings:
                print(f"       warning: {w}")
        t = report.totals()
        print(
            f"{t['files']} files, {t['failed']} failed, {t['chunks']} chunks, "
            f"{t['new_embeddings']} new embeddings -> {store.path} "
            f"({len(store.documents)} documents, {len(store.chunks)} chunks)"
        )
    return 1 if report.failed else 0


def cmd_search(args: argparse.Namespace) -> int:
    import time

    from ragkit.index.store import IndexStore
    from ragkit.pipeline.confidence import ConfidenceConfig, retrieval_confidence
    from ragkit.retrievers.base import warm_up

    manifest = IndexStore.read_manifest(args.index)
    _check_store_args(args, args.index)
    embedder = _embedder_from_args(args, model=args.model or manifest["embedding"]["model"])
    store = IndexStore.open(args.index, model_id=embedder.model_id)
    retriever = _retriever_from_args(args, store, embedder)
    load_ms = _load_models(embedder)
    t = time.perf_counter()
    warm_up(retriever)  # BM25 statistics, FAISS, cross-encoder: built once, not inside the query's time
    load_ms += (time.perf_counter() - t) * 1000
    timings: dict[str, float] = {}
    where = _parse_where(args.where)
    if where:
        from ragkit.ingestion.qa import matches

        # filter a deeper list, so top-k matching chunks come back (not top-k of which few match)
        hits = [
            h
            for h in retriever.search(args.query, max(args.top_k * 20, 200), timings)
            if matches(h.chunk, where)
        ]
        hits = hits[: args.top_k]
    else:
        hits = retriever.search(args.query, args.top_k, timings)
    conf_cfg = ConfidenceConfig() if args.threshold is None else ConfidenceConfig(threshold=args.threshold)
    conf = retrieval_confidence(hits, conf_cfg)
    if args.json:
        print(
            json.dumps(
                {
                    "query": args.query,
                    "config": _retrieval_config(args),
                    "confidence": conf.to_dict(),
                    "hits": [h.to_dict() for h in hits],
                    "timings_ms": timings,
                    "load_ms": load_ms,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    print(f"confidence {conf.value:.2f} ({conf.band}){' — would abstain' if conf.abstain else ''}")
    if not hits:
        print("no chunks matched")
    for h in hits:
        scores = "  ".join(f"{k}={v:.4g}" for k, v in h.scores.items())
        cos = f"  cosine={h.cosine:.3f}" if h.cosine is not None else ""
        meta = "  ".join(
            f"{k}={v}" for k, v in h.chunk.metadata.items() if k in ("kind", "tags", "score", "url")
        )
        print(f"#{h.rank}  {h.chunk.source} p.{h.chunk.page}  [{h.movement()}]  {scores}{cos}")
        if meta:
            print(f"    {meta}")
        snippet = " ".join(h.chunk.text.split())
        print(f"    {snippet[:200]}{'…' if len(snippet) > 200 else ''}")
    print("timings: " + ", ".join(f"{k} {v:.1f} ms" for k, v in timings.items()))
    print(f"(model load and index set-up, not part of the query: {load_ms:.0f} ms)")
    return 0


def cmd_eval_retrieval(args: argparse.Namespace) -> int:
    from ragkit.evaluation.datasets import load_beir
    from ragkit.evaluation.retrieval import dataset_index, evaluate_retrieval
    from ragkit.retrievers.base import warm_up

    dataset = load_beir(args.dataset, args.split)
    chunker = _chunker_from_args(args)
    embedder = _embedder_from_args(args)
    _load_models(embedder)
    progress, close = _progress_bar(True)
    try:
        store, build_s, cached = dataset_index(
            dataset.name,
            dataset.documents(),
            chunker,
            embedder,
            args.index_root,
            progress,
            _store_from_args(args),
        )
        retriever = _retriever_from_args(args, store, embedder)
        _say("building the search structures (BM25 statistics, FAISS) before timing queries …")
        warm_up(retriever)
        result = evaluate_retrieval(dataset, retriever, args.eval_depth, args.limit, progress)
        ann = None
        if args.dense_index != "flat" and args.retriever in ("dense", "hybrid"):
            from ragkit.evaluation.retrieval import ann_recall, query_order

            _say("measuring HNSW against the exact search (recall@10 of the dense top-10) …")
            qids = sorted(dataset.queries, key=query_order)[: args.limit or None]
            ann = ann_recall(
                store,
                embedder,
                [dataset.queries[q] for q in qids],
                {"hnsw_m": args.hnsw_m, "hnsw_ef_search": args.hnsw_ef_search},
            )
    finally:
        close()
    out = {
        "dataset": dataset.name,
        "split": args.split,
        "queries": result["queries"],
        "retriever": args.retriever + ("+rerank" if args.rerank else ""),
        "config": {
            **_retrieval_config(args),
            "chunker": chunker.spec(),
            "embedding": embedder.cache_key,
            "eval_depth": args.eval_depth,
        },
        "metrics": result["metrics"],
        "latency_ms": result["latency_ms"],
        **({"ann": ann} if ann else {}),
        "index_build_s": build_s,
        "index_cached": cached,
        "index": {
            "path": str(store.path),
            "documents": len(store.documents),
            "chunks": len(store.chunks),
            "store": store.store_description,
        },
        "ragkit_version": __version__,
    }
    m, lat = out["metrics"], out["latency_ms"]
    print(
        f"{out['dataset']} ({out['queries']} queries), {out['retriever']}, chunker "
        f"{chunker.spec()['name']}{chunker.spec()['config']}"
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
    if args.json_out:
        from pathlib import Path

        from ragkit.core.files import atomic_write

        path = Path(args.json_out)
        path.parent.mkdir(parents=True, exist_ok=True)
        full = {**out, "per_query": result["per_query"]}
        atomic_write(path, lambda f: json.dump(full, f, indent=2))
    return 0


def _config_from_args(args: argparse.Namespace) -> Any:
    from dataclasses import replace

    from ragkit.llms import default_llm_name
    from ragkit.pipeline.config import PipelineConfig

    config = PipelineConfig.load(args.config) if args.config else PipelineConfig()
    overrides = {
        "retriever": args.retriever,
        "rerank": args.rerank,
        "rerank_model": args.rerank_model,
        "intent_routing": args.intent_routing,
        "llm": args.llm,
        "llm_model": args.model,
        "ollama_host": args.ollama_host,
        "openai_base_url": args.base_url,
        "top_k": args.top_k,
        "confidence_threshold": args.threshold,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "no_retrieval": args.no_retrieval,
    }
    config = replace(config, **{k: v for k, v in overrides.items() if v is not None})
    if args.llm is None and not args.config:
        config = replace(config, llm=default_llm_name(host=config.ollama_host))
    return config


def cmd_ask(args: argparse.Namespace) -> int:
    from ragkit.pipeline.rag import RagPipeline

    config = _config_from_args(args)
    _check_store_args(args, args.index)
    pipeline = RagPipeline.from_index(args.index, config)
    config = pipeline.config  # with the index's own chunker recorded
    _say(f"loading models for {config.retriever} retrieval and the {config.llm} backend …")
    load_ms = pipeline.warm_up()
    answer = pipeline.ask(args.question)
    if args.json:
        out = {**answer.to_dict(), "config": config.to_dict(), "load_ms": load_ms}
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(answer.text)
    print()
    if answer.abstained:
        print(f"(abstained: {answer.abstain_reason})")
    if answer.uncited:
        print("(uncited: the answer cites none of the sources)")
    if answer.invalid_citations:
        print(f"(citations pointing to no source: {answer.invalid_citations})")
    for c in answer.citations:
        print(f"[{c.n}] {c.source} p.{c.page}  ({c.chunk_id})")
    if answer.confidence is not None:
        print(f"confidence {answer.confidence.value:.2f} ({answer.confidence.band})")
    print(
        f"{answer.llm} {answer.model}; " + ", ".join(f"{k} {v:.0f} ms" for k, v in answer.timings_ms.items())
    )
    print(f"(model load and index set-up, not part of the answer's time: {load_ms:.0f} ms)")
    return 0


def cmd_eval_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragkit.core.files import atomic_write
    from ragkit.evaluation.questionsets import load_question_set
    from ragkit.evaluation.report import markdown_report
    from ragkit.evaluation.runner import evaluate_configs
    from ragkit.evaluation.runs import save_run
    from ragkit.pipeline.config import PipelineConfig

    configs = [PipelineConfig.load(c) for c in args.configs]
    if args.offline_fallbacks:
        from ragkit.pipeline.presets import runnable_here

        swapped = []
        for c in configs:
            c, notes = runnable_here(c)
            swapped.append(c)
            for note in notes:
                _say(f"note: {note}")
        configs = swapped
    collection = None
    if args.collection:
        from ragkit.index.collections import Collection

        collection = Collection(args.collection)
        if not collection.exists:
            raise RagkitError(f"no collection {args.collection!r} under {collection.path.parent}")
    labels = args.dataset == "labels"
    qset = load_question_set(
        None if labels else args.dataset, collection=collection, holdout=args.holdout, labels=labels
    )
    _say(f"{qset.n} questions, {len(configs)} configs: loading models and building indexes …")
    judge = judge2 = cite_decide = None
    metrics: tuple[str, ...] = ()
    if args.judge:
        from ragkit.evaluation.answer_metrics import build_judge, parse_metrics

        metrics = parse_metrics(args.metrics)
        judge = build_judge(args.judge, args.judge_model, host=configs[0].ollama_host)
        if args.judge2:
            judge2 = build_judge(args.judge2, args.judge2_model, host=configs[0].ollama_host)
        if args.llm_citation_check:
            from ragkit.evaluation.citations_check import llm_support

            cite_decide = llm_support(judge.llm)
        _say(
            f"judge {judge.model_id} on {', '.join(metrics)}"
            + (f"; second judge {judge2.model_id}" if judge2 else "")
        )
    elif args.judge2 or args.llm_citation_check:
        raise RagkitError("--judge2 and --llm-citation-check need --judge")
    progress, close = _progress_bar(True)
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
        )
    finally:
        close()
    report = markdown_report(result)
    print(report)
    if args.save:
        print(f"saved run {save_run(result, args.index_root)}", file=sys.stderr)
    for target, write in (
        (args.json_out, lambda f: json.dump(result, f, indent=2)),
        (args.report, lambda f: f.write(report)),
    ):
        if target:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
            atomic_write(Path(target), write)
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ragkit.core.files import atomic_write
    from ragkit.evaluation.calibration import calibrate_from_run

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
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    atomic_write(Path(args.out), lambda f: f.write(config.to_json()))
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


def cmd_info(args: argparse.Namespace) -> int:
    from ragkit.index.store import IndexStore
    from ragkit.index.vectorstores.base import describe_store

    m = IndexStore.read_manifest(args.index)
    _check_store_args(args, args.index)
    if args.json:
        print(json.dumps(m, indent=2, ensure_ascii=False))
        return 0
    emb, ch = m["embedding"], m["chunker"]
    params = ", ".join(f"{k}={v}" for k, v in ch.get("config", {}).items())
    print(f"index      {args.index}")
    print(f"model      {emb['model']} (dimension {emb['dimension']}, {emb.get('dtype', 'float32')})")
    print(f"chunker    {ch['name']}({params})")
    print(f"vectors    {describe_store(m.get('store'))}")
    print(f"documents  {m['counts']['documents']}    chunks {m['counts']['chunks']}")
    print(f"updated    {m['updated_at']} (ragkit {m['ragkit_version']}, schema {m['schema_version']})")
    for d in m["documents"]:
        extra = f", pages without text: {d['empty_pages']}" if d.get("empty_pages") else ""
        print(
            f"  {d['source']}: {d['pages']} pages, {d['chunks']} chunks, {d.get('tables', 0)} tables{extra}"
        )
    return 0


def cmd_copy(args: argparse.Namespace) -> int:
    from ragkit.index.store import copy_index

    store = copy_index(args.index, args.to, _store_from_args(args))
    print(
        f"copied {len(store.documents)} documents, {len(store.chunks)} chunks -> {store.path} "
        f"(vectors in {store.store_description})"
    )
    store.close()
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    from ragkit.index.store import IndexStore

    _check_store_args(args, args.index)
    store = IndexStore.open(args.index)
    missing = []
    with store.lock(on_wait=_say):
        store.reload()  # another writer may have saved since it was opened: remove from that state
        for name in args.documents:
            if not store.remove(name):
                missing.append(name)
        if len(missing) < len(args.documents):
            store.save()
    for name in missing:
        print(f"error  {name}: not in index {args.index}", file=sys.stderr)
    print(f"{len(args.documents) - len(missing)} removed; {len(store.documents)} documents remain")
    return 1 if missing else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    try:
        return int(args.func(args) or 0)
    except RagkitError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: the index was left as it was before this command", file=sys.stderr)
        return 130
