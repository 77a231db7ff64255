"""Evaluate page, Run tab: choose a question set and 1-5 configs (and a judge), run them, show the result."""

from __future__ import annotations

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.metrics.citations import llm_support
from ragkit.evaluation.metrics.judge import ALL_METRICS, judge_backends
from ragkit.evaluation.metrics.names import PER_QUESTION_METRICS
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.evaluation.runs.saved import save_run
from ui import state, widgets
from ui.configs import config_choices
from ui.evaluate.question_sets import pick_question_set
from ui.evaluate.results import build_judge, embedders_for, eval_root, progress_callback, show_result

DEFAULT_PRIMARY = "(the set's default)"


def run_tab(collection) -> None:
    """The Run tab."""
    load_qset = pick_question_set(collection, "eval")
    choices = config_choices()
    chosen = st.multiselect(
        "Configurations (2–5)",
        list(choices),
        key=widgets.seed("eval_configs", ["A", "B"]),
        max_selections=5,
        help="A and B are the sidebar's; saved configs and the shipped examples (configs/*.json) follow.",
    )
    for name in chosen:
        st.caption(f"**{name}**: {widgets.config_summary(choices[name])}")
    primary = st.selectbox(
        "Primary metric (declared before the run)",
        [DEFAULT_PRIMARY, *PER_QUESTION_METRICS],
        key="eval_primary",
        help="The comparison the run is decided on: its pairwise tests are corrected together (Holm); every "
        "other metric's tests are exploratory. Default: ndcg@10 when relevance is labelled, else "
        "contains_gold.",
    )
    limit = st.number_input(
        "Only the first N questions (0 = all)", min_value=0, step=10, key=widgets.seed("eval_limit", 0)
    )
    with st.expander("LLM judge (optional: RAGAS-style metrics, SimpleQA grades, citation check)"):
        use_judge = st.toggle("Grade answers with an LLM judge", key="eval_judge")
        j1, j2 = st.columns(2)
        jb = j1.selectbox("Judge backend", judge_backends(), key="eval_judge_backend")
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
        jb2 = k1.selectbox("Second judge backend", judge_backends(), key="eval_judge2_backend")
        jm2 = k2.text_input("Second judge model", key="eval_judge2_model")
        llm_cite = st.toggle(
            "Check citations with the judge (instead of the offline check)", key="eval_llm_cite"
        )
    if st.button("Run evaluation", type="primary"):
        try:
            if len(chosen) < 2:
                raise RagkitError("choose at least two configurations to compare")
            qset = load_qset()
            configs = [choices[n] for n in chosen]
            judge = build_judge(jb, jm) if use_judge else None
            judge2 = build_judge(jb2, jm2) if use_judge and use_j2 else None
            cite_decide = llm_support(judge.llm) if judge is not None and llm_cite else None
            bar = st.progress(0.0, text="Starting…")
            result = evaluate_configs(
                qset,
                configs,
                int(limit) or None,
                str(eval_root()),
                progress_callback(bar),
                api_key=state.api_keys(),
                judge=judge,
                embedders=embedders_for(configs),
                judge2=judge2,
                judge_metrics=tuple(jmetrics) if judge is not None else (),
                cite_decide=cite_decide,
                primary_metric=None if primary == DEFAULT_PRIMARY else primary,
                offline_fallbacks=True,  # as the sidebar: a preset needing a key runs offline, and says so
            )
            bar.empty()
            saved = save_run(result, eval_root())
            st.session_state[state.EVAL_RESULT] = result
            st.session_state[state.EVAL_NOTES] = []
            st.success(f"Saved as {saved.name}")
        except RagkitError as e:
            st.error(str(e))
    if state.get(state.EVAL_RESULT):
        show_result(collection, st.session_state[state.EVAL_RESULT])
