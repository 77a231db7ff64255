"""The pipeline panel's own widgets: applying a change to a config, and the four settings whose widget
is not one value in one box (the chunker's settings, hybrid weights, a calibration map, a prompt template).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.core.options import Option
from ragkit.ingestion.chunkers import CHUNKERS
from ragkit.pipeline.config import PipelineConfig
from ragkit.retrievers import RETRIEVERS
from ui import state


def show(key: str, value: Any) -> str:
    """Make the widget ``key`` show ``value`` (the config's), set before the widget is built in this run."""
    st.session_state[key] = value
    return key


def change(which: str, field: str, key: str, convert: Any = None) -> None:
    """``on_change``: the user changed a widget; apply it to config ``which`` (a rejected value leaves the
    config as it was and says why)."""
    cfg = state.config(which)
    value = st.session_state[key]
    if convert is not None:
        value = convert(value)
    try:
        if field.startswith("chunker_params."):
            name = field.split(".", 1)[1]
            new = replace(cfg, chunker_params={**cfg.chunker_params, name: value})
        elif field == "chunker":
            new = replace(cfg, chunker=value, chunker_params={})
        else:
            new = replace(cfg, **{field: value})
        state.set_config(which, new)
    except RagkitError as e:
        st.session_state[state.CONFIG_ERROR] = str(e)


def draw(where: Any, which: str, cfg: PipelineConfig, o: Option) -> None:
    """The custom widget of option ``o`` (declared with ``widget="custom"``)."""
    drawers = {
        "chunker_params": chunker_settings,
        "hybrid_weights": hybrid_weights,
        "confidence_calibration": calibration,
        "prompt_template": prompt_template,
    }
    drawers[o.key](where, which, cfg)


def chunker_settings(where: Any, which: str, cfg: PipelineConfig) -> None:
    """The chosen chunker's own settings (kept in ``chunker_params``), side by side."""
    component = CHUNKERS.component(cfg.chunker)
    numbers = [o for o in component.options if o.kind != "bool"]
    cols = where.columns(max(len(numbers), 1))
    for col, o in zip(cols, numbers, strict=False):
        key = f"cfg{which}_{cfg.chunker}_{o.name}"
        value = int(cfg.chunker_params.get(o.name, o.default))
        col.number_input(
            o.name,
            int(o.low or 0),
            int(o.high) if o.high is not None else None,
            help=o.help or None,
            key=show(key, value),
            on_change=change,
            args=(which, f"chunker_params.{o.name}", key, int),
        )
    for o in component.options:
        if o.kind == "bool":
            key = f"cfg{which}_{cfg.chunker}_{o.name}"
            where.toggle(
                o.label or o.name,
                help=o.help or None,
                key=show(key, bool(cfg.chunker_params.get(o.name, o.default))),
                on_change=change,
                args=(which, f"chunker_params.{o.name}", key),
            )


def hybrid_weights(where: Any, which: str, cfg: PipelineConfig) -> None:
    """One slider for the two fused retrievers: BM25's share, dense gets the rest."""
    first, second = RETRIEVERS.component(cfg.retriever).parts[:2]
    total = max(sum(cfg.hybrid_weights.values()), 1e-9)
    key = f"cfg{which}_hybrid_weights"
    where.slider(
        f"{first} weight ({second} = 1 − w)",
        0.0,
        1.0,
        step=0.05,
        key=show(key, round(cfg.hybrid_weights.get(first, 1.0) / total, 2)),
        on_change=change,
        args=(which, "hybrid_weights", key, lambda w: {first: round(w, 2), second: round(1 - w, 2)}),
    )


def calibration(where: Any, which: str, cfg: PipelineConfig) -> None:
    """What the gauge is (a calibrated probability or a raw score), and a way back to the raw gauge."""
    if not cfg.confidence_calibration:
        where.caption("Gauge not calibrated: a score, not a probability (calibrate it on the Evaluate page).")
        return
    from ragkit.pipeline.calibration import CalibrationMap, scope_name

    cmap = CalibrationMap.from_dict(cfg.confidence_calibration)
    where.caption("Gauge " + cmap.describe() + ".")
    active = st.session_state.get(state.COLLECTION)
    if active and not cmap.applies_to(scope_name(active, "")):
        where.warning(
            f"Fitted on {cmap.scope.split(':', 1)[-1]!r}, not on this collection ({active!r}): the raw gauge "
            "is shown here."
        )
    if where.button("Use the raw gauge", key=f"cfg{which}_uncal", help="Drop the calibration map."):
        set_field(which, "confidence_calibration", None)


def prompt_template(where: Any, which: str, cfg: PipelineConfig) -> None:
    """An own system and user prompt (with {sources}, {question}, {history}), or the style's."""
    k = f"cfg{which}_"
    use = where.toggle(
        "Own prompt template",
        value=cfg.prompt_template is not None,
        key=f"{k}use_template_{cfg.prompt_template is not None}",
        help="System and user text with {sources}, {question} and {history}.",
    )
    if use:
        current = cfg.prompt_template or {}
        from ragkit.pipeline.prompts import STYLE_TEXTS

        default_system, default_user = STYLE_TEXTS[cfg.prompt_style]
        with where.form(f"{k}template_form", border=False):
            system = st.text_area("System", current.get("system", default_system), height=140)
            user = st.text_area("User", current.get("user", default_user), height=90)
            if st.form_submit_button("Apply template"):
                set_field(which, "prompt_template", {"system": system, "user": user})
    elif cfg.prompt_template is not None:
        set_field(which, "prompt_template", None)


def set_field(which: str, field: str, value: Any) -> None:
    try:
        state.set_config(which, replace(state.config(which), **{field: value}))
        st.rerun()
    except RagkitError as e:
        st.session_state[state.CONFIG_ERROR] = str(e)
