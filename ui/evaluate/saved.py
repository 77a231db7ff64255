"""Evaluate page, Saved runs tab: show, re-run and export the runs saved under the index root."""

from __future__ import annotations

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.runs.saved import list_runs, load_run, rerun, save_run
from ui import state
from ui.evaluate.results import eval_root, progress_callback, show_result


def saved_tab(collection) -> None:
    """The Saved runs tab."""
    runs = list_runs(eval_root())
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
                    eval_root(),
                    collection=None,
                    progress=progress_callback(bar),
                    api_key=state.api_keys(),
                )
                bar.empty()
                path = save_run(result, eval_root())
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
            show_result(collection, shown, prefix="saved")
