"""Views of an evaluation result (the dict :func:`~ragkit.evaluation.runs.evaluate.evaluate_configs` returns):
metric and comparison tables, per-question rows and CSV, per-intent slices, the quality-vs-latency
Pareto front, plain-language warnings and the Markdown report. Pure functions, shared by CLI and UI.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections.abc import Sequence
from typing import Any

from ragkit.evaluation.datasets.reparse import moved_and_lost, reading_note
from ragkit.retrievers.intent import INTENTS

#: fewer questions than this and only large differences can be told apart
SMALL_SET = 30
QUALITY_METRICS = ("ndcg@10", "contains_gold", "f1", "recall@10", "mrr@10", "exact_match")
#: a metric at its best on this share of questions for every config cannot separate them
SATURATED_SHARE = 0.8
RANK_METRICS = ("ndcg@10", "recall@10", "mrr@10", "gold_ndcg@10", "gold_recall@10", "gold_mrr@10")
#: answers are cut to this many characters in the on-screen table (the CSV keeps them whole)
ANSWER_PREVIEW = 160


def metric_names(result: dict[str, Any]) -> list[str]:
    return list(result.get("metric_names") or result["configs"][0]["metrics"])


#: run-level figures shown beside the per-question metrics (no paired test: not per question)
SUMMARY_METRICS = (
    "ece",
    "answer_confidence_auroc",
    "judge_parse_failures",
    "simpleqa_accuracy",
    "simpleqa_attempted",
    "simpleqa_accuracy_given_attempted",
    "simpleqa_f_score",
    "judge2_judge_parse_failures",
)


def lower_is_better(result: dict[str, Any], metric: str) -> bool:
    return metric in set(result.get("lower_is_better", ())) or metric in (
        "ece",
        "judge_parse_failures",
        "judge2_judge_parse_failures",
    )


def default_quality_metric(result: dict[str, Any]) -> str:
    names = metric_names(result)
    return next((m for m in QUALITY_METRICS if m in names), names[0])


def metric_table(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per config: hash, every metric (rounded), ECE, latency p50/p95 and tokens."""
    present = {m for c in result["configs"] for m in c["metrics"]}
    second = sorted(m for m in present if m.startswith("judge2_") and m not in SUMMARY_METRICS)
    extra = [m for m in SUMMARY_METRICS if m in present] + second
    rows = []
    for c in result["configs"]:
        row: dict[str, Any] = {"config": c["name"], "hash": c["hash"][:10]}
        for m in metric_names(result) + extra:
            v = c["metrics"].get(m)
            row[m] = None if v is None else round(v, 4)
        lat = c["latency_ms"]
        row["p50 ms"] = round(lat["p50"], 1)
        row["IQR ms"] = f"{lat['p25']:.1f}–{lat['p75']:.1f}" if "p25" in lat else None
        row["p95 ms"] = round(lat["p95"], 1)
        if c.get("tokens"):
            row["tokens (prompt/completion)"] = f"{c['tokens']['prompt']}/{c['tokens']['completion']}"
        rows.append(row)
    return rows


def calibration_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Per config: the gauge's ECE on this run and, out of fold, what an isotonic map would make of it."""
    rows = []
    for c in result["configs"]:
        cal = c.get("calibration") or {}
        cv = cal.get("cross_validated") or {}
        rows.append(
            {
                "config": c["name"],
                "gauge": "calibrated" if cal.get("calibrated_gauge") else "raw",
                "questions": cal.get("n"),
                "ECE": None if "ece" not in cal else round(cal["ece"], 4),
                "5-fold ECE, raw": None if "ece_raw" not in cv else round(cv["ece_raw"], 4),
                "5-fold ECE, isotonic": None
                if "ece_calibrated" not in cv
                else round(cv["ece_calibrated"], 4),
                "map offered": (cal.get("offer") or {}).get("why", ""),
            }
        )
    return rows


def primary_metric(result: dict[str, Any]) -> str:
    """The metric the run declared before it started (older runs: the default quality metric)."""
    return result.get("primary_metric") or default_quality_metric(result)


def comparison_rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (pair, metric): the primary metric's pairs first, then the exploratory tests."""
    primary = primary_metric(result)
    rows = sorted(result["comparisons"], key=lambda x: x["metric"] != primary)
    return [
        {
            "A": x["a"],
            "B": x["b"],
            "metric": x["metric"],
            "family": x.get("family") or ("primary" if x["metric"] == primary else "exploratory"),
            "n": x["n"],
            "diff (B − A)": round(x["diff"], 4),
            "95% CI": f"[{x['ci_low']:+.4f}, {x['ci_high']:+.4f}]",
            "p": round(x["p_value"], 4),
            "p (Holm)": None if x.get("p_holm") is None else round(x["p_holm"], 4),
            "test": x["test"],
            "verdict": x["verdict"],
        }
        for x in rows
    ]


def correction_note(result: dict[str, Any]) -> str:
    """How the run's p-values are corrected, in one sentence for the page and the report."""
    primary = primary_metric(result)
    n_primary = sum(1 for x in result["comparisons"] if x["metric"] == primary)
    n_other = len(result["comparisons"]) - n_primary

    def tests(n: int) -> str:
        return f"{n} test" + ("" if n == 1 else "s")

    return (
        f"Primary metric, declared before the run: {primary} — its {tests(n_primary)} (one per pair of "
        f"configs) are corrected together (Holm); the other {tests(n_other)} are exploratory, corrected "
        "together (Holm) and only suggest where to look. A difference is called when the corrected "
        "p < 0.05 and the bootstrap 95 % CI excludes 0."
    )


def per_question_rows(
    result: dict[str, Any], metrics: Sequence[str] | None = None, full_answers: bool = False
) -> list[dict[str, Any]]:
    """One row per question: its text and intent, then for each config its answer (cut to
    ``ANSWER_PREVIEW`` characters unless ``full_answers``), metrics, confidence, whether it abstained,
    and latency."""
    metrics = list(metrics or metric_names(result))
    first = result["configs"][0]["per_question"]
    follow_ups = any(r.get("follows") for r in first.values())
    rows = []
    for qid, base in first.items():
        row: dict[str, Any] = {
            "id": qid,
            "question": base.get("question", ""),
            "intent": base.get("intent", ""),
            **({"follows": base.get("follows") or ""} if follow_ups else {}),
        }
        for c in result["configs"]:
            pq = c["per_question"].get(qid, {})
            if "answer" in pq:
                answer = " ".join(str(pq["answer"]).split())
                if not full_answers and len(answer) > ANSWER_PREVIEW:
                    answer = answer[: ANSWER_PREVIEW - 1] + "…"
                row[f"{c['name']}: answer"] = answer
            if follow_ups:  # what was searched: a follow-up's words joined by the conversation's
                row[f"{c['name']}: searched"] = pq.get("query") or pq.get("question", "")
            if pq.get("answer_confidence") is not None:
                row[f"{c['name']}: answer confidence"] = round(float(pq["answer_confidence"]), 3)
            for m in metrics:
                v = pq.get(m)
                row[f"{c['name']}: {m}"] = None if v is None else round(float(v), 4)
            if "confidence" in pq:
                conf = pq["confidence"]
                row[f"{c['name']}: confidence"] = None if conf is None else round(conf, 3)
                row[f"{c['name']}: abstained"] = pq.get("abstained")
            row[f"{c['name']}: ms"] = round(pq.get("latency_ms", 0.0), 1)
        rows.append(row)
    return rows


def per_question_csv(result: dict[str, Any]) -> str:
    """The per-question table as CSV, with every answer whole."""
    rows = per_question_rows(result, full_answers=True)
    buf = io.StringIO()
    if rows:
        writer = csv.DictWriter(buf, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return buf.getvalue()


def intent_slices(result: dict[str, Any], metric: str) -> list[dict[str, Any]]:
    """Mean ``metric`` per config within each intent (FACT/CONCEPT/COMPARISON), and which config wins."""
    rows = []
    lower = lower_is_better(result, metric)
    for intent in INTENTS:
        row: dict[str, Any] = {"intent": intent}
        means = {}
        n = 0
        for c in result["configs"]:
            vals = [
                v[metric]
                for v in c["per_question"].values()
                if v.get("intent") == intent and v.get(metric) is not None
            ]
            n = max(n, len(vals))
            if vals:
                means[c["name"]] = statistics.fmean(vals)
            row[c["name"]] = round(means[c["name"]], 4) if c["name"] in means else None
        row["questions"] = n
        if len(means) >= 2 and len(set(means.values())) > 1:
            best = (min if lower else max)(means.values())
            winners = [k for k, v in means.items() if v == best]
            row["best"] = " = ".join(winners)
        else:
            row["best"] = "tie" if means else "–"
        rows.append(row)
    return rows


def warnings(result: dict[str, Any]) -> list[str]:
    """What a reader must know before trusting the numbers, in plain words."""
    out = [
        f"{f['config']} failed ({f['when']}): {f['error']} — it is left out; the other configs finished."
        for f in result.get("failures") or []
    ]
    out += [f"Ran offline instead: {note}." for note in result.get("params", {}).get("fallbacks") or []]
    if aside := result.get("params", {}).get("set_aside"):
        out.append(
            f"{aside} question(s) of the file were set aside (a quote or file not found in the collection) "
            "and are not in these numbers: the question set's check lists them with the nearest passages."
        )
    n = result["questions"]
    if n < SMALL_SET:
        out.append(
            f"Only {n} questions: the set is too small to tell any but large differences apart "
            f"(aim for {SMALL_SET}+; a few hundred for differences of a few points)."
        )
    for c in result["configs"]:
        for key, who in (("judge_parse_failures", "the judge"), ("judge2_judge_parse_failures", "judge 2")):
            fails = c["metrics"].get(key)
            if fails:
                judged = c.get("counts", {}).get(key, 0)
                if c.get("models", {}).get("judge_prompts"):
                    what = f"for {int(fails)} metric scores over {judged} answers"
                else:
                    what = f"on {int(fails)} of {judged} answers"
                out.append(
                    f"{c['name']}: {who}'s reply did not parse {what}; those have no judge score "
                    "(counted, not zeros)."
                )
    for c in result["configs"]:
        moved, lost = moved_and_lost(c.get("per_question", {}).values())
        if moved or lost:
            out.append(reading_note(c["name"], moved, lost))
    small = {x["metric"] for x in result["comparisons"] if x.get("too_small") and x.get("differing", 0) > 0}
    if small:
        out.append(
            "Too few questions differ to test: " + ", ".join(sorted(small)) + " (reported not significant)."
        )
    out.extend(saturation_warnings(result))
    params = result.get("params", {})
    if params.get("unlabelled_left_out"):
        out.append(
            f"{params['unlabelled_left_out']} labelled questions have no evidence marked and are not marked "
            "'no answer in the collection': they were left out (label them in the Label tab)."
        )
    if result.get("level") == "mixed":
        out.append(
            "Relevance is mixed: questions with evidence quotes are judged by passage, the others by file; "
            "the retrieval means average both kinds."
        )
    return out


def saturation_warnings(result: dict[str, Any]) -> list[str]:
    """Say when a retrieval metric cannot tell the configs apart: file-level relevance over so few files
    that every config's top-k holds them, or a metric at its maximum on most questions for every config."""
    out: list[str] = []
    level = result.get("level", "document")
    files = result.get("params", {}).get("collection_files")
    top_k = max((c["config"].get("top_k", 0) for c in result["configs"] if "config" in c), default=0)
    if level in ("document", "mixed") and files and top_k and files <= top_k:
        out.append(
            f"File-level labels over {files} files cannot separate these configs: one top-{top_k} list can "
            f"hold all {files} files, whichever config ranks them. Label passages (Evaluate → Label, or an "
            "'evidence' column of quotes) — or read the gold_* metrics, which judge chunks by the gold "
            "answer."
        )
    for m in RANK_METRICS:
        shares = []
        for c in result["configs"]:
            vals = [v[m] for v in c["per_question"].values() if v.get(m) is not None]
            if len(vals) < 5:
                break
            shares.append(sum(x >= 1.0 - 1e-9 for x in vals) / len(vals))
        else:
            if shares and len(result["configs"]) > 1 and min(shares) >= SATURATED_SHARE:
                on = (
                    "every question" if min(shares) >= 1.0 else f"at least {min(shares):.0%} of the questions"
                )
                out.append(f"{m} is at its maximum on {on} for every config: it cannot tell them apart here.")
    return out


def level_label(result: dict[str, Any]) -> str:
    """How relevance was judged, in words."""
    return {
        "document": "file-level relevance",
        "passage": "passage-level relevance (labelled spans)",
        "mixed": "passage- and file-level relevance",
        "chunk": "chunk-level relevance",
    }.get(result.get("level", "document"), f"{result.get('level')}-level relevance")
