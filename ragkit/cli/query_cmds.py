"""Query commands: ``search`` (ranked chunks with every stage score) and ``ask`` (an answer with
citations and confidence). Both take ``--config FILE`` and a flag per config field."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ragkit.cli.common import (
    add_model_args,
    add_store_args,
    check_store_args,
    embedder_from_args,
    index_backend,
    load_models,
    parse_where,
    say,
)
from ragkit.cli.flags import add_config_flags, config_from_args, given


def add_commands(sub: Any) -> None:
    p = sub.add_parser("search", help="retrieve chunks for a query, with every stage score")
    p.add_argument("--index", required=True)
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="keep chunks whose metadata matches (kind=code, tags=python, url=...); repeatable",
    )
    add_config_flags(p, "retrieval")
    g = p.add_argument_group("answer")
    from ragkit.cli.flags import add_option
    from ragkit.pipeline.fields import FIELDS

    for name in ("top_k", "confidence_threshold"):
        add_option(g, FIELDS[name], f"f_{name}")
    g.add_argument(
        "--confidence",
        action="store_true",
        help="BM25 alone: embed the query to compute the confidence gauge (it reads query-chunk cosines); "
        "without it no embedding model is loaded",
    )
    add_store_args(p)
    add_model_args(p, backend="how the query is embedded (default: the index's own; another is refused)")
    p.add_argument("query")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("ask", help="answer a question from an index, with citations and confidence")
    p.add_argument("--index", required=True)
    p.add_argument("--json", action="store_true")
    add_config_flags(p, "retrieval", "generation", "pipeline")
    add_store_args(p)
    p.add_argument("question")
    p.set_defaults(func=cmd_ask)


def retrieval_summary(config: Any) -> dict[str, Any]:
    """The retriever's settings as they ran: the chosen retriever, its parts, and the reranker."""
    from ragkit.retrievers import RETRIEVERS, settings_from_config

    settings = settings_from_config(config)
    out: dict[str, Any] = {"retriever": config.retriever}
    for name in (config.retriever, *RETRIEVERS.component(config.retriever).parts):
        out[name] = settings[name]
    if config.rerank:
        out["rerank"] = {"model": config.rerank_model, "candidates": config.rerank_candidates}
    return out


def cmd_search(args: argparse.Namespace) -> int:
    from ragkit.index.lexical import is_text_only, needs_vectors, open_text_only
    from ragkit.index.manifest import read_manifest
    from ragkit.index.store import IndexStore
    from ragkit.pipeline.confidence import ConfidenceConfig, retrieval_confidence
    from ragkit.retrievers import retriever_from_config
    from ragkit.retrievers.base import warm_up

    manifest = read_manifest(args.index)
    check_store_args(args, args.index)
    config = config_from_args(args)
    if is_text_only(manifest):  # built for BM25 alone: the gauge, if asked, embeds with --model
        store = open_text_only(args.index, config)
        embedder = embedder_from_args(
            args, model=args.model or config.embedding_model, backend=config.embedding_backend
        )
    else:  # the index's model and backend, unless flags ask for others (then refused, saying why)
        emb = manifest["embedding"]
        embedder = embedder_from_args(args, args.model or emb["model"], index_backend(args.index))
        store = IndexStore.open(args.index, model_id=embedder.model_id)
    # BM25 alone reads no vectors: no model is loaded unless the gauge is asked for
    gauge = needs_vectors(config) or args.confidence
    retriever = retriever_from_config(config, store, embedder if gauge else None)
    load_ms = load_models(embedder) if gauge else 0.0
    t = time.perf_counter()
    warm_up(retriever)  # BM25 statistics, FAISS, cross-encoder: built once, not inside the query's time
    load_ms += (time.perf_counter() - t) * 1000
    timings: dict[str, float] = {}
    where = parse_where(args.where)
    top_k = config.top_k
    if where:
        from ragkit.ingestion.qa import matches

        # filter a deeper list, so top-k matching chunks come back (not top-k of which few match)
        hits = [
            h for h in retriever.search(args.query, max(top_k * 20, 200), timings) if matches(h.chunk, where)
        ]
        hits = hits[:top_k]
    else:
        hits = retriever.search(args.query, top_k, timings)
    conf = (
        retrieval_confidence(hits, ConfidenceConfig(threshold=config.confidence_threshold)) if gauge else None
    )
    if args.json:
        out = {
            "query": args.query,
            "config": retrieval_summary(config),
            "confidence": conf.to_dict() if conf is not None else None,
            "hits": [h.to_dict() for h in hits],
            "timings_ms": timings,
            "load_ms": load_ms,
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    if conf is None:
        print("confidence not computed: BM25 alone reads no vectors (--confidence embeds the query for it)")
    else:
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


def cmd_ask(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ragkit.llms import default_llm_name
    from ragkit.pipeline.rag import RagPipeline

    config = config_from_args(args)
    if not given(args, "llm") and not args.config:
        config = replace(config, llm=default_llm_name(host=config.ollama_host))
    check_store_args(args, args.index)
    pipeline = RagPipeline.from_index(args.index, config)
    config = pipeline.config  # with the index's own chunker recorded
    say(f"loading models for {config.retriever} retrieval and the {config.llm} backend …")
    load_ms = pipeline.warm_up()
    answer = pipeline.ask(args.question)
    if args.json:
        out = {**answer.to_dict(), "config": config.to_dict(), "load_ms": load_ms}
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(answer.text)
    print()
    if answer.query != answer.question:
        print(f"(searched for: {answer.query})")
    if front := answer.trace.get("front_matter"):
        print(f"(also read: the first chunk of {front['document']}, for the document's {front['asks']})")
    if answer.abstained:
        print(f"(abstained: {answer.abstain_reason})")
    if answer.uncited:
        print("(uncited: the answer cites none of the sources)")
    if answer.invalid_citations:
        print(f"(citations pointing to no source: {answer.invalid_citations})")
    for c in answer.citations:
        print(f"[{c.n}] {c.source} p.{c.page}  ({c.chunk_id})")
    if answer.confidence is not None:
        print(f"retrieval confidence {answer.confidence.value:.2f} ({answer.confidence.band})")
    if answer.answerability is not None and answer.answerability.answer_confidence is not None:
        a = answer.answerability
        print(
            f"answer confidence {a.answer_confidence:.2f} (abstains below {a.threshold:.2f}; "
            f"answerability {a.value:.2f})"
        )
    print(
        f"{answer.llm} {answer.model}; " + ", ".join(f"{k} {v:.0f} ms" for k, v in answer.timings_ms.items())
    )
    print(f"(model load and index set-up, not part of the answer's time: {load_ms:.0f} ms)")
    return 0
