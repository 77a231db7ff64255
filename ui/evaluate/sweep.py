"""Evaluate page, Sweep tab: a grid of set-ups from the components' declared options, raced over a
question set; the set-ups not significantly worse than the best, and one click to load one into A or B
or to compare the top two where they differ most."""

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
from ragkit.evaluation.sweep.grid import Grid
from ragkit.evaluation.sweep.report import (
    index_mb_text,
    outcome,
    p50_text,
    reading_notes,
    sweep_csv,
    sweep_markdown,
    table_order,
    vs_best_text,
)
from ragkit.evaluation.sweep.runner import Sweep
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import FIELDS
from ui import state, widgets
from ui.configs import config_choices
from ui.evaluate.question_sets import pick_question_set
from ui.evaluate.results import PAGES, build_judge, embedders_for, eval_root

#: the fields the grid editor offers (the rest come from the base config)
SWEEPABLE = (
    "retriever",
    "chunker",
    "chunker_params",
    "pdf_parser",
    "bm25_k1",
    "bm25_b",
    "hybrid_weights",
    "hybrid_depth",
    "intent_routing",
    "rerank",
    "dense_index",
    "top_k",
    "llm",
)
DEFAULT_METRIC = "(the set's default)"
#: what to type for the fields whose values are JSON
HINTS = {
    "chunker_params": '[{}, {"size": 300, "overlap": 50}]  (chunker settings, JSON list)',
    "hybrid_weights": '[{"bm25": 1, "dense": 1}, {"bm25": 1, "dense": 0.5}]',
}
RESULT = "sweep_result"
NOTE = "_sweep_note"  # which set-up was last loaded into A or B
FORM_FOR = "_sweep_form_for"  # the collection whose last sweep form this session's form was filled from
#: the form's widgets kept with the collection when a sweep starts (a reload or a new tab finds the grid,
#: and "Start sweep" then resumes a sweep that stopped before its end)
FORM_KEYS = ("sweep_source", "sweep_saved", "sweep_path", "sweep_base", "sweep_metric", "sweep_racing",
             "sweep_limit", "sweep_ceiling", "sweep_size_ceiling")  # fmt: skip


def _parse_values(name: str, text: str) -> list[Any]:
    """Values typed for field ``name``: comma-separated numbers, or a JSON list for dict fields."""
    text = text.strip()
    if not text:
        return []
    kind = FIELDS[name].kind
    try:
        if kind == "any":
            values = json.loads(text)
            if not isinstance(values, list):
                raise ValueError('a JSON list of objects, e.g. [{}, {"size": 300, "overlap": 50}]')
            return values
        cast = int if kind.startswith("int") else float
        return [cast(v) for v in text.replace(";", ",").split(",") if v.strip()]
    except ValueError as e:
        raise RagkitError(f"grid: values of {name}: {e}") from None


def _vary_editor(base: PipelineConfig) -> dict[str, list[Any]]:
    """One widget per sweepable field, from its declaration: choices as a multiselect, numbers and
    settings as text. A field left at nothing is not varied."""
    vary: dict[str, list[Any]] = {}
    cols = st.columns(2)
    for i, name in enumerate(SWEEPABLE):
        option = FIELDS[name]
        col = cols[i % 2]
        label = f"{option.label} ({name})" if option.label else name
        if option.kind == "choice":
            choices = list(option.choices() if callable(option.choices) else option.choices)
            start = ["bm25", "dense", "hybrid"] if name == "retriever" else []
            picked = col.multiselect(label, choices, key=widgets.seed(f"sweep_vary_{name}", start))
        elif option.kind == "bool":
            picked = col.multiselect(label, [False, True], key=widgets.seed(f"sweep_vary_{name}", []))
        else:
            hint = HINTS.get(name, "e.g. 3, 5, 10")
            text = col.text_input(label, key=widgets.seed(f"sweep_vary_{name}", ""), placeholder=hint)
            picked = _parse_values(name, text)
        if picked:
            vary[name] = list(picked)
    return vary


def _fill_vary(vary: dict[str, Any]) -> None:
    """Put a grid's varied values into the form's widgets (before they are drawn)."""
    for name in SWEEPABLE:
        values = vary.get(name)
        kind = FIELDS[name].kind
        if kind in ("choice", "bool"):
            st.session_state[f"sweep_vary_{name}"] = values or []
        elif kind == "any":
            st.session_state[f"sweep_vary_{name}"] = json.dumps(values) if values else ""
        else:
            st.session_state[f"sweep_vary_{name}"] = ", ".join(map(str, values or []))


def _restore_form(ws: Any, collection: Any) -> dict[str, Any] | None:
    """Once per session and collection: the form as the collection's last sweep left it."""
    name = getattr(collection, "name", None)
    form = ws.get("sweep_form") if ws is not None else None
    if st.session_state.get(FORM_FOR) == name:
        return form
    st.session_state[FORM_FOR] = name
    if form:
        _fill_vary(form.get("vary", {}))
        offered = {  # a choice that is gone (a deleted question set or config) is not restored
            "sweep_saved": [f.name for f in (saved_question_sets(collection) if collection else [])],
            "sweep_base": list(config_choices()),
            "sweep_metric": [DEFAULT_METRIC, *PER_QUESTION_METRICS],
        }
        for key, value in form.get("widgets", {}).items():
            if key in FORM_KEYS and value is not None and value in offered.get(key, [value]):
                st.session_state[key] = value
    return form


def _remember_form(ws: Any, vary: dict[str, Any], finished: bool) -> None:
    if ws is not None:
        widgets_now = {k: st.session_state.get(k) for k in FORM_KEYS}
        ws.set_value("sweep_form", {"vary": vary, "widgets": widgets_now, "finished": finished})


def _judge_picker(metric: str) -> tuple[str, str] | None:
    """The judge backend and model, asked for only when the metric is a judge's grade."""
    if metric not in ANSWER_JUDGE_METRICS:
        return None
    j1, j2 = st.columns(2)
    backend = j1.selectbox(f"Judge that grades {metric}", judge_backends(), key="sweep_judge_backend")
    model = j2.text_input("Judge model (blank: the backend's default)", key="sweep_judge_model")
    st.caption("Every set-up's answers are graded by this judge; its calls are counted before the start.")
    return backend, model


def sweep_tab(collection) -> None:
    """The Sweep tab."""
    st.caption(
        "Every set-up answers a first batch of questions; after each further batch, set-ups significantly "
        "worse than the best (Friedman gate, then a paired test against the best corrected for the "
        "comparisons, the error split across the looks) are dropped. The result is every set-up *not "
        "significantly worse* than the best."
    )
    ws = state.workspace()
    form = _restore_form(ws, collection)
    if form and not form.get("finished", True):
        st.info(
            "The last sweep of this collection stopped before its end; what it measured is kept. Its grid "
            "is below: **Start sweep** resumes it."
        )
    load_qset = pick_question_set(collection, "sweep")
    choices = config_choices()
    base_name = st.selectbox("Base config (everything not varied)", list(choices), key="sweep_base")
    base = choices[base_name]
    try:
        vary = _vary_editor(base)
        grid = Grid.from_dict({"base": {**base.to_dict(), "name": "base"}, "vary": vary})
    except (RagkitError, ValueError) as e:
        st.error(str(e))
        return
    with st.expander("Grid as JSON (save or load)"):
        widgets.download_json("Download grid", grid.to_dict(), "ragkit-grid.json", "sweep_grid_dl")
        up = st.file_uploader("Load a grid JSON", type=["json"], key="sweep_grid_up")
        if up is not None and st.button("Use this grid", key="sweep_grid_use"):
            try:
                _fill_vary(Grid.from_dict(json.loads(up.getvalue().decode("utf-8-sig"))).vary)
                st.rerun()
            except (RagkitError, ValueError) as e:
                st.error(f"{up.name}: {e}")
    c1, c2, c3 = st.columns(3)
    metric = c1.selectbox("Metric to optimise", [DEFAULT_METRIC, *PER_QUESTION_METRICS], key="sweep_metric")
    racing = c2.toggle("Racing (drop the worse early)", key=widgets.seed("sweep_racing", True))
    limit = c3.number_input(
        "Only N questions (0 = all)", min_value=0, step=10, key=widgets.seed("sweep_limit", 0)
    )
    c4, c5 = st.columns(2)
    ceiling = c4.number_input(
        "p50 latency ceiling, ms (0 = none)", min_value=0.0, step=10.0, key=widgets.seed("sweep_ceiling", 0.0)
    )
    size_ceiling = c5.number_input(
        "Index size ceiling, MB: chunk texts + vectors (0 = none)",
        min_value=0.0,
        step=10.0,
        key=widgets.seed("sweep_size_ceiling", 0.0),
    )
    judge_pick = _judge_picker(metric)
    try:
        cands, merged = grid.candidates()
        st.caption(
            f"**{len(cands)} set-ups** ({len(merged)} combinations merged: same set-up)"
            + (" · " + ", ".join(c.name for c in cands[:12]) + ("…" if len(cands) > 12 else ""))
        )
    except RagkitError as e:
        st.error(str(e))
        return
    if st.button("Start sweep", type="primary", key="sweep_start"):
        try:
            qset = load_qset()
            sweep = Sweep(
                qset,
                grid,
                None if metric == DEFAULT_METRIC else metric,
                racing=racing,
                limit=int(limit) or None,
                max_latency_ms=float(ceiling) or None,
                max_index_mb=float(size_ceiling) or None,
                judge=build_judge(*judge_pick) if judge_pick else None,
                index_root=eval_root(),
                embedders=embedders_for([c.config for c in cands]),
            )
            est = sweep.estimate()
            note = f"{est['evaluations_full']} question evaluations for the full grid"
            if est["llm_calls_max"]:
                note += f"; at most {est['llm_calls_max']} LLM calls (~{est['tokens_max_estimate']:,} tokens)"
            if est["judge_calls_max"]:
                note += f"; at most {est['judge_calls_max']} judge calls"
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
        except RagkitError as e:
            st.error(str(e))
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
    for note in reading_notes(result):
        st.caption(note)
    rows = [
        {
            "set-up": c["name"],
            metric: c["mean"],
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
