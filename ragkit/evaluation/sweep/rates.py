"""This machine's measured rates, kept beside the saved sweeps: what the next sweep's estimate rests on.

Every sweep records what its work took: seconds per question evaluation for each kind of set-up
(:func:`~ragkit.evaluation.sweep.candidates.work_kind`: scoring included) and to prepare one over an
index already built (its retriever, its models), chunks embedded per second by each model, characters
chunked and indexed per second. A newer measurement of the same rate replaces
the older one, and each says where it comes from, so an estimate can say what it rests on.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
from pathlib import Path
from typing import Any

from ragkit.core.files import atomic_write, file_lock

#: where the rates live under an index root (beside the saved sweeps)
RATES_FILE = Path("sweeps") / "rates.json"
#: an index build is an embedding rate only when it embedded at least this many chunks (fewer: model
#: loading and index writing would dominate the time)
MIN_EMBEDDED = 500
#: a set-up's question time counts once it answered this many
MIN_QUESTIONS = 5


def embed_rate_name(model: str) -> str:
    return f"embed_chunks_per_s:{model}"


def question_rate_name(kind: str) -> str:
    return f"question_s:{kind}"


def setup_rate_name(kind: str) -> str:
    return f"setup_s:{kind}"


CHUNK_RATE = "chunk_chars_per_s"


def rate(value: float, unit: str, source: str) -> dict[str, Any]:
    """One measured rate: its value, unit and what it rests on (dated)."""
    return {"value": value, "unit": unit, "source": source, "date": dt.date.today().isoformat()}


def load_rates(index_root: str | Path) -> dict[str, dict[str, Any]]:
    """The rates measured under this index root (empty when none were)."""
    try:
        data = json.loads((Path(index_root) / RATES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, dict) and isinstance(v.get("value"), int | float)}


def save_rates(index_root: str | Path, new: dict[str, dict[str, Any]]) -> None:
    """Merge ``new`` into the kept rates (a newer measurement replaces an older one), under a lock."""
    if not new:
        return
    path = Path(index_root) / RATES_FILE
    with file_lock(path.with_suffix(".lock"), "the measured rates"):
        data = load_rates(index_root) | new
        atomic_write(path, lambda f: json.dump(data, f, indent=1, sort_keys=True))


def measured(sweep: Any, plans: list[Any]) -> dict[str, dict[str, Any]]:
    """The rates a sweep's own work shows: per kind of set-up the median seconds per question (over its
    set-ups that answered enough), per model the chunks embedded per second by index builds that embedded
    enough, and characters per second of builds that embedded nothing (chunking and indexing)."""
    from ragkit.evaluation.sweep.candidates import work_kind

    where = f"sweep on {sweep.qset.name}"
    out: dict[str, dict[str, Any]] = {}
    kinds: dict[str, list[float]] = {}
    judged = sweep.judge is not None
    for key, (seconds, n) in sweep.timing["steps"].items():
        if n >= MIN_QUESTIONS:
            kind = work_kind(sweep.qset, sweep.by_key[key].config, judged)
            kinds.setdefault(kind, []).append(seconds / n)
    for kind, per in kinds.items():
        out[question_rate_name(kind)] = rate(
            statistics.median(per), "s per question", f"{where}, {len(per)} set-up(s)"
        )
    builds = {b["candidate"]: b for b in sweep.timing["builds"]}
    setups: dict[str, list[float]] = {}
    for plan in plans:  # every set-up's preparation but the one that built (not opened) the index
        mine = sorted((builds[k] for k in plan.setups if k in builds), key=lambda b: -b["s"])
        for b in mine[0 if plan.state == "cached" else 1 :]:
            kind = work_kind(sweep.qset, sweep.by_key[b["candidate"]].config, judged)
            setups.setdefault(kind, []).append(b["s"])
    for kind, took in setups.items():
        out[setup_rate_name(kind)] = rate(
            statistics.median(took), "s per set-up", f"{where}, {len(took)} set-up(s) over an index built"
        )
    for plan in plans:
        if plan.state == "cached":
            continue
        first = max((builds[k] for k in plan.setups if k in builds), key=lambda b: b["s"], default=None)
        if first is None or first["s"] <= 0:
            continue
        if plan.vectors and first["new_embeddings"] >= MIN_EMBEDDED:
            out[embed_rate_name(plan.model)] = rate(
                first["new_embeddings"] / first["s"],
                "chunks per s",
                f"{where}: {first['new_embeddings']} chunks embedded for {plan.label} (chunking included)",
            )
        elif first["new_embeddings"] == 0 and plan.chars:
            out[CHUNK_RATE] = rate(
                plan.chars / first["s"], "characters per s", f"{where}: {plan.label} chunked and indexed"
            )
    return out
