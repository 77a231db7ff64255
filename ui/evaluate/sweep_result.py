"""The Sweep tab's result: the set-ups not significantly worse than the best, each one's score on the
questions the race picked on and on the held-out ones, the optimism of the pick, and what to do next
(load a set-up into A or B, compare the top two where they differ most, export)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragkit.evaluation.sweep.report import (
    index_mb_text,
    optimism_text,
    outcome,
    p50_text,
    reading_notes,
    score_text,
    sweep_csv,
    sweep_markdown,
    table_order,
    vs_best_text,
)
from ragkit.pipeline.config import PipelineConfig
from ui import state, widgets
from ui.evaluate.results import PAGES

RESULT = "sweep_result"
NOTE = "_sweep_note"  # which set-up was last loaded into A or B


def as_config(candidate: dict[str, Any], which: str) -> PipelineConfig:
    """A candidate's config, named as the sidebar slot it goes into."""
    return PipelineConfig.from_dict({**candidate["config"], "name": which})


def show_sweep(result: dict[str, Any]) -> None:
    """The result: the best within noise, every set-up with its outcome, and what to do next."""
    metric = result["metric"]
    by_key = {c["config_hash"]: c for c in result["candidates"]}
    best = [by_key[k] for k in result["best_within_noise"]]
    status = "" if result["finished"] else f" (stopped: {result['status']}; start again to resume)"
    st.subheader(f"Not significantly worse than the best: {len(best)}{status}")
    st.write(", ".join(f"**{c['name']}**" for c in best))
    used, full = result["evaluations_used"], result["evaluations_full"]
    st.caption(f"{used} of the full grid's {full} question evaluations ({100 * used / max(full, 1):.0f} %).")
    if result.get("holdout"):  # sweeps saved before the split have none
        text = optimism_text(result)
        (st.info if result.get("optimism") is not None else st.warning)(text)
    for note in reading_notes(result):
        st.caption(note)
    rows = [
        {
            "set-up": c["name"],
            f"{metric}, race (95 % CI)": score_text(c),
            f"{metric}, held out (95 % CI)": score_text(c, "holdout"),
            "vs best (95 % CI, one comparison)": vs_best_text(c),
            "questions": c["questions_evaluated"],
            "p50 ms": p50_text(c),
            "index MB": index_mb_text(c),
            "Pareto": c["config_hash"] in result["pareto"],
            "outcome": outcome(c),
        }
        for c in table_order(result)
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    intents = sorted({i for c in best for i in c["by_intent"]})
    if intents:
        with st.expander("By question intent (the best set)"):
            st.dataframe(
                [
                    {"set-up": c["name"], **{i: c["by_intent"].get(i, {}).get("mean") for i in intents}}
                    for c in best
                ],
                hide_index=True,
            )
    names = [c["name"] for c in result["candidates"]]
    c1, c2, c3 = st.columns([3, 1, 1], vertical_alignment="bottom")
    pick = c1.selectbox("Set-up", names, key="sweep_pick", index=names.index(best[0]["name"]) if best else 0)
    chosen = next(c for c in result["candidates"] if c["name"] == pick)
    for col, which in ((c2, "A"), (c3, "B")):
        if col.button(f"Load into {which}", key=f"sweep_to_{which}"):
            state.set_config(which, as_config(chosen, which))
            st.session_state[NOTE] = f"{which} is now {pick}"
            st.rerun()  # the sidebar, drawn before this button, shows the new config
    if note := st.session_state.get(NOTE):
        st.success(note)
    diffs = result.get("top_differences") or []
    if (
        len(best) >= 2
        and diffs
        and st.button(
            f"Compare the top two on the {len(diffs)} question{'s' if len(diffs) != 1 else ''} where they "
            "differ most",
            key="sweep_compare",
        )
    ):
        for which, c in zip(("A", "B"), best[:2], strict=False):
            state.set_config(which, as_config(c, which))
        st.session_state["batch_text"] = "\n".join(d["question"] for d in diffs if d.get("question"))
        st.switch_page(str(PAGES / "compare.py"))
    e1, e2, e3 = st.columns(3)
    with e1:
        widgets.download_json("Export JSON", result, f"ragkit-sweep-{result['sweep_id']}.json", "sweep_json")
    e2.download_button(
        "Export CSV", sweep_csv(result), f"ragkit-sweep-{result['sweep_id']}.csv", "text/csv", key="sweep_csv"
    )
    e3.download_button(
        "Export Markdown",
        sweep_markdown(result),
        f"ragkit-sweep-{result['sweep_id']}.md",
        "text/markdown",
        key="sweep_md",
    )
