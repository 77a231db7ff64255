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
:mod:`ragkit.evaluation.datasets.evidence`), else relevant files (hits aggregated to files at their best
chunk's rank); and, for every question with a gold answer, a second source named ``gold_*``: chunks that
contain the normalised gold answer. Latency excludes model loading (its own ``load`` stage); configs are run
interleaved and each embeds its own query."""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.questionsets import QuestionSet, load_question_set
from ragkit.evaluation.metrics.comparisons import check_primary, compare_runs, default_primary
from ragkit.evaluation.metrics.names import LOWER_IS_BETTER, PER_QUESTION_METRICS
from ragkit.evaluation.runs.config_run import BeirRunner, ConfigRun, Progress
from ragkit.evaluation.runs.questions import QuestionRunner
from ragkit.evaluation.runs.result import ConfigResult, EvalRun
from ragkit.llms.base import redact
from ragkit.pipeline.config import PipelineConfig


def run_interleaved(
    runners: Sequence[Any],
    limit: int | None,
    progress: Progress | None = None,
    failures: list[dict[str, str]] | None = None,
) -> list[ConfigRun]:
    """Step every runner through the same items, question by question, rotating which config goes first,
    so slow drifts of the machine (thermal, other load, caches) fall on all configs alike and their
    latencies are comparable.

    With ``failures`` given, a runner that raises is stopped and recorded there (``config``, ``when``,
    ``error``) while the others finish; without it, the error propagates."""
    items = runners[0].items(limit)
    live = list(runners)
    for i, item in enumerate(items):
        n = len(live)
        for k in range(n):
            r = live[(i + k) % n]
            try:
                r.step(item)
            except Exception as e:
                if failures is None:
                    raise
                failures.append(failure(r.config.name, f"question {i + 1} of {len(items)}", e))
        live = [r for r in live if not any(f["config"] == r.config.name for f in failures or [])]
        if not live:
            break
        if progress:
            progress("questions (all configs, interleaved)", i + 1, len(items))
    return [r.finish() for r in live]


def failure(config: str, when: str, error: BaseException, *secrets: str | None) -> dict[str, str]:
    """A failed config's record: which, when, and the error in one line (secrets redacted)."""
    expected = isinstance(error, RagkitError)  # a named cause; anything else keeps its traceback in the log
    logging.getLogger(__name__).warning(
        "config %s failed at %s", config, when, exc_info=None if expected else error
    )
    text = str(error) if isinstance(error, RagkitError) else f"{type(error).__name__}: {error}"
    return {"config": config, "when": when, "error": redact(" ".join(text.split())[:500], *secrets)}


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
    primary_metric: str | None = None,
    offline_fallbacks: bool = False,
) -> EvalRun:
    """Run every config over the question set and compare every pair on every per-question metric.

    ``dataset`` is a path (see :func:`load_question_set`) or an already loaded :class:`QuestionSet`.
    ``api_key`` is a key, or a map backend -> key, used in memory only. ``judge`` is an
    :class:`~ragkit.evaluation.metrics.judge.AnswerJudge` scoring ``judge_metrics`` (RAGAS-style names and
    ``simpleqa``); ``judge2`` a second AnswerJudge scoring the same metrics, for agreement.
    ``cite_decide`` replaces the offline citation check with an LLM's (see
    :func:`~ragkit.evaluation.metrics.citations.llm_support`). ``primary_metric`` is the metric the run is
    decided on (its pairs are the confirmatory family; every other test is exploratory); by default the
    set's own (:func:`~ragkit.evaluation.metrics.comparisons.default_primary`). With
    ``offline_fallbacks``, what
    cannot run here (an LLM service without key or server, missing weights) is swapped for offline parts
    as the sidebar does (:func:`~ragkit.pipeline.presets.runnable_here`), and the run's params say so.

    A config that fails (while setting up or on a question) is recorded in ``failures`` and the others
    finish; only when every config fails is it an error.
    """
    from ragkit.evaluation.metrics.judge import ALL_METRICS

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
    primary = check_primary(primary_metric) or default_primary(qset)
    embedders = embedders if embedders is not None else {}
    notes: list[str] = []
    if offline_fallbacks:
        configs, notes = with_fallbacks(configs, api_key)
    secrets = list(api_key.values()) if isinstance(api_key, Mapping) else [api_key]
    failures: list[dict[str, str]] = []
    runners: list[Any] = []
    for c in configs:
        try:
            if qset.kind == "beir":
                runners.append(BeirRunner(qset, c, embedders, index_root, progress))
            else:
                runners.append(
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
                )
        except Exception as e:
            failures.append(failure(c.name, "setting up", e, *secrets))
    runs = run_interleaved(runners, limit, progress, failures) if runners else []
    if not runs:
        said = "; ".join(f"{f['config']} ({f['when']}): {f['error']}" for f in failures)
        raise RagkitError(f"every config failed: {said}")
    metric_names = [m for m in PER_QUESTION_METRICS if any(m in r.counts for r in runs)]
    comparisons = compare_runs(runs, metric_names, primary)
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
        {**qset.params, "limit": limit, **({"fallbacks": notes} if notes else {})},
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
        primary,
        failures,
    )


def with_fallbacks(
    configs: Sequence[PipelineConfig], api_key: str | Mapping[str, str] | None
) -> tuple[list[PipelineConfig], list[str]]:
    """The configs with what cannot run here swapped for offline parts, and a note per swap."""
    from ragkit.llms import key_for
    from ragkit.pipeline.presets import runnable_here

    out, notes = [], []
    for c in configs:
        c, said = runnable_here(c, key_for(api_key, c.llm))
        out.append(c)
        notes += said
    return out, notes


def evaluate_configs(*args: Any, **kwargs: Any) -> dict[str, Any]:
    """:func:`run_configs` as the JSON-shaped dict that saved runs, exports and the pages use."""
    return run_configs(*args, **kwargs).to_dict()
