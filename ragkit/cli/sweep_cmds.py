"""``ragkit sweep``: race a grid of set-ups over one question set and name the best within noise."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ragkit.cli.common import run_interruptible, say, say_problems, write_file, write_json
from ragkit.core.errors import RagkitError


def add_commands(sub: Any) -> None:
    from ragkit.evaluation.metrics.judge import judge_backends
    from ragkit.evaluation.sweep.holdout import DEFAULT_SHARE

    p = sub.add_parser(
        "sweep",
        help="race a grid of set-ups over a labelled question set; name those not worse than the best",
        description="Every set-up of the grid answers a first batch of questions; after each further "
        "batch the set-ups significantly worse than the best (Friedman gate, paired test against the "
        "best corrected for the comparisons, alpha split across the looks) are dropped. The result "
        "names every set-up not significantly worse than the best, and re-scores them on questions held "
        "out of the race (the winner's score on the questions that picked it is optimistic). The cost is "
        "printed before anything runs. Interrupted sweeps resume: run the same command again.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument(
        "--dataset", help="a BEIR directory, a SQuAD .json, or a .csv/.jsonl (with --collection)"
    )
    src.add_argument(
        "--questions", help="a .csv/.jsonl question file over --collection ('labels': its UI labels)"
    )
    p.add_argument("--collection", default=None, help="the collection the questions are asked over")
    p.add_argument(
        "--grid", required=True, help='grid JSON: {"base": {…config…}, "vary": {"field": [values…]}}'
    )
    p.add_argument(
        "--metric",
        default=None,
        help="the metric to optimise (default: ndcg@10 when relevance is labelled, else contains_gold)",
    )
    p.add_argument("--exhaustive", action="store_true", help="no racing: every set-up on every question")
    p.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="family-wise error of dropping a set-up as good "
        "as the best, over the whole sweep (default 0.05)",
    )
    p.add_argument(
        "--first-batch",
        type=int,
        default=None,
        help="questions before the first look (default: a tenth, at least 10)",
    )
    p.add_argument("--batch", type=int, default=None, help="questions between looks (default: --first-batch)")
    p.add_argument("--limit", type=int, default=None, help="only N questions (a seeded random sample)")
    p.add_argument("--seed", type=int, default=0, help="the question order's and the held-out split's seed")
    p.add_argument(
        "--holdout-share",
        type=float,
        default=DEFAULT_SHARE,
        help="share of the questions held out of the race to re-score the best set on (stratified by "
        f"document; default {DEFAULT_SHARE:g}; 0: race and report on the same questions)",
    )
    p.add_argument(
        "--yes", action="store_true", help="start without asking when the cost is over the limit (scripts)"
    )
    p.add_argument("--cost-only", action="store_true", help="print what the sweep would cost, run nothing")
    p.add_argument("--budget", type=int, default=None, help="stop after this many question evaluations")
    p.add_argument(
        "--max-latency-ms", type=float, default=None, help="drop set-ups whose p50 latency exceeds this"
    )
    p.add_argument(
        "--max-index-mb",
        type=float,
        default=None,
        help="drop set-ups whose index (chunk texts + vectors) exceeds this many MB, before they answer",
    )
    p.add_argument(
        "--judge",
        choices=judge_backends(),
        default=None,
        help="the LLM judge that grades answers, when --metric is a judge metric (e.g. faithfulness)",
    )
    p.add_argument("--judge-model", default=None, help="the judge's model (default: the backend's)")
    p.add_argument("--fresh", action="store_true", help="ignore what an earlier run of this sweep measured")
    p.add_argument("--index-root", default="indexes/.eval")
    p.add_argument("--save", action="store_true", help="also save the sweep under <index-root>/sweeps/")
    p.add_argument("--json", dest="json_out", default=None, help="write the result JSON here")
    p.add_argument("--csv", dest="csv_out", default=None, help="write one row per set-up here")
    p.add_argument("--report", default=None, help="write a Markdown report here")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.sweep.checkpoint import save_sweep
    from ragkit.evaluation.sweep.cost import cost_lines, estimate_cost
    from ragkit.evaluation.sweep.grid import Grid
    from ragkit.evaluation.sweep.report import sweep_csv, sweep_markdown
    from ragkit.evaluation.sweep.runner import Sweep

    grid = Grid.load(args.grid)
    collection = None
    if args.collection:
        from ragkit.index.collections import Collection

        collection = Collection(args.collection)
        if not collection.exists:
            raise RagkitError(f"no collection {args.collection!r} under {collection.path.parent}")
    if args.questions and collection is None:
        raise RagkitError("--questions needs --collection (the documents the questions are asked over)")
    source = args.dataset or args.questions
    labels = source == "labels"
    qset = load_question_set(None if labels else source, collection=collection, labels=labels)
    say_problems(qset)
    sweep = Sweep(
        qset,
        grid,
        args.metric,
        racing=not args.exhaustive,
        alpha=args.alpha,
        first=args.first_batch,
        step=args.batch,
        limit=args.limit,
        seed=args.seed,
        holdout=args.holdout_share,
        budget=args.budget,
        max_latency_ms=args.max_latency_ms,
        max_index_mb=args.max_index_mb,
        judge=_judge(args, grid),
        index_root=args.index_root,
    )
    cost = estimate_cost(sweep)
    say(f"metric {sweep.metric}")
    for line in cost_lines(cost):
        say(line)
    if args.cost_only:
        return 0
    if cost["confirm"] and not _confirmed(args, cost["confirm"]):
        return 2
    if not args.fresh and (loaded := sweep.resume()):
        say(f"resuming: {loaded} question evaluations measured earlier")
    result = run_interruptible(lambda progress, stop: sweep.run(progress, stop))
    report = sweep_markdown(result)
    print(report)
    if result["status"] == "cancelled":
        say("cancelled: what was measured is kept; run the same command to resume")
    for f in result["failures"]:
        say(f"error: {f['config']} failed ({f['when']}): {f['error']}; the others went on")
    if args.save:
        print(f"saved sweep {save_sweep(result, args.index_root)}", file=sys.stderr)
    write_json(args.json_out, result)
    write_file(args.csv_out, lambda f: f.write(sweep_csv(result)))
    write_file(args.report, lambda f: f.write(report))
    return 130 if result["status"] == "cancelled" else 0


def _confirmed(args: argparse.Namespace, why: list[str]) -> bool:
    """A grid over the limit starts with ``--yes``, or when the person at the terminal says so."""
    if args.yes:
        return True
    reason = "; ".join(why)
    if not sys.stdin.isatty():
        say(f"not started: {reason}. Narrow the grid, or pass --yes to start it anyway")
        return False
    answer = input(f"{reason}. Start it? [y/N] ").strip().lower()
    return answer in ("y", "yes")


def _judge(args: argparse.Namespace, grid: Any) -> Any:
    """The judge ``--judge`` names (on the base config's Ollama host), or None."""
    if not args.judge:
        return None
    from ragkit.evaluation.metrics.judge import build_judge

    return build_judge(args.judge, args.judge_model, host=grid.base.get("ollama_host"))
