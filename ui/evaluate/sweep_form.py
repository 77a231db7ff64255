"""The Sweep tab's grid form: one natural control per dimension (:mod:`ragkit.app.sweep_form` says which,
from the components' declarations), and the grid as JSON beside it to download, upload or read."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from ragkit.app.sweep_form import (
    CHUNK_MODE,
    MODES,
    ORDER,
    Dimension,
    chunk_key,
    chunker_options,
    dimensions,
    form_chunker,
    json_key,
    vary_from,
    vary_key,
    widget_values,
)
from ragkit.core.errors import RagkitError
from ragkit.evaluation.sweep.grid import Grid
from ragkit.pipeline.config import PipelineConfig
from ui import widgets

IMPORTED = "_sweep_imported_base"  # the base config of an uploaded grid, as written in it
PENDING = "_sweep_pending_grid"  # an uploaded grid, shown in the form at the start of the next run
IMPORTED_LABEL = "(the uploaded grid's base)"
JSON_PREFIX = "sweep_json_"


def fill(vary: dict[str, list[Any]], base_chunker: str) -> None:
    """Show a grid's varied values in the form's widgets (before they are drawn in this run)."""
    for key in [k for k in st.session_state if str(k).startswith(JSON_PREFIX)]:
        st.session_state[key] = ""
    for key, value in widget_values(vary, base_chunker).items():
        st.session_state[key] = value


def _switch_text(value: bool) -> str:
    return "on" if value else "off"


def _draw(where: Any, d: Dimension) -> None:
    if (st.session_state.get(json_key(d.field)) or "").strip():
        where.text_input(
            f"{d.label}, as JSON",
            key=json_key(d.field),
            help="Values the form's control cannot show (from an uploaded grid); clear the box to use it.",
        )
    elif d.control == "choices":
        where.multiselect(
            d.label, list(d.choices), key=widgets.seed(vary_key(d.field), []), help=d.help or None
        )
    elif d.control == "switch":
        where.multiselect(
            d.label,
            [False, True],
            format_func=_switch_text,
            key=widgets.seed(vary_key(d.field), []),
            help=d.help or None,
        )
    else:
        where.text_input(
            d.label,
            key=widgets.seed(vary_key(d.field), ""),
            placeholder=d.placeholder,
            help=d.help or None,
        )


def _chunk_settings(dim: Dimension, base: PipelineConfig) -> None:
    """The chosen chunker's settings as lists, combined every way or paired."""
    if (st.session_state.get(json_key(dim.field)) or "").strip():
        _draw(st, dim)
        return
    chunker = form_chunker(st.session_state, base.chunker)
    if chunker is None:
        st.caption(
            "Several chunkers: each runs with its own default settings (sweep one chunker to vary its sizes, "
            "or write its settings in the JSON grid)."
        )
        return
    options = chunker_options(chunker)
    st.markdown(f"**Chunk settings ({chunker})**: lists of values; an empty box keeps the default")
    cols = st.columns(len(options) + 1)
    for col, o in zip(cols, options, strict=False):
        label = f"{o.label or o.name} (default {o.default})"
        if o.kind == "bool":
            col.multiselect(
                label, [False, True], format_func=_switch_text, key=widgets.seed(chunk_key(o.name), [])
            )
        else:
            hint = "e.g. " + ", ".join(map(str, o.suggest)) if o.suggest else "numbers"
            col.text_input(
                label, key=widgets.seed(chunk_key(o.name), ""), placeholder=hint, help=o.help or None
            )
    cols[-1].radio("Combine", MODES, key=widgets.seed(CHUNK_MODE, MODES[0]))


def draw_form(base: PipelineConfig) -> dict[str, list[Any]]:
    """Draw every dimension's control; returns the grid's ``vary`` (an error names a bad value)."""
    dims = dimensions()
    main = [d for d in dims if d.section == "main"]
    cols = st.columns(2)
    for i, d in enumerate(x for x in main if x.control != "chunks"):
        _draw(cols[i % 2], d)
    for d in main:
        if d.control == "chunks":
            _chunk_settings(d, base)
    with st.expander("More dimensions (pipeline stages, answer settings, other engines)"):
        more = st.columns(2)
        for i, d in enumerate(x for x in dims if x.section == "more"):
            _draw(more[i % 2], d)
    offered = {d.field for d in dims}
    for key in [k for k in st.session_state if str(k).startswith(JSON_PREFIX)]:
        field = str(key)[len(JSON_PREFIX) :]
        if field not in offered and (st.session_state[key] or "").strip():
            st.text_input(f"{field} (from the uploaded grid), as JSON", key=key)
    values = {k: st.session_state.get(k) for k in list(st.session_state) if str(k).startswith("sweep_")}
    values.setdefault(ORDER, st.session_state.get(ORDER, []))
    return vary_from(values, base.chunker)


def base_choices(choices: dict[str, PipelineConfig]) -> dict[str, PipelineConfig]:
    """The configs a grid can start from, with an uploaded grid's own base when there is one."""
    imported = st.session_state.get(IMPORTED)
    if imported is None:
        return choices
    return {IMPORTED_LABEL: PipelineConfig.from_dict({**imported, "name": "base"}), **choices}


def base_dict(name: str, base: PipelineConfig) -> dict[str, Any]:
    """The grid's ``base`` as the JSON holds it: an uploaded grid's as written, else the config's fields."""
    if name == IMPORTED_LABEL and st.session_state.get(IMPORTED) is not None:
        return dict(st.session_state[IMPORTED])
    return {**base.to_dict(), "name": "base"}


def json_panel(grid: Grid) -> None:
    """The grid as JSON: read it, download it (what ``ragkit sweep --grid`` reads), or upload one."""
    with st.expander("Grid as JSON (what `ragkit sweep --grid` reads): download or upload"):
        st.code(grid.to_json(), language="json")
        widgets.download_json("Download grid", grid.to_dict(), "ragkit-grid.json", "sweep_grid_dl")
        up = st.file_uploader("Upload a grid JSON", type=["json"], key="sweep_grid_up")
        if up is not None and st.button("Use this grid", key="sweep_grid_use"):
            try:
                loaded = Grid.from_dict(json.loads(up.getvalue().decode("utf-8-sig")))
            except (RagkitError, ValueError) as e:
                st.error(f"{up.name}: {e}")
            else:  # the form's widgets are drawn already: it shows the grid from the next run on
                st.session_state[PENDING] = loaded.to_dict()
                st.rerun()


def apply_pending() -> None:
    """Show an uploaded grid in the form: its base as a base choice, its values in the widgets (called
    before any of them is drawn)."""
    grid = st.session_state.pop(PENDING, None)
    if grid is None:
        return
    st.session_state[IMPORTED] = grid["base"]
    st.session_state["sweep_base"] = IMPORTED_LABEL
    fill(grid["vary"], PipelineConfig.from_dict({**grid["base"], "name": "base"}).chunker)
