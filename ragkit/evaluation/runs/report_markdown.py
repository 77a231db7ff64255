"""An evaluation run as a Markdown report: provenance, warnings, metrics, comparisons with their
correction, calibration, judge agreement, latency per stage, intent slices and the Pareto front."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragkit.evaluation.metrics.pareto import overlapping, pareto_front, quality_latency_points
from ragkit.evaluation.runs.report import (
    comparison_rows,
    correction_note,
    intent_slices,
    level_label,
    metric_table,
    primary_metric,
    warnings,
)


def markdown_report(result: dict[str, Any]) -> str:
    """The run as Markdown: provenance, metric table per config, every comparison with its CI and
    verdict, calibration, latency per stage, per-intent slices and warnings."""
    lines = [
        f"# ragkit evaluation: {Path(result['dataset']).name}",
        "",
        f"{result['questions']} questions · {result['dataset_kind']} ({level_label(result)})"
        f" · dataset sha256 {result['dataset_hash'][:12]} · ragkit {result['ragkit_version']}"
        + (f" · run {result['run_id']}" if result.get("run_id") else ""),
        "",
    ]
    notes = warnings(result)
    for w in notes:
        lines.append(f"> **Warning:** {w}")
    if notes:
        lines.append("")
    table = metric_table(result)
    cols = list(table[0])
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in table:
        lines.append("| " + " | ".join("–" if row.get(c) is None else f"{row[c]}" for c in cols) + " |")
    if result["comparisons"]:
        lines += ["", correction_note(result), ""]
        cols = list(comparison_rows(result)[0])
        lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for row in comparison_rows(result):
            lines.append("| " + " | ".join("–" if row[c] is None else str(row[c]) for c in cols) + " |")
    calibrated = [c for c in result["configs"] if c.get("calibration")]
    if calibrated:
        lines += [
            "",
            "## Confidence calibration",
            "",
            calibrated[0]["calibration"]["correct_means"] + ".",
            "",
        ]
        lines += [
            "| config | gauge | ECE | 5-fold ECE raw → isotonic | bins (mean confidence → accuracy, n) |",
            "|---|---|---|---|---|",
        ]
        for c in calibrated:
            cal = c["calibration"]
            bins = "; ".join(
                f"{b['mean_confidence']:.2f}→{b['accuracy']:.2f} ({b['count']})"
                for b in cal["bins"]
                if b["count"]
            )
            cv = cal.get("cross_validated")
            cv_cell = f"{cv['ece_raw']:.4f} → {cv['ece_calibrated']:.4f}" if cv else "–"
            gauge = "calibrated" if cal.get("calibrated_gauge") else "raw"
            lines.append(f"| {c['name']} | {gauge} | {cal['ece']:.4f} | {cv_cell} | {bins} |")
    judged = [c for c in result["configs"] if c.get("models", {}).get("judge_prompts")]
    if judged:
        m = judged[0]["models"]
        lines += [
            "",
            "## Answer judge",
            "",
            f"Judge {m['judge']} · prompts sha256 {m['judge_prompts']} · metrics {m.get('judge_metrics', '')}"
            + (f" · second judge {m['judge2']}" if m.get("judge2") else ""),
        ]
        agreeing = [c for c in judged if c.get("judge_agreement")]
        if agreeing:
            lines += ["", "| config | metric | agreement | n |", "|---|---|---|---|"]
            for c in agreeing:
                for metric, a in c["judge_agreement"].items():
                    kind = "Cohen's κ" if "cohen_kappa" in a else "Spearman ρ"
                    v = a.get("cohen_kappa", a.get("spearman"))
                    cell = "–" if v is None else f"{kind} {v:.3f}"
                    lines.append(f"| {c['name']} | {metric} | {cell} | {a['n']} |")
    stages = sorted({s for c in result["configs"] for s in c.get("stage_latency_ms", {})})
    if stages:
        lines += ["", "## Latency per stage (p50 [interquartile range] / p95 ms, the work only)", ""]
        lines += ["| config | " + " | ".join(stages) + " |", "|---|" + "---|" * len(stages)]
        for c in result["configs"]:
            sl = c.get("stage_latency_ms", {})
            cells = [_spread(sl[s]) if s in sl else "–" for s in stages]
            lines.append(f"| {c['name']} | " + " | ".join(cells) + " |")
    metric = primary_metric(result)
    slices = intent_slices(result, metric)
    names = [c["name"] for c in result["configs"]]
    lines += [
        "",
        f"## By intent ({metric}; descriptive, no test per slice)",
        "",
        "| intent | questions | " + " | ".join(names) + " | best |",
    ]
    lines.append("|---|---|" + "---|" * len(names) + "---|")
    for s in slices:
        cells = " | ".join("–" if s[n] is None else f"{s[n]:.4f}" for n in names)
        lines.append(f"| {s['intent']} | {s['questions']} | {cells} | {s['best']} |")
    points = quality_latency_points(result, metric)
    front = pareto_front(points)
    lines += [
        "",
        f"Pareto front (p50 latency vs {metric}; better means beyond the latency interquartile range and "
        f"the 95 % interval of the mean): {', '.join(front)}",
    ]
    for a, b in overlapping(points):
        lines.append(f"{a} and {b} overlap on both latency and {metric}: neither is better on this run.")
    return "\n".join(lines) + "\n"


def _spread(t: dict[str, float]) -> str:
    iqr = f" [{t['p25']:.1f}–{t['p75']:.1f}]" if "p25" in t else ""
    return f"{t['p50']:.1f}{iqr} / {t['p95']:.1f}"
