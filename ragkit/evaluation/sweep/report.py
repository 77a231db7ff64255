"""A sweep's result as the page and the exports show it: the CSV, the Markdown report, and the texts of
one candidate's row (its interval against the best, its latency, its outcome, its held-out score)."""

from __future__ import annotations

import csv
import io
from typing import Any

from ragkit.evaluation.datasets.reparse import reading_note

#: a kept set-up's held-out columns (CSV), in order
HELD_KEYS = ("holdout_mean", "holdout_ci_low", "holdout_ci_high", "optimism")


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
            "holdout_mean",
            "holdout_ci_low",
            "holdout_ci_high",
            "optimism",
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
                *("" if c.get(k) is None else c[k] for k in HELD_KEYS),
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


def score_text(candidate: dict[str, Any], name: str = "mean") -> str:
    """A mean with its 95 % interval: ``0.7012 (0.6590 to 0.7420)``, or "–" without one."""
    mean = candidate.get("holdout_mean" if name == "holdout" else "mean")
    if mean is None:
        return "–"
    lo, hi = candidate.get(f"{name}_ci_low"), candidate.get(f"{name}_ci_high")
    return f"{mean:.4f}" if lo is None else f"{mean:.4f} ({lo:.4f} to {hi:.4f})"


def optimism_text(result: dict[str, Any]) -> str:
    """The winner on the questions it was picked on and on the held-out ones, and the difference (or why
    there is no held-out score: then the selection score is labelled optimistic)."""
    h = result.get("holdout") or {}
    by_key = {c["config_hash"]: c for c in result["candidates"]}
    win = by_key.get(result.get("best") or "")
    if win is None:
        return h.get("note", "")
    picked = (
        f"{win['name']}: {score_text(win)} on the {win['questions_evaluated']} questions it was picked on"
    )
    if result.get("optimism") is None:
        if str(h.get("status", "")).startswith("not scored"):
            return f"{picked} — optimistic until it is re-scored on the held-out questions: {h['status']}."
        return f"{picked} — optimistic: {h.get('note', 'no held-out questions')}."
    text = (
        f"{picked}; {score_text(win, 'holdout')} on {win['holdout_n']} held-out questions the race never "
        f"saw. Optimism (selection − held-out): {result['optimism']:+.4f} "
        f"(95 % CI {result['optimism_ci_low']:+.4f} to {result['optimism_ci_high']:+.4f})"
    )
    kept = sum(1 for c in result["candidates"] if c.get("holdout_rank"))
    if result.get("pick_optimism") is not None:
        text += (
            f"; of it, the pick's own: {result['pick_optimism']:+.4f} (its lead over the {kept} set-ups "
            "kept, on the race's questions minus on the held-out ones; the rest is the two parts' "
            f"difficulty). On the held-out questions it ranks {win['holdout_rank']} of {kept}"
        )
    return f"{text}. {h['note']}."


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
        optimism_text(result),
        "",
        f"Question evaluations: {result['evaluations_used']} of the full grid's {result['evaluations_full']} "
        f"({100 * result['evaluations_used'] / max(1, result['evaluations_full']):.0f} %).",
        "",
        f"| set-up | {metric} (95 % CI) | questions | held-out {metric} (95 % CI) | p50 ms | index MB "
        "| vs best (95 % CI, one comparison) | outcome |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in table_order(result):
        lines.append(
            f"| {c['name']} | {score_text(c)} | {c['questions_evaluated']} | {score_text(c, 'holdout')} | "
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
