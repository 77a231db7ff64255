"""The sidebar: the collection picker, and the pipeline panel that edits config A or B.

The panel is drawn from the components' declared options (label, range, widget, which switch it needs):
choosing a retriever shows that retriever's settings, choosing a backend its host or key field. Only
four settings have widgets of their own (the chunker's settings, hybrid weights, a calibration map and a
prompt template); every other field gets the widget its declaration asks for.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import streamlit as st

from ragkit.app.workspace import remember_collection
from ragkit.core.errors import ConfigError, RagkitError
from ragkit.core.options import Option
from ragkit.index.collections import Collection, default_root, list_collections
from ragkit.index.vectorstores import STORES, describe_store, store_spec
from ragkit.ingestion.netpolicy import FetchRefused, check_service_url
from ragkit.llms import LLMS
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import GROUPS, OWNERS
from ragkit.retrievers import RETRIEVERS
from ui import configs, custom, state
from ui.custom import change, show
from ui.widgets import seed


def store_choices() -> dict[str, tuple[str, bool]]:
    """The "Vectors in" choices, from the stores' declarations: label -> (store, whether it takes a URL)."""
    return {
        label: (c.name, takes_url)
        for c in STORES.components()
        for label, takes_url in c.extras.get("choices", {}).items()
    }


def collection_picker() -> None:
    """Choose or create the collection every page works on; restores its saved workspace.

    The active collection comes from a pending "Create", else the session (the box, or the collection it
    restored), else the link (``?collection=``), else the one used last on this server, else the first.
    It is set before the selectbox exists (setting a widget's state after it exists is what crashed
    "Create" before).
    """
    ss = st.session_state
    names = list_collections()
    pending = ss.pop(state.PENDING_COLLECTION, None)
    if pending in names:
        ss[state.COLLECTION] = pending
    if ss.get(state.COLLECTION) not in names:
        from ragkit.app.workspace import last_collection

        # this session's own collection first (kept outside the widget, whose state Streamlit can drop),
        # then the link; the one used last on this server only for a brand-new session — else a session
        # whose widget state was dropped followed whoever created a collection last (found by
        # bench/load_test.py: a session in 'shared' found itself in another session's new, empty one)
        mine = ss.get(state.RESTORED_FOR)
        wanted = st.query_params.get("collection")
        last = last_collection(default_root())
        ss[state.COLLECTION] = next(
            (c for c in (mine, wanted, last) if c in names), names[0] if names else None
        )
    current = ss.get(state.COLLECTION)
    if current and ss.get(state.RESTORED_FOR) != current:
        state.restore(current)
    if names:
        st.sidebar.selectbox("Collection", names, key=state.COLLECTION)
        st.query_params["collection"] = current
        if ss.get(state.CHAT_ID):  # page links clear the URL's parameters: a reload on any page keeps it
            st.query_params["chat"] = ss[state.CHAT_ID]
        remember_collection(default_root(), current)
        st.sidebar.caption(f"Vectors in {describe_store(Collection(current).store)}")
    else:
        st.sidebar.info("No collection yet: create one to upload documents.")
    _new_collection()


def _new_collection() -> None:
    # the store choice sits outside the form, so choosing a server shows its URL field at once
    choices = store_choices()
    where = st.sidebar.selectbox(
        "Vectors in",
        list(choices),
        key="new_collection_store",
        help="Where a new collection keeps its vectors: "
        + "; ".join(c.summary for c in STORES.components())
        + " (a server's key from "
        + " or ".join(f"${c.key_env}" for c in STORES.components() if c.key_env)
        + ", never stored). Fixed per collection.",
    )
    kind, takes_url = choices[where]
    url_option = next((o for o in STORES.component(kind).options if o.name == "uri"), None)
    with st.sidebar.form("new_collection", clear_on_submit=True, border=False):
        new = st.text_input("New collection", placeholder="e.g. papers")
        uri = ""
        if takes_url and url_option is not None:
            uri = st.text_input(url_option.label, placeholder=url_option.placeholder)
        if st.form_submit_button("Create") and new.strip():
            try:
                if takes_url and not uri.strip():
                    raise ConfigError(f"a {kind.capitalize()} server collection needs the server's URL")
                if uri.strip() and url_option is not None:
                    try:  # the server connects there: a visitor may not point it inside the network
                        check_service_url(uri.strip(), os.environ.get(url_option.service_env or ""))
                    except FetchRefused as e:
                        raise ConfigError(f"{url_option.label} {uri.strip()!r}: {e}") from None
                spec = store_spec(kind, uri.strip() or None)
                Collection.create(new.strip(), store=spec)
                st.session_state[state.PENDING_COLLECTION] = new.strip()
                st.rerun()
            except RagkitError as e:
                st.error(str(e))


# ------------------------------------------------------------------ the pipeline panel


def visible(cfg: PipelineConfig, advanced: bool) -> Iterator[Option]:
    """The options the panel shows for ``cfg``, in declaration order: those of the chosen components
    only, and only when the switch they require is on."""
    chosen = {cfg.retriever, *RETRIEVERS.component(cfg.retriever).parts, cfg.llm, "cross-encoder"}
    for group in ("index", "retrieval", "generation", "pipeline"):
        for o in GROUPS[group]:
            owner = OWNERS.get(o.field or "")
            if o.widget == "none" or o.advanced != advanced or (owner and owner.name not in chosen):
                continue
            if o.requires and getattr(cfg, o.requires) in (False, None, "", "off"):
                continue
            yield o


def pipeline_panel() -> None:
    """Edit configuration A or B; save, load, export and import configs as JSON."""
    state.init()
    sb = st.sidebar
    sb.subheader("Pipeline")
    configs.preset_picker()
    which = sb.radio(
        "Editing",
        ["A", "B"],
        horizontal=True,
        key=seed(state.EDITING, "A"),
        help="Ask uses A; Compare runs A and B side by side",
    )
    cfg = state.config(which)
    for o in visible(cfg, advanced=False):
        draw(sb, which, cfg, o)
    with sb.expander("More settings: prompt, stages, engines"):
        for o in visible(cfg, advanced=True):
            draw(st, which, cfg, o)
    error = st.session_state.pop(state.CONFIG_ERROR, None)
    if error:
        sb.error(error)
    for note in st.session_state.pop(state.SERVICE_NOTES, []):
        sb.error(note)
    configs.config_files(which)


def draw(where: Any, which: str, cfg: PipelineConfig, o: Option) -> None:
    """The widget of one declared option, showing the config's value and changing it on edit."""
    field = o.key
    key = f"cfg{which}_{field}"
    value = getattr(cfg, field)
    args = {"key": key, "on_change": change, "args": (which, field, key)}
    component = LLMS.component(cfg.llm)
    disabled = bool(o.needs) and not getattr(component, o.needs)
    help_text = (
        f"Needs a language model: the {cfg.llm} backend only quotes retrieved sentences."
        if (disabled)
        else (o.help or None)
    )
    if o.widget == "custom":
        custom.draw(where, which, cfg, o)
    elif o.kind == "choice":
        options = list(o.allowed())
        where.selectbox(o.label or field, options, help=help_text, **{**args, "key": show(key, value)})
    elif o.kind == "bool":
        where.toggle(o.label or field, help=help_text, disabled=disabled, **{**args, "key": show(key, value)})
    elif o.kind in ("int", "float", "int?"):
        number(where, o, key, value, args, help_text, disabled)
    else:
        placeholder = o.placeholder or (component.model_hint if field == "llm_model" else "") or None
        if field == "llm_model" and not component.generative:
            return
        args["args"] = (which, field, key, (lambda v: (v or "").strip() or None) if o.blank_is_none else None)
        where.text_input(
            o.label or field,
            placeholder=placeholder,
            help=help_text,
            **{**args, "key": show(key, value or "")},
        )
    if field == "llm":
        api_key_field(where, cfg.llm)


def number(where: Any, o: Option, key: str, value: Any, args: dict, help_text: Any, disabled: bool) -> None:
    """A number input or slider within the declared range (``int?``: 0 stands for none)."""
    cast = float if o.kind == "float" else int
    lo = cast(0 if o.kind == "int?" else o.low if o.low is not None else 0)
    hi = cast(o.high) if o.high is not None else None
    shown = cast(value) if value is not None else cast(0)
    convert = (lambda v: int(v) or None) if o.kind == "int?" else cast
    kwargs = {**args, "key": show(key, shown), "args": (*args["args"], convert)}
    step = cast(o.step) if o.step else None
    if o.widget == "slider":
        where.slider(o.label or o.key, lo, hi, step=step, help=help_text, disabled=disabled, **kwargs)
    else:
        where.number_input(o.label or o.key, lo, hi, step=step, help=help_text, disabled=disabled, **kwargs)


def api_key_field(where: Any, backend: str) -> None:
    """The backend's API key, when it takes one: kept in this session's memory only."""
    component = LLMS.component(backend)
    if not component.key_env:
        return
    where.text_input(
        component.extras.get("key_label", f"{backend} API key"),
        type="password",
        key=state.key_slot(backend),
        help=component.extras.get(
            "key_help", "Kept in this browser session's memory only; never saved or exported."
        ),
    )
