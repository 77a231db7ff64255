"""Saved evaluation runs: each result written (atomically) as JSON under ``<index root>/.eval/runs/``,
listed newest first, and re-run with the same question set, configs and parameters.

A run stores the configs in full, their hashes, the dataset hash, the model ids and the ragkit version;
questions from a CSV/JSONL upload or from UI labels are stored inline so the run can be repeated
without the original file. Secrets are never part of a run (configs hold none).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.core.files import atomic_write
from ragkit.evaluation.datasets.loaders import LabelledQuestion
from ragkit.evaluation.datasets.questionsets import (
    QuestionSet,
    collection_question_set,
    load_question_set,
    questions_hash,
)
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.pipeline.config import PipelineConfig


def runs_dir(index_root: str | Path) -> Path:
    return Path(index_root) / "runs"


def save_record(d: Path, result: dict[str, Any], ident: str) -> Path:
    """Write a result as ``<d>/<created>-<ident>.json`` (atomically); returns the path."""
    d.mkdir(parents=True, exist_ok=True)
    stamp = result["created_at"].replace(":", "").replace("-", "").replace("+0000", "Z")
    path = d / f"{stamp}-{ident}.json"
    atomic_write(path, lambda f: json.dump(result, f, indent=1, ensure_ascii=False))
    return path


def saved_records(d: Path, pattern: str = "*.json") -> Iterator[tuple[Path, dict[str, Any]]]:
    """The results saved in ``d``, newest first (a foreign or damaged file is skipped)."""
    for p in sorted(d.glob(pattern), reverse=True) if d.is_dir() else []:
        try:
            yield p, json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue


def save_run(result: dict[str, Any], index_root: str | Path = "indexes/.eval") -> Path:
    """Write the run as ``<created>-<run id>.json``; returns the path."""
    return save_record(runs_dir(index_root), result, result["run_id"])


def list_runs(index_root: str | Path = "indexes/.eval") -> list[dict[str, Any]]:
    """A summary per saved run (newest first): path, id, time, dataset, configs, questions."""
    return [
        {
            "path": str(p),
            "run_id": r.get("run_id"),
            "created_at": r.get("created_at"),
            "dataset": Path(r.get("dataset", "")).name,
            "configs": ", ".join(c["name"] for c in r.get("configs", [])),
            "questions": r.get("questions"),
        }
        for p, r in saved_records(runs_dir(index_root))
    ]


def load_run(path: str | Path) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RagkitError(f"{Path(path).name}: not a saved run ({e})") from None


def question_set_of(saved: dict[str, Any], collection: Any = None) -> QuestionSet:
    """The question set a saved run used: its dataset path again, or the questions stored in the run."""
    params = saved.get("params", {})
    kind = saved["dataset_kind"]
    if kind in ("beir", "squad"):
        return load_question_set(
            saved["dataset"], holdout=params.get("holdout", 0.0), split=params.get("split", "test")
        )
    if collection is None:
        from ragkit.index.collections import Collection

        collection = Collection(params["collection"])
        if not collection.exists:
            raise RagkitError(f"run {saved.get('run_id')}: its collection {params['collection']!r} is gone")
    if kind == "labels":
        if saved.get("level") == "chunk":  # a run from before passages: its labels live on, migrated
            return load_question_set(collection=collection, labels=True)
        qs = [LabelledQuestion.from_list(q) for q in saved["question_set"]]
        return QuestionSet(
            saved.get("dataset_name", "labels"),
            "labels",
            saved["dataset"],
            questions_hash(qs, collection),
            qs,
            None,
            collection,
            "passage",
            params=dict(params),
        )
    qs = [LabelledQuestion.from_list(q) for q in saved["question_set"]]
    return collection_question_set(saved.get("dataset_name", "questions"), saved["dataset"], qs, collection)


def pipelines_for(
    saved: dict[str, Any],
    names: Sequence[str],
    index_root: str | Path = "indexes/.eval",
    *,
    collection: Any = None,
    api_key: str | Mapping[str, str] | None = None,
    embedders: dict | None = None,
) -> list[Any]:
    """Pipelines for the named configs of a run, over the same index the run searched (to open one of
    its questions in the Compare view)."""
    from ragkit.evaluation.runs.config_run import index_for
    from ragkit.llms import key_for
    from ragkit.pipeline.rag import RagPipeline

    qset = question_set_of(saved, collection)
    embedders = embedders if embedders is not None else {}
    by_name = {c["name"]: PipelineConfig.from_dict(c["config"]) for c in saved["configs"]}
    out = []
    for n in names:
        if n not in by_name:
            raise RagkitError(f"run {saved.get('run_id')} has no config named {n!r}")
        store, emb = index_for(qset, by_name[n], embedders, str(index_root), None)
        out.append(
            RagPipeline(by_name[n], store, emb, api_key=key_for(api_key, by_name[n].llm), scope=qset.scope)
        )
    return out


def rerun(
    saved: dict[str, Any],
    index_root: str | Path = "indexes/.eval",
    *,
    collection: Any = None,
    progress: Any = None,
    api_key: str | Mapping[str, str] | None = None,
    judge: Any = None,
    embedders: dict | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Run a saved run again (same configs, question set and parameters); returns the new result and
    notes on what changed since (dataset contents, ragkit version)."""
    configs = [PipelineConfig.from_dict(c["config"]) for c in saved["configs"]]
    params = saved.get("params", {})
    qset = question_set_of(saved, collection)
    result = evaluate_configs(
        qset,
        configs,
        params.get("limit"),
        str(index_root),
        progress,
        api_key=api_key,
        judge=judge,
        embedders=embedders,
        primary_metric=saved.get("primary_metric") or None,  # the same declared metric decides again
    )
    notes = []
    if result["dataset_hash"] != saved["dataset_hash"]:
        notes.append("the question set or its documents changed since the saved run (dataset hash differs)")
    if result["ragkit_version"] != saved.get("ragkit_version"):
        notes.append(f"ragkit version {saved.get('ragkit_version')} → {result['ragkit_version']}")
    result["rerun_of"] = saved.get("run_id")
    return result, notes
