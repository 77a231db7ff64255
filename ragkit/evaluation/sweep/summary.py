"""A sweep's result as JSON (what the CLI writes and the page shows).

The result names the *set* of set-ups not significantly worse than the best (not one winner when the
questions cannot separate them), each candidate's mean and paired interval against the best, the Pareto
front of quality against p50 latency among the set-ups that answered every question, per-intent means,
for every dropped candidate when and by what evidence it left, and for the set kept its scores on the
held-out questions with the optimism of the pick (:mod:`ragkit.evaluation.sweep.holdout`).
"""

from __future__ import annotations

import datetime as dt
import statistics
import uuid
from typing import Any

from ragkit import __version__
from ragkit.evaluation.datasets.reparse import COUNTS, moved_and_lost
from ragkit.evaluation.metrics.names import PER_QUESTION_METRICS
from ragkit.evaluation.metrics.pareto import Point, pareto_front
from ragkit.evaluation.metrics.stats import compare_paired, mean_ci
from ragkit.evaluation.runs.beir import latency_summary
from ragkit.evaluation.sweep.holdout import mean_interval, optimism, split_note
from ragkit.evaluation.sweep.racing import RESAMPLES

#: how many questions "where the top two differ most" lists
TOP_DIFFERENCES = 10
FINISHED = ("questions done", "one left", "none left")


def summarise(sweep: Any) -> dict[str, Any]:
    """The result of a :class:`~ragkit.evaluation.sweep.runner.Sweep` in its current state."""
    metric, rows = sweep.metric, sweep.rows
    alive = sweep.alive()
    n_items = len(sweep.items)
    means = {k: _mean([r[metric] for r in rows[k].values() if r.get(metric) is not None]) for k in rows}
    sign = 1.0 if sweep.higher else -1.0
    # alive: neither dropped nor failed; best mean first, set-ups without a score last
    ranked = sorted(alive, key=lambda k: (means[k] is None, -sign * (means[k] or 0.0)))
    best = ranked[0] if ranked else None
    failed = {f["config"]: f for f in sweep.failures}
    held_scored = bool(sweep.held_items) and sweep.status in FINISHED
    candidates = []
    for cand in sweep.candidates:
        k = cand.key
        drop = sweep.drops.get(k)
        entry: dict[str, Any] = {
            "name": cand.name,
            "config_hash": k,
            "config": cand.config.to_dict(),
            "varied": cand.varied,
            "mean": means[k],
            **_interval("mean", _scores(rows[k], metric), sweep.seed),
            "questions_evaluated": len(rows[k]),
            "dropped_after": drop.questions if drop is not None else None,
            "drop": {**drop.to_dict(), "sentence": drop.sentence()} if drop is not None else None,
            "failure": failed.get(cand.name),
            "best_within_noise": k in alive,
            "latency_ms": latency_summary(
                [r["latency_ms"] for r in rows[k].values() if r.get("latency_ms") is not None]
            ),
            "metrics": {
                m: _mean([r[m] for r in rows[k].values() if r.get(m) is not None])
                for m in PER_QUESTION_METRICS
                if any(r.get(m) is not None for r in rows[k].values())
            },
            "by_intent": _by_intent(rows[k], metric),
            "index_mb": sweep.index_mb.get(k),
            **dict(zip(COUNTS, moved_and_lost(rows[k].values()), strict=True)),
        }
        if k in alive and held_scored:
            entry.update(_held_out(sweep, k))
        if best is not None and k != best:
            entry["vs_best"] = _versus(rows[best], rows[k], metric, sweep.higher, sweep.seed)
            if k in alive and sweep.looks:
                entry["vs_best"].update(_last_look(entry["vs_best"], sweep.looks[-1]))
        candidates.append(entry)
    _rank_held_out(candidates, sweep.higher)
    winner = next((c for c in candidates if c["config_hash"] == best), {})
    sweep_id = uuid.uuid4().hex[:10]
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    return {
        "sweep_id": sweep_id,
        "created_at": created,
        "ragkit_version": __version__,
        "status": sweep.status,
        "finished": sweep.status in FINISHED,
        "key": sweep.key(),
        "grid": sweep.grid.to_dict(),
        "grid_hash": sweep.grid.key(),
        "merged_duplicates": sweep.merged,
        "question_set": {
            "name": sweep.qset.name,
            "kind": sweep.qset.kind,
            "source": sweep.qset.source,
            "hash": sweep.qset.hash,
            "n": sweep.n_questions,
            "n_selection": n_items,
            "n_holdout": len(sweep.held_items),
        },
        "holdout": _holdout_block(sweep, held_scored),
        "optimism": winner.get("optimism"),
        "optimism_ci_low": winner.get("optimism_ci_low"),
        "optimism_ci_high": winner.get("optimism_ci_high"),
        "pick_optimism": _pick_optimism(winner, candidates, sweep.higher),
        "selection_optimistic": "optimism" not in winner,
        "metric": metric,
        "higher_is_better": sweep.higher,
        "settings": {
            "racing": sweep.schedule.racing,
            "alpha": sweep.schedule.alpha,
            "seed": sweep.seed,
            "schedule": sweep.schedule.to_dict(),
            "budget": sweep.budget,
            "max_latency_ms": sweep.max_latency_ms,
            "max_index_mb": sweep.max_index_mb,
            "judge": getattr(sweep.judge, "model_id", None),
        },
        "candidates": candidates,
        "best": best,
        "best_within_noise": ranked,
        "evaluations_used": sweep.evaluations_used(),
        "evaluations_full": len(sweep.candidates) * n_items,
        "holdout_evaluations": sweep.holdout_evaluations(),
        "looks": sweep.looks,
        "pareto": _pareto(sweep, alive, metric),
        "top_differences": _top_differences(sweep, ranked[:2], metric),
        "failures": sweep.failures,
        "elapsed_s": round(sweep.elapsed_s, 3),
        "estimate": sweep.estimated,
    }


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _scores(rows: dict[str, dict[str, Any]], metric: str) -> list[float]:
    return [r[metric] for r in rows.values() if r.get(metric) is not None]


def _interval(name: str, values: list[float], seed: int) -> dict[str, float | None]:
    """``<name>_ci_low`` and ``<name>_ci_high``: the mean's bootstrap 95 % interval (None: no values)."""
    ci = mean_interval(values, seed)
    return {f"{name}_ci_low": ci[1] if ci else None, f"{name}_ci_high": ci[2] if ci else None}


def _held_out(sweep: Any, key: str) -> dict[str, Any]:
    """A kept set-up on the held-out questions: its mean with its interval, and the optimism of the pick
    (selection mean minus held-out mean, turned where lower is better) with its interval."""
    held = _scores(sweep.held_rows[key], sweep.metric)
    out: dict[str, Any] = {
        "holdout_n": len(held),
        "holdout_mean": _mean(held),
        **_interval("holdout", held, sweep.seed),
    }
    opt = optimism(_scores(sweep.rows[key], sweep.metric), held, sweep.higher, sweep.seed)
    if opt is not None:
        out |= {"optimism": opt[0], "optimism_ci_low": opt[1], "optimism_ci_high": opt[2]}
    return out


def _rank_held_out(candidates: list[dict[str, Any]], higher: bool) -> None:
    """Each re-scored set-up's rank among those re-scored by its held-out mean (1: the best)."""
    scored = [c for c in candidates if c.get("holdout_mean") is not None]
    for i, c in enumerate(sorted(scored, key=lambda c: -c["holdout_mean"] if higher else c["holdout_mean"])):
        c["holdout_rank"] = i + 1


def _pick_optimism(winner: dict[str, Any], candidates: list[dict[str, Any]], higher: bool) -> float | None:
    """The optimism the pick itself adds: the winner's lead over the mean of the set-ups re-scored with it
    on the race's questions, minus its lead on the held-out ones (the two parts' different difficulty,
    shared by every set-up, cancels; None with fewer than two re-scored)."""
    kept = [c for c in candidates if c.get("holdout_mean") is not None and c.get("mean") is not None]
    if len(kept) < 2 or winner.get("holdout_mean") is None:
        return None
    lead = winner["mean"] - statistics.fmean(c["mean"] for c in kept)
    held = winner["holdout_mean"] - statistics.fmean(c["holdout_mean"] for c in kept)
    return (lead - held) * (1.0 if higher else -1.0)


def _holdout_block(sweep: Any, scored: bool) -> dict[str, Any]:
    """How the questions were split, which were held out, and whether the kept set was re-scored."""
    status = sweep.split_status
    if status == "split":
        status = "scored" if scored else f"not scored: the sweep stopped ({sweep.status})"
    return {
        "share": sweep.holdout_share,
        "seed": sweep.seed,
        "stratified_by": "document",
        "status": status,
        "note": split_note(sweep.split_status, sweep.n_questions, sweep.holdout_share),
        "question_ids": sorted(sweep.held_ids),
        "failures": sweep.held_failures,
    }


def _by_intent(rows: dict[str, dict[str, Any]], metric: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[float]] = {}
    for r in rows.values():
        if r.get(metric) is not None:
            groups.setdefault(r.get("intent") or "other", []).append(r[metric])
    return {i: {"mean": statistics.fmean(v), "n": len(v)} for i, v in sorted(groups.items())}


def _versus(best: dict[str, dict], other: dict[str, dict], metric: str, higher: bool, seed: int) -> dict:
    """The candidate against the best on the questions both scored: difference (candidate - best) with
    its paired 95 % interval and the raw p (the race's corrected decisions are in ``drop``)."""
    common = [
        q for q in other if other[q].get(metric) is not None and best.get(q, {}).get(metric) is not None
    ]
    if not common:
        return {"n": 0}
    cmp = compare_paired(
        [best[q][metric] for q in common],
        [other[q][metric] for q in common],
        n_resamples=RESAMPLES,
        seed=seed,
        higher_is_better=higher,
    )
    return {
        "n": cmp.n,
        "diff": cmp.diff,
        "ci_low": cmp.ci_low,
        "ci_high": cmp.ci_high,
        "p_value": cmp.p_value,
        "test": cmp.test,
    }


def _last_look(vs: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
    """Why a set-up in the best set was kept at the last look, in that look's own terms: its p times the
    comparisons with the best, against the look's alpha, and Friedman's gate (the interval beside it is
    one comparison's, uncorrected: it can exclude 0 while the corrected test does not)."""
    if not vs.get("n"):
        return {}
    m = max(int(last["alive_before"]) - 1, 1)
    return {
        "comparisons": m,
        "p_corrected": min(1.0, vs["p_value"] * m),
        "alpha": last["alpha"],
        "friedman_p": last.get("friedman_p"),
    }


def _pareto(sweep: Any, alive: list[str], metric: str) -> list[str]:
    """Config hashes on the front of quality, p50 latency and index size, among the set-ups that answered
    every question."""
    points = []
    for k in alive:
        vals = [r[metric] for r in sweep.rows[k].values() if r.get(metric) is not None]
        lat = [r["latency_ms"] for r in sweep.rows[k].values() if r.get("latency_ms") is not None]
        if not vals or not lat:
            continue
        q, qlo, qhi = mean_ci(vals, 2000, sweep.seed)
        spread = latency_summary(lat)
        size = sweep.index_mb.get(k)
        points.append(Point(k, spread["p50"], q, spread["p25"], spread["p75"], qlo, qhi, size))
    return pareto_front(points) if sweep.higher else [p.name for p in points]


def _top_differences(sweep: Any, top: list[str], metric: str) -> list[dict[str, Any]]:
    """The questions on which the two best set-ups differ most: where to look in Compare."""
    if len(top) < 2:
        return []
    a, b = sweep.rows[top[0]], sweep.rows[top[1]]
    out = []
    for q in a:
        if q in b and a[q].get(metric) is not None and b[q].get(metric) is not None:
            out.append(
                {
                    "qid": q,
                    "question": a[q].get("question"),
                    "a": a[q][metric],
                    "b": b[q][metric],
                    "gap": abs(a[q][metric] - b[q][metric]),
                }
            )
    out.sort(key=lambda d: -d["gap"])
    return [d for d in out if d["gap"] > 0][:TOP_DIFFERENCES]
