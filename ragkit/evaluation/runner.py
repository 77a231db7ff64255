"""``ragkit eval run``: several pipeline configs over one labelled question set, per-question scores,
metrics, paired comparisons with bootstrap CIs and significance, and calibration of the confidence.

Question sets (:func:`load_question_set`):

- a BEIR directory: retrieval only, document-level nDCG@10 / Recall@10 / Recall@100 / MRR@10;
- a SQuAD JSON file: every question through the full pipeline over an index of the paragraphs;
  optionally a fraction of paragraphs held out of the index, whose questions then have no evidence;
- a CSV/JSONL of ``question, gold_answer, relevant_sources`` over an existing collection;
- the evidence passages labelled in the UI and saved with a collection (passage-level relevance).

Pipeline sets report retrieval metrics (over the hits the pipeline passes to the LLM, in ragkit's own
order), answer metrics (contains-gold, token F1, exact match), abstention on questions with and without
evidence, an optional LLM judge, the calibration of the retrieval confidence, latency per stage and tokens.

Retrieval relevance per question: labelled passages (``evidence``: any chunker judged by overlap, see
:mod:`ragkit.evaluation.evidence`), else relevant files (hits aggregated to files at their best chunk's
rank); and, for every question with a gold answer, a second source named ``gold_*``: chunks that contain
the normalised gold answer. Latency excludes model loading (its own ``load`` stage); configs are run
interleaved and each embeds its own query."""

from __future__ import annotations

import datetime as dt
import itertools
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.errors import RagkitError
from ragkit.evaluation.metric_names import LOWER_IS_BETTER, PER_QUESTION_METRICS
from ragkit.evaluation.question_runner import QuestionRunner
from ragkit.evaluation.questionsets import QuestionSet, load_question_set
from ragkit.evaluation.result import ConfigResult, EvalRun
from ragkit.evaluation.runners import BeirRunner, ConfigRun, Progress
from ragkit.evaluation.stats import compare_paired
from ragkit.pipeline.config import PipelineConfig


def run_interleaved(
    runners: Sequence[Any], limit: int | None, progress: Progress | None = None
) -> list[ConfigRun]:
    """Step every runner through the same items, question by question, rotating which config goes first,
    so slow drifts of the machine (thermal, other load, caches) fall on all configs alike and their
    latencies are comparable."""
    items = runners[0].items(limit)
    n = len(runners)
    for i, item in enumerate(items):
        for k in range(n):
            runners[(i + k) % n].step(item)
        if progress:
            progress("questions (all configs, interleaved)", i + 1, len(items))
    return [r.finish() for r in runners]


def run_configs(
    dataset: str | Path | QuestionSet,
    configs: Sequence[PipelineConfig],
    limit: int | None = None,
    index_root: str = "indexes/.eval",
    progress: Progress | None = None,
    *,
    holdout: float = 0.0,
    collection: Any = None,
    api_key: str | Mapping[str, str] | None = None,
    judge: Any = None,
    embedders: dict | None = None,
    judge2: Any = None,
    judge_metrics: Sequence[str] = (),
    cite_decide: Any = None,
) -> EvalRun:
    """Run every config over the question set and compare every pair on every per-question metric.

    ``dataset`` is a path (see :func:`load_question_set`) or an already loaded :class:`QuestionSet`.
    ``api_key`` is a key, or a map backend -> key, used in memory only. ``judge`` is an
    :class:`~ragkit.evaluation.answer_metrics.AnswerJudge` scoring ``judge_metrics`` (RAGAS-style names and
    ``simpleqa``); ``judge2`` a second AnswerJudge scoring the same metrics, for agreement.
    ``cite_decide`` replaces the offline citation check with an LLM's (see
    :func:`~ragkit.evaluation.citations_check.llm_support`).
    """
    from ragkit.evaluation.answer_metrics import ALL_METRICS

    unknown = [m for m in judge_metrics if m not in ALL_METRICS]
    if unknown:
        raise RagkitError(f"unknown judge metrics {unknown}; choose from {', '.join(ALL_METRICS)}")
    if judge_metrics and judge is None:
        raise RagkitError("judge metrics need a judge (--judge groq|ollama|openai)")
    if not 1 <= len(configs) <= 5:
        raise RagkitError(f"evaluate 1 to 5 configs at a time, got {len(configs)}")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise RagkitError(f"config names must differ, got {names}")
    qset = (
        dataset
        if isinstance(dataset, QuestionSet)
        else load_question_set(dataset, collection=collection, holdout=holdout)
    )
    embedders = embedders if embedders is not None else {}
    if qset.kind == "beir":
        runners: list[Any] = [BeirRunner(qset, c, embedders, index_root, progress) for c in configs]
    else:
        runners = [
            QuestionRunner(
                qset,
                c,
                embedders,
                index_root,
                progress,
                api_key=api_key,
                judge=judge,
                judge2=judge2,
                judge_metrics=judge_metrics,
                cite_decide=cite_decide,
            )
            for c in configs
        ]
    runs = run_interleaved(runners, limit, progress)
    metric_names = [m for m in PER_QUESTION_METRICS if any(m in r.counts for r in runs)]
    comparisons = []
    for ra, rb in itertools.combinations(runs, 2):
        for m in metric_names:
            qids = [
                q
                for q in ra.per_question
                if q in rb.per_question
                and ra.per_question[q].get(m) is not None
                and rb.per_question[q].get(m) is not None
            ]
            if not qids:
                continue
            res = compare_paired(
                [ra.per_question[q][m] for q in qids],
                [rb.per_question[q][m] for q in qids],
                higher_is_better=m not in LOWER_IS_BETTER,
            )
            names_ab = (ra.config.name, rb.config.name)
            comparisons.append({"a": names_ab[0], "b": names_ab[1], "metric": m, **res.to_dict(*names_ab)})
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    run_id = uuid.uuid4().hex[:10]  # unique even for two runs of the same set in the same second
    return EvalRun(
        run_id,
        created,
        qset.source,
        qset.name,
        qset.kind,
        qset.hash,
        qset.level,
        {**qset.params, "limit": limit},
        __version__,
        len(runs[0].per_question),
        [q.to_list() for q in qset.questions] if qset.kind in ("questions", "labels") else None,
        metric_names,
        sorted(LOWER_IS_BETTER),
        [
            ConfigResult(
                r.config.name,
                r.config.cache_key(),
                r.config,
                r.models,
                r.metrics,
                r.counts,
                r.latency_ms,
                r.stage_latency_ms,
                r.tokens,
                r.calibration,
                r.judge_agreement,
                r.per_question,
            )
            for r in runs
        ],
        comparisons,
    )


def evaluate_configs(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`run_configs` as the JSON-shaped dict that saved runs, exports and the pages use."""
    return run_configs(*args, **kwargs).to_dict()
