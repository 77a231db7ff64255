"""A sweep's result as JSON (what the CLI writes and the page shows) and its CSV and Markdown exports.

The result names the *set* of set-ups not significantly worse than the best (not one winner when the
questions cannot separate them), each candidate's mean and paired interval against the best, the Pareto
front of quality against p50 latency among the set-ups that answered every question, per-intent means,
and for every dropped candidate when and by what evidence it left.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
import uuid
from typing import Any

from ragkit import __version__
from ragkit.evaluation.datasets.reparse import COUNTS, moved_and_lost, reading_note
from ragkit.evaluation.metrics.names import PER_QUESTION_METRICS
from ragkit.evaluation.metrics.pareto import Point, pareto_front
from ragkit.evaluation.metrics.stats import compare_paired, mean_ci
from ragkit.evaluation.runs.beir import latency_summary
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
        if best is not None and k != best:
            entry["vs_best"] = _versus(rows[best], rows[k], metric, sweep.higher, sweep.seed)
            if k in alive and sweep.looks:
                entry["vs_best"].update(_last_look(entry["vs_best"], sweep.looks[-1]))
        candidates.append(entry)
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
            "n": n_items,
        },
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
        "looks": sweep.looks,
        "pareto": _pareto(sweep, alive, metric),
        "top_differences": _top_differences(sweep, ranked[:2], metric),
        "failures": sweep.failures,
        "elapsed_s": round(sweep.elapsed_s, 3),
    }


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None


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


def sweep_csv(result: dict[str, Any]) -> str:
    """One row per candidate: name, hash, mean, questions, dropped after, p50 latency, in best set."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(
        [
            "name",
            "config_hash",
            result["metric"],
            "questions_evaluated",
            "dropped_after",
            "p50_latency_ms",
            "index_mb",
            "best_within_noise",
            "varied",
        ]
    )
    for c in result["candidates"]:
        w.writerow(
            [
                c["name"],
                c["config_hash"],
                c["mean"],
                c["questions_evaluated"],
                c["dropped_after"] or "",
                c["latency_ms"]["p50"] if c["questions_evaluated"] else "",
                "" if c.get("index_mb") is None else round(c["index_mb"], 3),
                c["best_within_noise"],
                _varied(c["varied"]),
            ]
        )
    return buf.getvalue()


def _varied(varied: dict[str, Any]) -> str:
    return "; ".join(f"{k}={v}" for k, v in varied.items())


def table_order(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The candidates as the report and the page list them: the best set first, then by mean."""
    return sorted(result["candidates"], key=lambda c: (not c["best_within_noise"], -(c["mean"] or 0)))


def vs_best_text(candidate: dict[str, Any]) -> str:
    """The candidate minus the best with its 95 % interval, "best", or "–" when the two share no
    question (a set-up that left before answering any)."""
    vs = candidate.get("vs_best")
    if vs is None:
        return "best"
    if not vs.get("n"):
        return "–"
    return f"{vs['diff']:+.4f} ({vs['ci_low']:+.4f} to {vs['ci_high']:+.4f})"


def p50_text(candidate: dict[str, Any]) -> str:
    """The median latency in ms, or "–" for a set-up that answered nothing."""
    return f"{candidate['latency_ms']['p50']:.1f}" if candidate["questions_evaluated"] else "–"


def index_mb_text(candidate: dict[str, Any]) -> str:
    """The index size the set-up searches (texts + vectors), or "–" when it never built one."""
    mb = candidate.get("index_mb")
    return "–" if mb is None else f"{mb:.1f}"


def outcome(candidate: dict[str, Any]) -> str:
    """In the best set, or when and why it left the race (its drop, or its failure)."""
    if candidate["best_within_noise"]:
        vs = candidate.get("vs_best") or {}
        if "p_corrected" not in vs:
            return "in the best set"
        gate, alpha = vs.get("friedman_p"), vs["alpha"]
        if gate is not None and gate >= alpha:
            return f"in the best set (Friedman p = {gate:.2g} ≥ {alpha:.2g}: no evidence the set-ups differ)"
        if vs["p_corrected"] >= alpha:
            return (
                f"in the best set (p = {vs['p_value']:.2g} × {vs['comparisons']} comparisons = "
                f"{vs['p_corrected']:.2g} ≥ {alpha:.2g})"
            )
        return "in the best set (its interval includes 0)"
    if candidate["drop"]:
        return candidate["drop"]["sentence"]
    return (candidate["failure"] or {}).get("error", "stopped")


def _fmt(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


def reading_notes(result: dict[str, Any]) -> list[str]:
    """One note per set-up judged on another reading of the PDFs than the labels' (moved evidence)."""
    return [
        reading_note(c["name"], c.get("evidence_moved", 0), c.get("evidence_lost", 0))
        for c in result["candidates"]
        if c.get("evidence_moved") or c.get("evidence_lost")
    ]


def sweep_markdown(result: dict[str, Any]) -> str:
    """The sweep as a Markdown report: verdict, the candidates, the drops, the cost."""
    metric = result["metric"]
    by_key = {c["config_hash"]: c for c in result["candidates"]}
    best = [by_key[k]["name"] for k in result["best_within_noise"]]
    qs = result["question_set"]
    lines = [
        f"# Sweep {result['sweep_id']} — {qs['name']} ({qs['n']} questions), {metric}",
        "",
        f"ragkit {result['ragkit_version']} · {result['created_at']} · status: {result['status']} · "
        f"racing: {'yes' if result['settings']['racing'] else 'no (every set-up on every question)'} · "
        f"alpha {result['settings']['alpha']:g}",
        "",
        f"**Not significantly worse than the best ({len(best)}):** " + ", ".join(best),
        "",
        f"Question evaluations: {result['evaluations_used']} of the full grid's {result['evaluations_full']} "
        f"({100 * result['evaluations_used'] / max(1, result['evaluations_full']):.0f} %).",
        "",
        f"| set-up | {metric} | questions | p50 ms | index MB "
        "| vs best (95 % CI, one comparison) | outcome |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in table_order(result):
        lines.append(
            f"| {c['name']} | {_fmt(c['mean'])} | {c['questions_evaluated']} | "
            f"{p50_text(c)} | {index_mb_text(c)} | {vs_best_text(c)} | {outcome(c)} |"
        )
    if result["merged_duplicates"]:
        lines += [
            "",
            "Merged (the same set-up): "
            + "; ".join(f"{d['name']} = {d['same_as']} ({d['why']})" for d in result["merged_duplicates"]),
        ]
    lines += [line for note in reading_notes(result) for line in ("", f"> {note}")]
    return "\n".join(lines) + "\n"
