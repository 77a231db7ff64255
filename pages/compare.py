"""Compare: configs A and B on the same question, or on a batch of questions, side by side."""

import csv
import io

import streamlit as st

from ragkit.compare import batch_summary, compare_question, parse_questions
from ragkit.errors import RagkitError
from ragkit.presentation import hit_rows
from ragkit.viz import confidence_gauge, latency_bar
from ui import resources, state, widgets

st.title("Compare")
collection = widgets.active_collection()
cfg_a, cfg_b = state.config("A"), state.config("B")
st.caption(
    f"**A**: {widgets.config_summary(cfg_a)}  \n**B**: {widgets.config_summary(cfg_b)}  \n"
    "Edit either one in the sidebar (Editing: A / B)."
)


def show_comparison(stored) -> None:
    """Both answers side by side with overlap metrics (from this page, or opened from Evaluate)."""
    result, store_a, store_b, *rest = stored
    label_a, label_b = rest[0] if rest else ("A", "B")
    if rest:
        st.caption(f"Opened from an evaluation run: **{label_a}** vs **{label_b}** on “{result.question}”")
    m1, m2, m3 = st.columns(3)
    m1.metric("Shared chunks", f"{len(result.hits.shared)} / {max(len(result.a.hits), len(result.b.hits))}")
    m2.metric("Jaccard", f"{result.hits.jaccard:.2f}")
    m3.metric("Rank-biased overlap", f"{result.hits.rbo:.2f}")
    left, right = st.columns(2)
    for col, name, ans, store, side in (
        (left, label_a, result.a, store_a, "a"),
        (right, label_b, result.b, store_b, "b"),
    ):
        with col:
            st.subheader(f"Config {name}")
            st.markdown(ans.text)
            widgets.render_citations(ans, store)
            if ans.abstained:
                st.warning(f"Abstained: {ans.abstain_reason}")
            if ans.mode == "rag":
                st.plotly_chart(
                    confidence_gauge(ans.confidence, title=f"{name}: confidence"),
                    key=f"cmp_gauge_{side}",
                    width="stretch",
                )
            st.plotly_chart(
                latency_bar(ans.timings_ms, f"{name}: latency (ms)"), key=f"cmp_lat_{side}", width="stretch"
            )
            rows = hit_rows(ans.hits, result.hits, side)
            cols = [
                "rank",
                "shared",
                "shift",
                "source",
                "page",
                "dense score",
                "bm25 score",
                "rrf score",
                "rerank score",
                "movement",
                "text",
            ]
            st.dataframe(
                [{c: r.get(c) for c in cols} for r in rows],
                hide_index=True,
                width="stretch",
                key=f"cmp_hits_{side}",
            )


if collection is None or not collection.documents():
    st.info("Upload documents on the Documents page first: there is nothing to compare on yet.")
    if state.get(state.COMPARE_RESULT):
        show_comparison(st.session_state[state.COMPARE_RESULT])
    st.stop()


def pipelines():
    key = state.groq_key()
    return resources.pipeline(collection, cfg_a, key), resources.pipeline(collection, cfg_b, key)


single, batch = st.tabs(["One question", "Batch"])

with single:
    with st.form("compare_one"):
        question = st.text_input("Question")
        go = st.form_submit_button("Compare A and B")
    if go and question.strip():
        try:
            pa, pb = pipelines()
            result = compare_question(pa, pb, question.strip())
            collection.save_comparison(result.record(cfg_a, cfg_b))
            st.session_state[state.COMPARE_RESULT] = (result, pa.store, pb.store)
        except RagkitError as e:
            st.error(str(e))
    if state.get(state.COMPARE_RESULT):
        show_comparison(st.session_state[state.COMPARE_RESULT])

with batch:
    text = st.text_area("Questions, one per line", height=150, key="batch_text")
    up = st.file_uploader("…or a .txt (one per line) / .csv (a 'question' column)", type=["txt", "csv"])
    if st.button("Run batch"):
        try:
            if up is not None:
                questions = parse_questions(up.getvalue().decode("utf-8", "replace"), up.name)
            else:
                questions = parse_questions(text)
            if not questions:
                st.warning("No questions given.")
            else:
                pa, pb = pipelines()
                progress = st.progress(0.0, text="Comparing…")
                results = []
                for i, q in enumerate(questions):
                    r = compare_question(pa, pb, q)
                    collection.save_comparison(r.record(cfg_a, cfg_b))
                    results.append(r)
                    progress.progress((i + 1) / len(questions), text=f"{i + 1}/{len(questions)}")
                st.session_state[state.BATCH_RESULT] = [r.row() | {"better": ""} for r in results]
        except RagkitError as e:
            st.error(str(e))
    rows = state.get(state.BATCH_RESULT)
    if rows:
        edited = st.data_editor(
            rows,
            key="batch_editor",
            hide_index=True,
            width="stretch",
            disabled=[c for c in rows[0] if c != "better"],
            column_config={
                "better": st.column_config.SelectboxColumn("Better", options=["", "A", "B", "tie"])
            },
        )
        summary = batch_summary(edited)
        st.subheader("Summary")
        st.dataframe([summary], hide_index=True, width="stretch")
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(edited[0]))
        writer.writeheader()
        writer.writerows(edited)
        c1, c2 = st.columns(2)
        c1.download_button("Export CSV", buf.getvalue(), "ragkit-compare.csv", "text/csv")
        widgets.download_json(
            "Export JSON",
            {"config_a": cfg_a.to_dict(), "config_b": cfg_b.to_dict(), "rows": edited, "summary": summary},
            "ragkit-compare.json",
            key="batch_json",
        )
