"""Evaluate page, Sweep tab: a grid of set-ups built in a form from the components' declarations (or
uploaded as JSON), its cost shown before it runs, raced over a question set with a share of the questions
held out to re-score the set-ups it keeps; the result is drawn by :mod:`ui.evaluate.sweep_result`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.metrics.judge import judge_backends
from ragkit.evaluation.metrics.names import ANSWER_JUDGE_METRICS, PER_QUESTION_METRICS
from ragkit.evaluation.questiongen import saved_question_sets
from ragkit.evaluation.sweep.checkpoint import list_sweeps, save_sweep
from ragkit.evaluation.sweep.cost import cost_lines, estimate_cost
from ragkit.evaluation.sweep.grid import Grid
from ragkit.evaluation.sweep.holdout import DEFAULT_SHARE
from ragkit.evaluation.sweep.runner import Sweep
from ui import state, widgets
from ui.configs import config_choices
from ui.evaluate.question_sets import pick_question_set
from ui.evaluate.results import build_judge, embedders_for, eval_root
from ui.evaluate.sweep_form import (
    IMPORTED,
    apply_pending,
    base_choices,
    base_dict,
    draw_form,
    fill,
    json_panel,
)
from ui.evaluate.sweep_result import NOTE, RESULT, show_sweep

DEFAULT_METRIC = "(the set's default)"
FORM_FOR = "_sweep_form_for"  # the collection whose last sweep form this session's form was filled from
COST = "_sweep_cost"  # (the sweep's key, its cost): estimated once per grid and settings
QSET = "_sweep_qset"  # (the picker's signature, the question set it loaded)
CONFIRM = "sweep_confirm"
#: the form's widgets kept with the collection when a sweep starts (a reload or a new tab finds the grid,
#: and "Start sweep" then resumes a sweep that stopped before its end)
FORM_KEYS = ("sweep_source", "sweep_saved", "sweep_path", "sweep_base", "sweep_metric", "sweep_racing",
             "sweep_limit", "sweep_ceiling", "sweep_size_ceiling", "sweep_heldout_share")  # fmt: skip


def _restore_form(ws: Any, collection: Any) -> dict[str, Any] | None:
    """Once per session and collection: the form as the collection's last sweep left it."""
    name = getattr(collection, "name", None)
    form = ws.get("sweep_form") if ws is not None else None
    if st.session_state.get(FORM_FOR) == name:
        return form
    st.session_state[FORM_FOR] = name
    if form:
        choices = config_choices()
        if form.get("base") is not None:  # an uploaded grid's own base
            st.session_state[IMPORTED] = form["base"]
        offered = {  # a choice that is gone (a deleted question set or config) is not restored
            "sweep_saved": [f.name for f in (saved_question_sets(collection) if collection else [])],
            "sweep_base": list(base_choices(choices)),
            "sweep_metric": [DEFAULT_METRIC, *PER_QUESTION_METRICS],
        }
        for key, value in form.get("widgets", {}).items():
            if key in FORM_KEYS and value is not None and value in offered.get(key, [value]):
                st.session_state[key] = value
        base = base_choices(choices).get(st.session_state.get("sweep_base", "A"), state.config("A"))
        fill(form.get("vary", {}), base.chunker)
    return form


def _remember_form(ws: Any, vary: dict[str, Any], finished: bool) -> None:
    if ws is not None:
        widgets_now = {k: st.session_state.get(k) for k in FORM_KEYS}
        form = {"vary": vary, "widgets": widgets_now, "finished": finished}
        ws.set_value("sweep_form", {**form, "base": st.session_state.get(IMPORTED)})


def _judge_picker(metric: str) -> tuple[str, str] | None:
    """The judge backend and model, asked for only when the metric is a judge's grade."""
    if metric not in ANSWER_JUDGE_METRICS:
        return None
    j1, j2 = st.columns(2)
    backend = j1.selectbox(f"Judge that grades {metric}", judge_backends(), key="sweep_judge_backend")
    model = j2.text_input("Judge model (blank: the backend's default)", key="sweep_judge_model")
    st.caption("Every set-up's answers are graded by this judge; its calls are counted before the start.")
    return backend, model


def _settings() -> dict[str, Any]:
    """The race's settings: what to optimise, racing, how many questions, ceilings, the held-out share."""
    c1, c2, c3 = st.columns(3)
    metric = c1.selectbox("Metric to optimise", [DEFAULT_METRIC, *PER_QUESTION_METRICS], key="sweep_metric")
    racing = c2.toggle("Racing (drop the worse early)", key=widgets.seed("sweep_racing", True))
    limit = c3.number_input(
        "Only N questions (0 = all)", min_value=0, step=10, key=widgets.seed("sweep_limit", 0)
    )
    c4, c5, c6 = st.columns(3)
    ceiling = c4.number_input(
        "p50 latency ceiling, ms (0 = none)", min_value=0.0, step=10.0, key=widgets.seed("sweep_ceiling", 0.0)
    )
    size_ceiling = c5.number_input(
        "Index size ceiling, MB: chunk texts + vectors (0 = none)",
        min_value=0.0,
        step=10.0,
        key=widgets.seed("sweep_size_ceiling", 0.0),
    )
    holdout = c6.number_input(
        "Questions held out to re-score the winners (share)",
        min_value=0.0,
        max_value=0.5,
        step=0.05,
        key=widgets.seed("sweep_heldout_share", DEFAULT_SHARE),
        help="The race picks on the other questions; the set-ups it keeps are scored again on these, which "
        "it never saw: the winner's score on the questions that picked it is optimistic (the winner's "
        "curse). 0: report the race's own scores (labelled optimistic).",
    )
    return {
        "metric": None if metric == DEFAULT_METRIC else metric,
        "racing": racing,
        "limit": int(limit) or None,
        "max_latency_ms": float(ceiling) or None,
        "max_index_mb": float(size_ceiling) or None,
        "holdout": float(holdout),
        "judge_pick": _judge_picker(metric),
    }


def _new_sweep(qset: Any, grid: Grid, settings: dict[str, Any]) -> Sweep:
    cands, _ = grid.candidates()
    pick = settings["judge_pick"]
    return Sweep(
        qset,
        grid,
        settings["metric"],
        racing=settings["racing"],
        limit=settings["limit"],
        holdout=settings["holdout"],
        max_latency_ms=settings["max_latency_ms"],
        max_index_mb=settings["max_index_mb"],
        judge=build_judge(*pick) if pick else None,
        index_root=eval_root(),
        embedders=embedders_for([c.config for c in cands]),
    )


def _question_set(load: Any) -> Any:
    """The picked question set, loaded once per choice (the collection's labels every time)."""
    sig = getattr(load, "signature", None)
    kept = st.session_state.get(QSET)
    if sig is not None and kept is not None and kept[0] == sig:
        return kept[1]
    qset = load()
    st.session_state[QSET] = (sig, qset)
    return qset


def _cost_panel(load: Any, grid: Grid, settings: dict[str, Any]) -> dict[str, Any] | None:
    """What the sweep will cost, shown before it runs (None when it cannot be told yet, and why)."""
    try:
        sweep = _new_sweep(_question_set(load), grid, settings)
        kept = st.session_state.get(COST)
        if kept is None or kept[0] != sweep.key():
            with st.spinner("Estimating the cost (a rate never measured here is measured once, now)…"):
                kept = (sweep.key(), estimate_cost(sweep, sweep.embedders))
            st.session_state[COST] = kept
        cost = kept[1]
    except RagkitError as e:
        st.info(f"The cost shows once the sweep can start: {e}")
        return None
    st.markdown("**Before it runs**\n" + "\n".join(f"- {line}" for line in cost_lines(cost)))
    if cost["confirm"]:
        st.warning("Over the limit: " + "; ".join(cost["confirm"]) + ". Narrow the grid, or confirm below.")
        st.checkbox("Start it anyway", key=CONFIRM)
    return cost


def sweep_tab(collection) -> None:
    """The Sweep tab."""
    st.caption(
        "Every set-up answers a first batch of questions; after each further batch, set-ups significantly "
        "worse than the best (Friedman gate, then a paired test against the best corrected for the "
        "comparisons, the error split across the looks) are dropped. The result is every set-up *not "
        "significantly worse* than the best, scored again on questions the race never saw."
    )
    ws = state.workspace()
    form = _restore_form(ws, collection)
    apply_pending()
    if form and not form.get("finished", True):
        st.info(
            "The last sweep of this collection stopped before its end; what it measured is kept. Its grid "
            "is below: **Start sweep** resumes it."
        )
    load_qset = pick_question_set(collection, "sweep")
    choices = base_choices(config_choices())
    base_name = st.selectbox("Base config (everything not varied)", list(choices), key="sweep_base")
    base = choices[base_name]
    try:
        vary = draw_form(base)
        grid = Grid.from_dict({"base": base_dict(base_name, base), "vary": vary})
        cands, merged = grid.candidates()
    except (RagkitError, ValueError) as e:
        st.error(str(e))
        return
    st.caption(
        f"**{len(cands)} set-ups** ({len(merged)} combinations merged: same set-up)"
        + (" · " + ", ".join(c.name for c in cands[:12]) + ("…" if len(cands) > 12 else ""))
    )
    json_panel(grid)
    settings = _settings()
    cost = _cost_panel(load_qset, grid, settings)
    if st.button("Start sweep", type="primary", key="sweep_start"):
        if cost is not None and cost["confirm"] and not st.session_state.get(CONFIRM):
            st.error("This grid is over the limit: tick “Start it anyway”, or narrow it.")
        else:
            _start(load_qset, grid, settings, ws, vary)
    result = state.get(RESULT)
    saved = list_sweeps(eval_root())
    if saved:
        with st.expander(f"Saved sweeps ({len(saved)})"):
            pick = st.selectbox(
                "Open",
                [s["path"] for s in saved],
                key="sweep_saved_pick",
                format_func=lambda p: next(
                    f"{s['created_at']} · {s['questions']} · {s['metric']} · {s['candidates']} set-ups"
                    for s in saved
                    if s["path"] == p
                ),
            )
            if st.button("Open this sweep", key="sweep_saved_open"):
                st.session_state[RESULT] = json.loads(Path(pick).read_text(encoding="utf-8"))
                st.rerun()
    if result:
        show_sweep(result)


def _start(load_qset: Any, grid: Grid, settings: dict[str, Any], ws: Any, vary: dict[str, Any]) -> None:
    """Run the sweep (resuming what an earlier run of it measured), save it, keep the result."""
    try:
        sweep = _new_sweep(load_qset(), grid, settings)
        cost = estimate_cost(sweep, sweep.embedders, probe=False)  # the indexes as they are before it
        note = f"{cost['candidates']} set-ups, at most {cost['evaluations_max']:,} question evaluations"
        if cost["llm_calls_max"]:
            note += f"; at most {cost['llm_calls_max']} LLM calls (~{cost['tokens_max_estimate']:,} tokens)"
        if cost["judge_calls_max"]:
            note += f"; at most {cost['judge_calls_max']} judge calls"
        if loaded := sweep.resume():
            note += f"; resuming with {loaded} measured earlier"
        st.info(note)
        _remember_form(ws, vary, finished=False)
        bar = st.progress(0.0, text="Building indexes…")
        result = sweep.run(widgets.stage_bar(bar))
        bar.empty()
        _remember_form(ws, vary, finished=bool(result["finished"]))
        if result["finished"]:
            save_sweep(result, eval_root())
        st.session_state[RESULT] = result
        st.session_state.pop(NOTE, None)
        st.session_state.pop(COST, None)  # its indexes are built now, its rates measured
    except RagkitError as e:
        st.error(str(e))
