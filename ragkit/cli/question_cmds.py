"""``ragkit questions generate``: write a question set from a collection's own documents (offline, or
through an LLM backend), critique it, and save it as a question file Evaluate and ``eval run`` read."""

from __future__ import annotations

import argparse
from typing import Any

from ragkit.cli.common import run_interruptible, say, write_file
from ragkit.cli.flags import add_config_flags, config_from_args, given
from ragkit.core.errors import RagkitError


def parse_mix(text: str | None) -> dict[str, float] | None:
    """``factual=2,why=1,two_passage=1,unanswerable=1`` (weights) -> a mix."""
    if not text:
        return None
    out = {}
    for item in text.split(","):
        name, sep, weight = item.partition("=")
        try:
            out[name.strip()] = float(weight) if sep else 1.0
        except ValueError:
            raise RagkitError(f"--types {item!r}: use TYPE=WEIGHT, e.g. factual=2,why=1") from None
    return out


def add_commands(sub: Any) -> None:
    from ragkit.evaluation.questiongen import METHODS, TYPES

    qs = sub.add_parser("questions", help="question sets from a collection's own documents")
    qsub = qs.add_subparsers(dest="what", required=True)
    p = qsub.add_parser(
        "generate",
        help="generate, critique and save questions with evidence spans",
        description="Samples passages covering every document of the collection, writes one question "
        "per passage, rejects (with reasons) questions that are not standalone, copy their evidence, are "
        "not supported by it or repeat another, and writes the accepted ones as a question file.",
    )
    p.add_argument("--collection", required=True, help="the collection whose documents to ask about")
    p.add_argument("--n", type=int, default=40, help="how many questions to write (default 40)")
    p.add_argument("--method", choices=list(METHODS), default="offline", help="; ".join(METHODS.values()))
    p.add_argument(
        "--types",
        default=None,
        help=f"LLM question types and weights, e.g. factual=2,why=1 (types: {', '.join(TYPES)})",
    )
    p.add_argument("--seed", type=int, default=0, help="the passage order's seed")
    p.add_argument("--out", default=None, help="write the question file here (.jsonl spans, .csv quotes)")
    p.add_argument("--save", default=None, help="also save it with the collection under this name")
    p.add_argument("--report", default=None, help="write the full report (rejected questions too) as JSON")
    add_config_flags(p, "generation", config_help="a pipeline config JSON naming the LLM backend")
    p.set_defaults(func=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    import json

    from ragkit.evaluation.metrics.citations import CHECK_MODEL
    from ragkit.evaluation.questiongen import (
        QuestionGenerator,
        cache_path,
        estimate,
        question_file,
        save_question_set,
    )
    from ragkit.index.collections import Collection
    from ragkit.index.embeddings import Embedder

    if not args.out and not args.save:
        raise RagkitError("say where the questions go: --out FILE and/or --save NAME")
    collection = Collection(args.collection)
    if not collection.exists:
        raise RagkitError(f"no collection {args.collection!r} under {collection.path.parent}")
    mix = parse_mix(args.types)
    llm = None
    if args.method == "llm":
        from dataclasses import replace

        from ragkit.llms import LLMS, default_llm_name, llm_from_config

        config = config_from_args(args)
        if not given(args, "llm") and not args.config:  # as `ask`: groq with a key, else a local ollama
            config = replace(config, llm=default_llm_name(host=config.ollama_host))
        if not LLMS.component(config.llm).generative:
            why = (
                ""
                if given(args, "llm") or args.config
                else " (no GROQ_API_KEY set, no Ollama server answers)"
            )
            raise RagkitError(f"--llm {config.llm} writes no text{why}: choose groq, ollama, openai or local")
        llm = llm_from_config(config)
        est = estimate(args.n, "llm", mix)
        say(
            f"{est['llm_calls']} LLM calls to {config.llm}, about {est['tokens']:,} tokens "
            "(cached replies cost nothing)"
        )
    gen = QuestionGenerator(
        collection.documents(),
        args.method,
        llm=llm,
        embedder=Embedder(CHECK_MODEL),
        mix=mix,
        seed=args.seed,
        cache_path=cache_path(collection),
    )
    report = run_interruptible(lambda progress, stop: gen.run(args.n, progress, stop))
    acc = report.acceptance()
    say(
        f"{acc['accepted']} of {acc['attempts']} accepted"
        + "".join(f"; {n} rejected: {r}" for r, n in acc["rejected"].items())
        + "".join(f"; {n} × {report.failure_label(r)}" for r, n in acc["failed_replies"].items())
        + (f"; {report.calls} LLM calls, {report.cached} cached" if args.method == "llm" else "")
    )
    if report.bias_note:
        say(f"note: {report.bias_note}")
    if report.status != "done":
        say(f"{report.status}: the questions made so far are kept")
    if not report.accepted:
        raise RagkitError("no question was accepted; nothing written")
    fmt = "csv" if (args.out or "").lower().endswith(".csv") else "jsonl"
    write_file(args.out, lambda f: f.write(question_file(report.questions, fmt)))
    if args.save:
        say(f"saved {save_question_set(collection, args.save, report)}")
    write_file(args.report, lambda f: json.dump(report.to_dict(), f, indent=1))
    return 130 if report.status == "cancelled" else 0
