"""A sweep's identity and what it keeps on disk: the key that makes two sweeps the same, the checkpoint a
cancelled or interrupted sweep resumes from (the held-out split with it), and the saved results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.files import atomic_write
from ragkit.core.hashing import config_key
from ragkit.evaluation.runs.saved import save_record, saved_records

#: how questions are scored; a checkpoint scored otherwise is not resumed (2: evidence moved onto each
#: set-up's reading of the PDFs, :mod:`ragkit.evaluation.datasets.reparse`)
SCORING = 2


def sweeps_dir(index_root: str | Path) -> Path:
    return Path(index_root) / "sweeps"


def sweep_key(sweep: Any) -> str:
    """What makes two sweeps the same: grid, question set, metric, schedule, order, the held-out share
    (with the seed and the questions, it decides the split) and the budget."""
    return config_key(
        {
            "grid": sweep.grid.to_dict(),
            "questions": sweep.qset.hash,
            "metric": sweep.metric,
            "schedule": sweep.schedule.to_dict(),
            "seed": sweep.seed,
            "budget": sweep.budget,
            "max_latency_ms": sweep.max_latency_ms,
            "max_index_mb": sweep.max_index_mb,
            "judge": getattr(sweep.judge, "model_id", None),
            "n": sweep.n_questions,
            "holdout": sweep.holdout_share,
            "scoring": SCORING,
        }
    )


def save(sweep: Any, path: Path) -> None:
    """What every set-up measured so far, on the race's questions and the held-out ones."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "key": sweep.key(),
        "rows": sweep.rows,
        "held_out": sorted(sweep.held_ids),
        "held_rows": sweep.held_rows,
        "failures": sweep.failures,
        "held_failures": sweep.held_failures,
        "index_mb": sweep.index_mb,
        "elapsed_s": sweep.elapsed_s,
        "ragkit_version": __version__,
    }
    atomic_write(path, lambda f: json.dump(data, f))


def load(sweep: Any, path: Path) -> int:
    """Load what an earlier run of the same sweep measured into ``sweep``; the question evaluations
    loaded (0 when there is no checkpoint of this sweep)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0
    if data.get("key") != sweep.key():
        return 0
    for k, rows in data.get("rows", {}).items():
        if k in sweep.rows:
            sweep.rows[k] = rows
    if data.get("held_out") == sorted(sweep.held_ids):  # the key decides the split: a guard, not a choice
        for k, rows in data.get("held_rows", {}).items():
            if k in sweep.held_rows:
                sweep.held_rows[k] = rows
        sweep.held_failures = list(data.get("held_failures", []))
    sweep.failures = list(data.get("failures", []))
    sweep.index_mb.update({k: v for k, v in data.get("index_mb", {}).items() if k in sweep.rows})
    sweep.elapsed_s = float(data.get("elapsed_s", 0.0))
    return sum(len(r) for r in sweep.rows.values()) + sum(len(r) for r in sweep.held_rows.values())


def save_sweep(result: dict[str, Any], index_root: str | Path = "indexes/.eval") -> Path:
    """Write a finished sweep as ``<created>-<id>.json`` under ``<index root>/sweeps/``."""
    return save_record(sweeps_dir(index_root), result, result["sweep_id"])


def list_sweeps(index_root: str | Path = "indexes/.eval") -> list[dict[str, Any]]:
    """A summary per saved sweep, newest first (checkpoints of unfinished ones are not listed)."""
    return [
        {
            "path": str(p),
            "sweep_id": r.get("sweep_id"),
            "created_at": r.get("created_at"),
            "questions": r.get("question_set", {}).get("name"),
            "metric": r.get("metric"),
            "candidates": len(r.get("candidates", [])),
            "status": r.get("status"),
        }
        for p, r in saved_records(sweeps_dir(index_root), "2*.json")
    ]
