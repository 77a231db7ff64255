"""Compare: configs A and B on the same question, or on a batch of questions, side by side.
The last comparison and the last batch (with its "better" judgements) are saved with the collection."""

import csv
import io

import streamlit as st

from ragkit.app.compare import batch_summary, compare_question, parse_batch
from ragkit.app.presentation import hit_rows
from ragkit.core.errors import RagkitError
from ragkit.pipeline.answer import Answer
from ui import answers, state, widgets

st.title("Compare")
collection = widgets.active_collection()
cfg_a, cfg_b = state.config("A"), state.config("B")
st.caption(
    f"**A**: {widgets.config_summary(cfg_a)}  \n**B**: {widgets.config_summary(cfg_b)}  \n"
    "Edit either one in the sidebar (Editing: A / B). Both run cold: models loaded first, each embeds its "
    "own query, so neither is timed on cached work."
)
ws = state.workspace()


def show_comparison(stored: dict) -> None:
    """Both answers side by side with overlap measures (from this page, or opened from Evaluate)."""
    from ragkit.app.compare import compare_hits

    record = stored["record"]
    label_a, label_b = stored.get("labels", ("A", "B"))
    docs_a, docs_b = stored.get("documents", (collection, collection))
    a, b = Answer.from_dict(record["answer_a"]), Answer.from_dict(record["answer_b"])
    cmp = compare_hits(a.hits, b.hits)
    if stored.get("from_run"):
        st.caption(f"Opened from evaluation run {stored['from_run']}: **{label_a}** vs **{label_b}**")
    st.markdown(f"**Question:** {widgets.text_md(record['question'])}")
    m1, m2, m3 = st.columns(3)
    by = "same passage (by content)" if cmp.by == "content" else "same chunk"
    m1.metric("Shared passages", f"{len(cmp.shared)} / {max(len(a.hits), len(b.hits))}", help=by)
    m2.metric("Jaccard", f"{cmp.jaccard:.2f}")
    m3.metric("Rank-biased overlap", f"{cmp.rbo:.2f}")
    st.caption(
        "Hits of A and B count as shared when they hold the same passage: the same chunk, or (different "
        "chunkers) at least half of either chunk's text in common. Shift: how many places a shared passage "
        "moved; positive, it ranks higher in this config's list than in the other's."
    )
    latency_max = max(a.latency_ms, b.latency_ms)
    left, right = st.columns(2)
    for col, name, ans, docs, side in ((left, label_a, a, docs_a, "a"), (right, label_b, b, docs_b, "b")):
        with col:
            st.subheader(f"Config {name}")
            answers.render_answer(
                ans, docs, key=f"cmp_{side}", latency_max=latency_max, gauge_title=f"{name}: confidence"
            )
            rows = hit_rows(ans.hits, cmp, side)
            cols = ["rank", "shared", "shift", "source", "page", "text", "dense score", "bm25 score",
                    "rrf score", "rerank score", "movement"]  # fmt: skip
            st.dataframe(
                [{c: r.get(c) for c in cols} for r in rows],
                hide_index=True,
                width="stretch",
                key=f"cmp_hits_{side}",
                column_config={"text": st.column_config.TextColumn("text", width="large")},
            )


stored = state.get(state.COMPARE_RESULT)
if stored is None and ws is not None and ws.get("compare"):
    stored = {"record": ws.get("compare")}
    st.session_state[state.COMPARE_RESULT] = stored

if collection is None or not collection.documents():
    st.info("Upload documents on the Documents page first: there is nothing to compare on yet.")
    if stored and stored.get("from_run"):
        show_comparison(stored)
    st.stop()

single, batch = st.tabs(["One question", "Batch"])

with single:
    with st.form("compare_one"):
        question = st.text_input("Question")
        go = st.form_submit_button("Compare A and B")
    if go and question.strip():
        try:
            pa, pb = widgets.pipelines(collection, [cfg_a, cfg_b])
            with st.spinner("Asking A and B…"):
                result = compare_question(pa, pb, question.strip())
            record = result.record(cfg_a, cfg_b)
            collection.save_comparison(record)
            stored = {"record": record}
            st.session_state[state.COMPARE_RESULT] = stored
            if ws is not None:
                ws.set_value("compare", record)
        except RagkitError as e:
            st.error(str(e))
    if stored:
        show_comparison(stored)

with batch:
    previous = state.get(state.BATCH_RESULT) or (ws.get("batch") if ws is not None else None) or {}
    text = st.text_area(
        "Questions, one per line", height=150, key=widgets.seed("batch_text", previous.get("text", ""))
    )
    up = st.file_uploader(
        "…or a .txt (one per line) / .csv (a 'question' column; with 'gold_answer', Better is filled in)",
        type=["txt", "csv"],
    )
    if st.button("Run batch"):
        try:
            if up is not None:
                questions = parse_batch(up.getvalue().decode("utf-8-sig", "replace"), up.name)
            else:
                questions = parse_batch(text)
            if not questions:
                st.warning("No questions given.")
            else:
                pa, pb = widgets.pipelines(collection, [cfg_a, cfg_b])
                progress = st.progress(0.0, text="Comparing…")
                results = []
                for i, (q, gold) in enumerate(questions):
                    r = compare_question(pa, pb, q, swap=i % 2 == 1, gold=gold)  # alternate who goes first
                    collection.save_comparison(r.record(cfg_a, cfg_b))
                    results.append(r)
                    progress.progress((i + 1) / len(questions), text=f"question {i + 1}/{len(questions)}")
                progress.empty()
                saved = {
                    "rows": [r.row() | {"better": r.gold_verdict()} for r in results],
                    "text": text if up is None else "",
                    "config_a": cfg_a.to_dict(),
                    "config_b": cfg_b.to_dict(),
                }
                st.session_state[state.BATCH_RESULT] = saved
                if ws is not None:
                    ws.set_value("batch", saved)
        except RagkitError as e:
            st.error(str(e))
    saved = state.get(state.BATCH_RESULT) or (ws.get("batch") if ws is not None else None)
    if saved and saved.get("rows"):
        rows = saved["rows"]
        edited = st.data_editor(
            rows,
            key="batch_editor",
            hide_index=True,
            width="stretch",
            disabled=[c for c in rows[0] if c != "better"],
            column_config={
                "better": st.column_config.SelectboxColumn("Better", options=["", "A", "B", "tie"]),
                "A answer": st.column_config.TextColumn(width="medium"),
                "B answer": st.column_config.TextColumn(width="medium"),
            },
        )
        if [r.get("better") for r in edited] != [r.get("better") for r in rows]:
            saved = {**saved, "rows": list(edited)}  # a judgement changed: keep it with the collection
            st.session_state[state.BATCH_RESULT] = saved
            if ws is not None:
                ws.set_value("batch", saved)
        st.caption(
            "Better: filled in from the gold answer when the batch file has one (the answer that contains "
            "it; an abstention contains none; both or neither: tie). Change any judgement by hand."
        )
        summary = batch_summary(edited)
        st.subheader("Summary")
        st.dataframe([summary], hide_index=True, width="stretch")
        st.caption("Median latencies leave out answers served from a cache (marked in the table).")
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=list(edited[0]))
        writer.writeheader()
        writer.writerows(edited)
        c1, c2 = st.columns(2)
        c1.download_button("Export CSV", buf.getvalue(), "ragkit-compare.csv", "text/csv")
        widgets.download_json(
            "Export JSON",
            {
                "config_a": saved["config_a"],
                "config_b": saved["config_b"],
                "rows": edited,
                "summary": summary,
            },
            "ragkit-compare.json",
            key="batch_json",
        )
