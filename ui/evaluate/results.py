"""Evaluate page: showing a run's result (metrics, comparisons, charts, calibration, per question), and
the helpers the run and saved-runs tabs share."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragkit.app.charts import intent_chart, quality_latency_chart, reliability_diagram, risk_coverage_chart
from ragkit.app.compare import compare_question
from ragkit.core.errors import RagkitError
from ragkit.evaluation.metrics import judge as answer_metrics
from ragkit.evaluation.metrics import pareto
from ragkit.evaluation.runs import report, report_markdown
from ragkit.evaluation.runs.saved import pipelines_for
from ragkit.index.collections import default_root
from ragkit.pipeline.config import PipelineConfig
from ui import resources, state, widgets


def eval_root() -> Path:
    """Where runs are saved and dataset indexes cached (read per run: the root can change)."""
    return default_root() / ".eval"


PAGES = Path(__file__).resolve().parents[2] / "app_pages"  # ui/evaluate/ -> the project root


def embedders_for(configs) -> dict:
    """The app's shared embedders of these configs and of the citation check (float32), keyed as the
    evaluation looks them up."""
    from ragkit.evaluation.metrics.citations import CHECK_MODEL
    from ragkit.index.embedders import LEGACY_BACKEND

    out = {(c.embedding_model, c.embedding_backend): resources.config_embedder(c) for c in configs}
    return {(CHECK_MODEL, LEGACY_BACKEND): resources.embedder(CHECK_MODEL), **out}


def progress_callback(bar):
    def update(stage: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{stage}: {done}/{total}")

    return update


def build_judge(backend: str, model: str):
    cfg = state.config("A")
    key = state.api_keys().get(backend)
    return answer_metrics.build_judge(
        backend, model or None, api_key=key, host=cfg.ollama_host, base_url=cfg.openai_base_url
    )


def show_charts(result: dict, names: list[str], metric: str, prefix: str = "eval") -> None:
    """Quality vs latency with the Pareto front, per-intent slices, reliability and risk-coverage."""
    options = [m for m in report.metric_names(result) if all(m in c["metrics"] for c in result["configs"])]
    chart_metric = st.selectbox(
        "Quality metric for the charts",
        options,
        index=options.index(metric) if metric in options else 0,
        key=f"{prefix}_chart_metric",
    )
    c1, c2 = st.columns(2)
    points = pareto.quality_latency_points(result, chart_metric)
    c1.plotly_chart(
        quality_latency_chart(points, pareto.pareto_front(points), chart_metric),
        key=f"{prefix}_pareto",
        width="stretch",
    )
    c1.caption(
        "Bars: latency interquartile range over the questions; 95 % interval of the mean. A config beats "
        "another only beyond both. "
        + " ".join(f"{a} and {b} overlap on both axes." for a, b in pareto.overlapping(points))
    )
    slices = report.intent_slices(result, chart_metric)
    c2.plotly_chart(intent_chart(slices, names, chart_metric), key=f"{prefix}_intent", width="stretch")
    st.dataframe(slices, hide_index=True, width="stretch", key=f"{prefix}_intent_table")
    st.caption("Per-intent means are descriptive: slices are small and are not tested separately.")
    calibrated = [c for c in result["configs"] if c.get("calibration")]
    if calibrated:
        c3, c4 = st.columns(2)
        c3.plotly_chart(reliability_diagram(result["configs"]), key=f"{prefix}_reliability", width="stretch")
        c4.plotly_chart(risk_coverage_chart(result["configs"]), key=f"{prefix}_risk", width="stretch")
        st.caption(f"Calibration: {calibrated[0]['calibration']['correct_means']}.")
        show_calibration(result, prefix)


def show_calibration(result: dict, prefix: str) -> None:
    """Cross-validated ECE of each config's gauge, raw and isotonic-calibrated; fit a map on this run and
    put the calibrated config into the sidebar."""
    st.markdown("**Calibrate the confidence gauge**")
    st.dataframe(
        report.calibration_rows(result), hide_index=True, width="stretch", key=f"{prefix}_calibration"
    )
    with st.form(f"{prefix}_calibrate"):
        c1, c2, c3 = st.columns(3)
        name = c1.selectbox("Config", [c["name"] for c in result["configs"]], key=f"{prefix}_cal_config")
        method = c2.radio("Method", ["isotonic", "platt"], horizontal=True, key=f"{prefix}_cal_method")
        side = c3.radio("Put it into sidebar config", ["A", "B"], horizontal=True, key=f"{prefix}_cal_side")
        go = st.form_submit_button("Fit on this run and apply")
    if go:
        from dataclasses import replace

        from ragkit.evaluation.metrics.calibration import calibrate_from_run

        try:
            config, cmap = calibrate_from_run(result, name, method)
        except ValueError as e:
            st.error(f"Cannot calibrate {name}: {e}")
            return
        state.set_config(side, replace(config, name=side))
        widgets.flash(f"Config {side} now uses a gauge {cmap.describe()}.", "calibration")
        st.rerun()
    widgets.show_flash("calibration")


def show_result(collection, result: dict, prefix: str = "eval") -> None:
    names = [c["name"] for c in result["configs"]]
    st.subheader(f"Run {result.get('run_id', '')}: {Path(result['dataset']).name}")
    st.caption(
        f"{result['questions']} questions · {result['dataset_kind']} · {report.level_label(result)} · "
        f"dataset sha256 {result['dataset_hash'][:12]} · ragkit {result['ragkit_version']}"
    )
    for note in state.get(state.EVAL_NOTES) or []:
        st.info(f"Re-run: {note}")
    for w in report.warnings(result):
        st.warning(w)
    st.markdown("**Metrics per configuration**")
    st.dataframe(report.metric_table(result), hide_index=True, width="stretch", key=f"{prefix}_metrics")
    st.markdown("**Paired comparisons** (B − A; bootstrap 95 % CI; Wilcoxon or sign test)")
    rows = report.comparison_rows(result)
    if rows:
        st.caption(report.correction_note(result))
    st.dataframe(rows, hide_index=True, width="stretch", key=f"{prefix}_comparisons")
    metric = report.primary_metric(result)
    for x in rows:
        if x["metric"] == metric:
            st.markdown(f"- **{x['A']} vs {x['B']}** on {metric}: {x['verdict']}")

    st.markdown("**Charts**")
    if any(all(m in c["metrics"] for c in result["configs"]) for m in report.metric_names(result)):
        show_charts(result, names, metric, prefix)
    else:
        st.info("No metric is defined for every configuration: nothing to chart.")

    st.markdown("**Per question**")
    table = report.per_question_rows(result)
    st.dataframe(table, hide_index=True, width="stretch", key=f"{prefix}_per_question")
    with st.form(f"{prefix}_drilldown"):
        labels = [f"{r['id']} — {r['question'][:90]}" for r in table]
        pick = st.selectbox("Open a question in the Compare view", labels, key=f"{prefix}_drill_q")
        ca, cb = st.columns(2)
        a = ca.selectbox("Left", names, index=0, key=f"{prefix}_drill_a")
        b = cb.selectbox("Right", names, index=min(1, len(names) - 1), key=f"{prefix}_drill_b")
        go = st.form_submit_button("Open in Compare")
    if go and pick:
        question = table[labels.index(pick)]["question"]
        try:
            with st.spinner("Asking both configurations…"):
                pa, pb = pipelines_for(
                    result,
                    [a, b],
                    eval_root(),
                    collection=collection
                    if result.get("params", {}).get("collection") == getattr(collection, "name", None)
                    else None,
                    api_key=state.api_keys(),
                    embedders=embedders_for(PipelineConfig.from_dict(c["config"]) for c in result["configs"]),
                )
                cmp = compare_question(pa, pb, question)
                st.session_state[state.COMPARE_RESULT] = {
                    "record": cmp.record(pa.config, pb.config),
                    "labels": (a, b),
                    "from_run": result.get("run_id", ""),
                    "documents": (pa.store, pb.store),
                }
            st.switch_page(str(PAGES / "compare.py"))
        except RagkitError as e:
            st.error(str(e))

    e1, e2, e3 = st.columns(3)
    with e1:
        widgets.download_json(
            "Export JSON", result, f"ragkit-eval-{result.get('run_id')}.json", f"{prefix}_json"
        )
    e2.download_button(
        "Export CSV",
        report.per_question_csv(result),
        f"ragkit-eval-{result.get('run_id')}.csv",
        "text/csv",
        key=f"{prefix}_csv",
    )
    e3.download_button(
        "Export Markdown",
        report_markdown.markdown_report(result),
        f"ragkit-eval-{result.get('run_id')}.md",
        "text/markdown",
        key=f"{prefix}_md",
    )
