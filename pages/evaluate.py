"""Evaluate: run 2-5 configs over a labelled question set, with CIs, significance and calibration;
label retrieved chunks; saved runs. Layout only: the work is in ragkit.evaluation."""

from pathlib import Path

import streamlit as st

from ragkit.app.charts import intent_chart, quality_latency_chart, reliability_diagram, risk_coverage_chart
from ragkit.app.compare import compare_question
from ragkit.core.errors import RagkitError
from ragkit.evaluation import answer_metrics, report
from ragkit.evaluation.answer_metrics import ALL_METRICS, JUDGE_BACKENDS
from ragkit.evaluation.citations_check import llm_support
from ragkit.evaluation.labels import LabelSet, candidates_for, question_id, search_collection
from ragkit.evaluation.questionsets import load_question_set
from ragkit.evaluation.runner import evaluate_configs
from ragkit.evaluation.runs import list_runs, load_run, pipelines_for, rerun, save_run
from ragkit.index.collections import default_root
from ui import resources, state, widgets

EVAL_ROOT = default_root() / ".eval"
SOURCES = {
    "upload": "Upload a CSV/JSONL (over the active collection)",
    "labels": "Labels saved with the active collection",
    "path": "A path: BEIR folder, SQuAD .json, or .csv/.jsonl",
}

st.title("Evaluate")
st.caption(
    "Run 2–5 configurations over the same labelled questions. Every difference comes with a paired "
    "bootstrap 95 % CI and a paired test; runs are saved with config hashes, dataset hash and model ids."
)
collection = widgets.active_collection()


def embedders_for(configs) -> dict:
    return {c.embedding_model: resources.embedder(c.embedding_model) for c in configs}


def progress_callback(bar):
    def update(stage: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=f"{stage}: {done}/{total}")

    return update


def build_judge(backend: str, model: str):
    cfg = state.config("A")
    key = (
        state.groq_key()
        if backend == "groq"
        else state.get(state.OPENAI_KEY)
        if backend == "openai"
        else None
    )
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
    points = report.quality_latency_points(result, chart_metric)
    c1.plotly_chart(
        quality_latency_chart(points, report.pareto_front(points), chart_metric),
        key=f"{prefix}_pareto",
        width="stretch",
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

        from ragkit.evaluation.calibration import calibrate_from_run

        try:
            config, cmap = calibrate_from_run(result, name, method)
        except ValueError as e:
            st.error(f"Cannot calibrate {name}: {e}")
            return
        state.set_config(side, replace(config, name=side))
        widgets.flash(f"Config {side} now uses a gauge {cmap.describe()}.", "calibration")
        st.rerun()
    widgets.show_flash("calibration")


def show_result(result: dict, prefix: str = "eval") -> None:
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
    st.dataframe(rows, hide_index=True, width="stretch", key=f"{prefix}_comparisons")
    metric = report.default_quality_metric(result)
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
                    EVAL_ROOT,
                    collection=collection
                    if result.get("params", {}).get("collection") == getattr(collection, "name", None)
                    else None,
                    api_key=state.groq_key() or state.get(state.OPENAI_KEY),
                    embedders={
                        m: resources.embedder(m)
                        for m in {c["config"]["embedding_model"] for c in result["configs"]}
                    },
                )
                cmp = compare_question(pa, pb, question)
                st.session_state[state.COMPARE_RESULT] = {
                    "record": cmp.record(pa.config, pb.config),
                    "labels": (a, b),
                    "from_run": result.get("run_id", ""),
                    "documents": (pa.store, pb.store),
                }
            st.switch_page(str(Path(__file__).resolve().parent / "compare.py"))
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
        report.markdown_report(result),
        f"ragkit-eval-{result.get('run_id')}.md",
        "text/markdown",
        key=f"{prefix}_md",
    )


run_tab, label_tab, saved_tab = st.tabs(["Run", "Label", "Saved runs"])

with run_tab:
    source = st.radio("Question set", list(SOURCES), format_func=SOURCES.get, key="eval_source")
    upload, path, holdout = None, "", 0.0
    if source == "upload":
        upload = st.file_uploader(
            "Columns: question, gold_answer, relevant_sources (file names; several separated by ';')",
            type=["csv", "jsonl"],
            key="eval_upload",
        )
    elif source == "path":
        path = st.text_input("Path", key="eval_path", placeholder="../shared/evaldata/xquad_en/xquad.en.json")
        holdout = st.number_input(
            "SQuAD: share of paragraphs held out of the index (their questions test 'I don't know')",
            min_value=0.0,
            max_value=0.5,
            step=0.05,
            key=widgets.seed("eval_holdout", 0.0),
        )
    choices = widgets.config_choices()
    chosen = st.multiselect(
        "Configurations (2–5)",
        list(choices),
        key=widgets.seed("eval_configs", ["A", "B"]),
        max_selections=5,
        help="A and B are the sidebar's; saved configs and the shipped examples (configs/*.json) follow.",
    )
    for name in chosen:
        st.caption(f"**{name}**: {widgets.config_summary(choices[name])}")
    limit = st.number_input(
        "Only the first N questions (0 = all)", min_value=0, step=10, key=widgets.seed("eval_limit", 0)
    )
    with st.expander("LLM judge (optional: RAGAS-style metrics, SimpleQA grades, citation check)"):
        use_judge = st.toggle("Grade answers with an LLM judge", key="eval_judge")
        j1, j2 = st.columns(2)
        jb = j1.selectbox("Judge backend", list(JUDGE_BACKENDS), key="eval_judge_backend")
        jm = j2.text_input("Judge model (blank: the backend's default)", key="eval_judge_model")
        jmetrics = st.multiselect(
            "Judge metrics",
            list(ALL_METRICS),
            key=widgets.seed("eval_judge_metrics", ["faithfulness", "answer_relevancy", "context_recall"]),
            help="Metrics needing a gold answer (context precision/recall, answer correctness, simpleqa) are "
            "skipped on questions without one. Each costs judge calls: context precision one per chunk.",
        )
        use_j2 = st.toggle("Second judge (reports the two judges' agreement)", key="eval_judge2")
        k1, k2 = st.columns(2)
        jb2 = k1.selectbox("Second judge backend", list(JUDGE_BACKENDS), key="eval_judge2_backend")
        jm2 = k2.text_input("Second judge model", key="eval_judge2_model")
        llm_cite = st.toggle(
            "Check citations with the judge (instead of the offline check)", key="eval_llm_cite"
        )
    if st.button("Run evaluation", type="primary"):
        try:
            if len(chosen) < 2:
                raise RagkitError("choose at least two configurations to compare")
            if source == "upload":
                if upload is None:
                    raise RagkitError("upload a .csv or .jsonl question set first")
                qset = load_question_set(
                    text=upload.getvalue().decode("utf-8-sig", "replace"),
                    filename=upload.name,
                    collection=collection,
                )
            elif source == "labels":
                qset = load_question_set(collection=collection, labels=True)
            else:
                if not path.strip():
                    raise RagkitError("give the path of a question set")
                qset = load_question_set(path.strip(), collection=collection, holdout=holdout)
            configs = [choices[n] for n in chosen]
            judge = build_judge(jb, jm) if use_judge else None
            judge2 = build_judge(jb2, jm2) if use_judge and use_j2 else None
            cite_decide = llm_support(judge.llm) if judge is not None and llm_cite else None
            bar = st.progress(0.0, text="Starting…")
            result = evaluate_configs(
                qset,
                configs,
                int(limit) or None,
                str(EVAL_ROOT),
                progress_callback(bar),
                api_key=state.groq_key() or state.get(state.OPENAI_KEY),
                judge=judge,
                embedders=embedders_for(configs),
                judge2=judge2,
                judge_metrics=tuple(jmetrics) if judge is not None else (),
                cite_decide=cite_decide,
            )
            bar.empty()
            saved = save_run(result, EVAL_ROOT)
            st.session_state[state.EVAL_RESULT] = result
            st.session_state[state.EVAL_NOTES] = []
            st.success(f"Saved as {saved.name}")
        except RagkitError as e:
            st.error(str(e))
    if state.get(state.EVAL_RESULT):
        show_result(st.session_state[state.EVAL_RESULT])

with label_tab:
    if collection is None or not collection.documents():
        st.info("Labels belong to a collection: upload documents on the Documents page first.")
    else:
        widgets.show_flash("labels")
        labels = LabelSet.for_collection(collection)
        counts = labels.counts()
        st.caption(
            "Evidence is a passage (document and character span), so the same labels judge every "
            "chunker. Candidates are pooled from configs A and B (sidebar) in a neutral order that favours "
            "neither; search the whole collection or paste a quote for evidence no config retrieved. "
            f"In '{collection.name}': {counts['evidence']} questions with evidence, {counts['absent']} "
            f"marked 'no answer in the collection', {counts['unlabelled']} still without evidence (left "
            "out of runs)."
        )
        if labels.migrated:
            st.info(
                f"{labels.migrated} labels from an earlier version were read as passages; saving rewrites "
                "them."
            )
        with st.form("label_question"):
            q = st.text_input("Question to label", key="label_question_text")
            find = st.form_submit_button("Find candidates (A ∪ B)")
        if find and q.strip():
            try:
                with st.spinner("Retrieving with A and B…"):
                    pipes = widgets.pipelines(collection, [state.config("A"), state.config("B")])
                    st.session_state[state.LABEL_POOL] = (q.strip(), candidates_for(q.strip(), pipes))
            except RagkitError as e:
                st.error(str(e))
        pool = state.get(state.LABEL_POOL)
        if pool:
            question, chunks = pool
            qkey = question_id(question)  # widget keys per question: one question's answers never leak
            mine = labels.for_question(question)
            docs = collection.documents()
            st.markdown(f"**{widgets.text_md(question)}** — {len(chunks)} candidates")
            if mine.relevant:
                with st.expander(f"Evidence so far: {len(mine.relevant)} passages", expanded=False):
                    for lab in mine.relevant:
                        doc = next((d for d in docs if d.source == lab.source), None)
                        page, start, end = lab.spans[-1]
                        text = doc.pages[page - 1].text[start:end] if doc and page <= len(doc.pages) else ""
                        st.caption(f"{lab.source} · page {page}")
                        st.text(" ".join(text.split())[:500])
            with st.form("label_candidates"):
                for i, ch in enumerate(chunks):
                    prior = mine.verdict(ch)
                    st.radio(
                        f"Candidate {i + 1} · {ch.source} · page {ch.page}",
                        ["not judged", "relevant", "not relevant"],
                        index=0 if prior is None else (1 if prior else 2),
                        horizontal=True,
                        key=f"label_{qkey}_{i}",
                    )
                    st.text(ch.text[:700])
                absent = st.checkbox(
                    "There is no answer to this question in the collection",
                    value=mine.absent,
                    help="Only this marks a question 'no evidence' (scored by \"I don't know\"); judging "
                    "every "
                    "candidate not relevant does not.",
                    key=f"label_absent_{qkey}",
                )
                save = st.form_submit_button("Save labels")
            if save:
                n = 0
                for i, ch in enumerate(chunks):
                    verdict = st.session_state.get(f"label_{qkey}_{i}")
                    if verdict in ("relevant", "not relevant"):
                        labels.set(question, ch, verdict == "relevant")
                        n += 1
                if absent != mine.absent:
                    labels.set_absent(question, absent)
                labels.save()
                widgets.flash(f"Saved {n} judgements for this question.", "labels")
                st.rerun()
            st.markdown("**Find evidence no config retrieved**")
            with st.form("label_search"):
                query = st.text_input(
                    "Search the whole collection (BM25 over every chunk)",
                    key=widgets.seed(f"label_query_{qkey}", question),
                )
                hits_k = st.number_input("Results", 1, 50, value=8)
                go_search = st.form_submit_button("Search")
            if go_search and query.strip():
                try:
                    from ui import resources

                    store = resources.index(collection, state.config("A"))
                    st.session_state[state.LABEL_SEARCH] = (
                        question,
                        search_collection(store, query, int(hits_k)),
                    )
                except RagkitError as e:
                    st.error(str(e))
            found = state.get(state.LABEL_SEARCH)
            if found and found[0] == question:
                with st.form("label_search_results"):
                    for i, ch in enumerate(found[1]):
                        st.checkbox(
                            f"Result {i + 1} · {ch.source} · page {ch.page}: evidence",
                            value=bool(mine.verdict(ch)),
                            key=f"label_found_{qkey}_{i}",
                        )
                        st.text(ch.text[:700])
                    add = st.form_submit_button("Mark the ticked results as evidence")
                if add:
                    ticked = [
                        ch for i, ch in enumerate(found[1]) if st.session_state.get(f"label_found_{qkey}_{i}")
                    ]
                    for ch in ticked:
                        labels.set(question, ch, True)
                    labels.save()
                    widgets.flash(f"Added {len(ticked)} passages as evidence.", "labels")
                    st.rerun()
            with st.form("label_quote"):
                quote = st.text_area(
                    "…or paste the exact text of the evidence (a sentence or a few words; whitespace and "
                    "case "
                    "do not matter)",
                    height=80,
                )
                where = st.selectbox("In", ["any document"] + [d.source for d in docs])
                add_quote = st.form_submit_button("Add the quote as evidence")
            if add_quote and quote.strip():
                n = labels.add_quote(question, quote, docs, None if where == "any document" else where)
                if n:
                    labels.save()
                    widgets.flash(f"Found the quote in {n} place(s); marked as evidence.", "labels")
                    st.rerun()
                else:
                    st.error(f"The quote was not found in {where}: copy it exactly from the document.")

with saved_tab:
    runs = list_runs(EVAL_ROOT)
    if not runs:
        st.info("No saved runs yet: every evaluation run is saved here.")
    else:
        st.dataframe(
            [{k: r[k] for k in ("created_at", "run_id", "dataset", "configs", "questions")} for r in runs],
            hide_index=True,
            width="stretch",
            key="eval_runs",
        )
        pick = st.selectbox(
            "Saved run",
            range(len(runs)),
            format_func=lambda i: f"{runs[i]['created_at']} · {runs[i]['dataset']} · {runs[i]['configs']}",
            key="eval_saved_pick",
        )
        c1, c2 = st.columns(2)
        if c1.button("Show"):
            st.session_state["eval_saved_shown"] = load_run(runs[pick]["path"])
            st.session_state["eval_saved_notes"] = []
        if c2.button("Re-run"):
            try:
                saved = load_run(runs[pick]["path"])
                bar = st.progress(0.0, text="Re-running…")
                result, notes = rerun(
                    saved,
                    EVAL_ROOT,
                    collection=None,
                    progress=progress_callback(bar),
                    api_key=state.groq_key() or state.get(state.OPENAI_KEY),
                )
                bar.empty()
                path = save_run(result, EVAL_ROOT)
                st.session_state["eval_saved_shown"] = result
                st.session_state["eval_saved_notes"] = (
                    notes or ["same dataset and ragkit version as before"]
                ) + [f"saved as {path.name}"]
            except RagkitError as e:
                st.error(str(e))
        shown = state.get("eval_saved_shown")
        if shown:
            for note in state.get("eval_saved_notes") or []:
                st.info(f"Re-run: {note}")
            show_result(shown, prefix="saved")
