"""What a sweep's candidates run: the questions in a seeded order, the runner of each set-up (with the
judge when the sweep optimises a judge's metric), and the slim per-question row a checkpoint keeps."""

from __future__ import annotations

import random
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.progress import Progress
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.datasets.reparse import COUNTS
from ragkit.evaluation.metrics.names import ANSWER_JUDGE_METRICS, PER_QUESTION_METRICS
from ragkit.evaluation.runs.config_run import BeirRunner
from ragkit.index.lexical import needs_vectors

#: what a per-question row keeps besides the metrics (the checkpoint stays small)
ROW_KEYS = ("latency_ms", "intent", "question", *COUNTS)


def item_id(item: Any) -> str:
    """A question's id (BEIR sets list query ids)."""
    return str(getattr(item, "qid", item))


def question_order(qset: QuestionSet, limit: int | None, seed: int) -> list[Any]:
    """The questions in a seeded random order (each look a fair sample), the first ``limit`` of it."""
    if qset.kind == "beir":
        from ragkit.evaluation.runs.beir import query_order

        items: list[Any] = sorted(qset.beir.queries, key=query_order)  # type: ignore[union-attr]
    else:
        items = list(qset.questions)
    random.Random(seed).shuffle(items)
    return items[: limit or None]


def default_runner(
    qset: QuestionSet,
    config: Any,
    embedders: dict,
    index_root: str,
    progress: Progress | None = None,
    **judging: Any,
) -> Any:
    """The runner ``eval run`` uses for this kind of set: retrieval only for BEIR, else the pipeline
    (``progress``: the index build's stages; ``judging``: the judge and the judge metric, when the sweep
    optimises one)."""
    if qset.kind == "beir":  # ranked by retrieval metrics: BM25 alone embeds nothing
        return BeirRunner(qset, config, embedders, index_root, progress, text_only=True)
    from ragkit.evaluation.runs.questions import QuestionRunner

    return QuestionRunner(qset, config, embedders, index_root, progress, **judging)


def reads_vectors(qset: QuestionSet, config: Any) -> bool:
    """Whether the index :func:`default_runner` builds for ``config`` holds vectors: every retriever but
    BM25 alone reads them; BM25 alone searches a text-only index, except over a SQuAD corpus (whose
    runner keeps the confidence gauge, which needs them)."""
    return needs_vectors(config) or (qset.kind != "beir" and qset.collection is None)


def work_kind(qset: QuestionSet, config: Any, judged: bool = False) -> str:
    """What one question evaluation of ``config`` does, as far as its time goes: ranking only (a BEIR set)
    or a whole answer, by which retriever, rerank and LLM (and a judge's grade): the key of its rate."""
    what = "retrieval" if qset.kind == "beir" else "answers"
    parts = [what, config.retriever + (" + rerank" if config.rerank else "")]
    if what == "answers":
        parts.append(config.llm + (" + judge" if judged else ""))
    return " · ".join(parts)


def judge_metric(metric: str) -> str:
    """The judge's name for a per-question judge metric (its grade is stored as ``simpleqa_correct``)."""
    return "simpleqa" if metric == "simpleqa_correct" else metric


def check_judge(metric: str, judge: Any, qset: QuestionSet) -> Any:
    """The judge a sweep grades with: needed exactly when the metric is a judge's, which only questions
    the pipeline answers can have (a BEIR set is ranked by retrieval alone). None otherwise."""
    if metric not in ANSWER_JUDGE_METRICS:
        return None
    if qset.kind == "beir":
        raise RagkitError(
            f"{metric} grades answers, and a BEIR set is ranked by retrieval only: choose a retrieval metric"
        )
    if judge is None:
        raise RagkitError(f"{metric} is graded by an LLM judge: choose a judge backend (--judge)")
    check_key = getattr(judge.llm, "check_key", None)
    if check_key is not None:  # a judge without a key would fail every set-up on every question
        check_key()
    return judge


def slim_row(row: dict[str, Any]) -> dict[str, Any]:
    """A question's metrics and latency, as its runner scored them (what the checkpoint keeps)."""
    out = {m: row[m] for m in PER_QUESTION_METRICS if row.get(m) is not None}
    out.update({k: row.get(k) for k in ROW_KEYS})
    return out
