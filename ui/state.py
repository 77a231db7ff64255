"""Every ``st.session_state`` key in one place, with typed accessors, and the link to the saved workspace.

The session's configs, chat, comparison and batch judgements are saved with the active collection
(:mod:`ragkit.app.workspace`) as they change, and restored when a session opens that collection again (a
reload, a second tab, a link). Configs are the single source of truth for the sidebar: widgets show the
config and change it only through their ``on_change`` callbacks (a user action), never by being reset.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import streamlit as st

from ragkit.app.workspace import Workspace
from ragkit.index.collections import Collection
from ragkit.ingestion.netpolicy import FetchRefused, check_service_url
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import FIELDS

COLLECTION = "collection"  # name of the active collection (the sidebar selectbox's key)
PENDING_COLLECTION = "_pending_collection"  # set by "Create", applied before the selectbox exists
RESTORED_FOR = "_restored_for"  # the collection whose workspace this session has loaded
CONFIGS = "configs"  # {"A": PipelineConfig, "B": PipelineConfig}
SAVED_CONFIGS = "_saved_configs"  # what the workspace holds, to save only on a change
CONFIG_ERROR = "_config_error"  # the last rejected sidebar change, shown once
SERVICE_NOTES = "_service_notes"  # service URLs the fetch policy refused (the default is used), shown once
EDITING = "editing"  # which config the sidebar edits
PRESET_NOTES = "_preset_notes"  # what loading a preset swapped on this machine
CHAT_ID = "chat_id"  # the chat shown on the Ask page
CHATS_SEEN = "_chats_seen"  # {collection: the chat this session last showed there}, for switching back
INGEST_REPORT = "ingest_report"
COMPARE_RESULT = "compare_result"
BATCH_RESULT = "batch_result"
EVAL_RESULT = "eval_result"  # the evaluation result dict shown on the Evaluate page
EVAL_NOTES = "eval_notes"  # notes from a re-run (what changed since the saved run)
LABEL_POOL = "label_pool"  # (question, [Chunk]) candidates being labelled
LABEL_SEARCH = "_label_search"  # (question, [Chunk]) results of a whole-collection search
CONFIRM_DELETE = "_confirm_delete"  # the document waiting for a second click on Delete


def default_configs() -> dict[str, PipelineConfig]:
    return {"A": PipelineConfig(name="A"), "B": PipelineConfig(name="B", retriever="bm25")}


def init() -> None:
    st.session_state.setdefault(CONFIGS, default_configs())


def config(which: str = "A") -> PipelineConfig:
    init()
    return st.session_state[CONFIGS][which]


def set_config(which: str, cfg: PipelineConfig) -> None:
    """Replace config ``which`` and save both with the active collection (if it changed)."""
    init()
    st.session_state[CONFIGS] = {**st.session_state[CONFIGS], which: reachable(cfg)}
    persist_configs()


def reachable(cfg: PipelineConfig) -> PipelineConfig:
    """``cfg`` with every service URL the fetch policy refuses (a visitor's value, not the server's own)
    set back to the server's default, and a note saying so: whatever way a config arrives (the sidebar,
    a file, a preset, a sweep, a saved workspace), the server never connects where its policy forbids."""
    changes = {}
    for name, option in FIELDS.items():
        value = getattr(cfg, name, None)
        if option.service_env is None or not value:
            continue
        try:
            check_service_url(str(value), os.environ.get(option.service_env))
        except FetchRefused as e:
            changes[name] = None
            notes = st.session_state.setdefault(SERVICE_NOTES, [])
            notes.append(f"{option.label or name} {value!r} not used: {e}; the server's default is used.")
    if not changes:
        return cfg
    return replace(cfg, **changes)


def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def api_keys() -> dict[str, str]:
    """Every API key this session holds, by backend (memory only)."""
    from ragkit.llms import LLMS

    return {n: st.session_state[key_slot(n)] for n in LLMS.names() if st.session_state.get(key_slot(n))}


def key_slot(backend: str) -> str:
    """The session key holding the API key of ``backend`` (``groq_key``, ``openai_key``): held in this
    session's memory only, never written anywhere."""
    return f"{backend}_key"


def api_key(config: PipelineConfig) -> str | None:
    """The session's key for the config's backend (memory only)."""
    return st.session_state.get(key_slot(config.llm)) or None


def active() -> Collection | None:
    name = st.session_state.get(COLLECTION)
    if not name:
        return None
    c = Collection(name)
    return c if c.exists else None


def workspace() -> Workspace | None:
    c = active()
    return Workspace(c.path) if c is not None else None


def restore(name: str) -> None:
    """Load collection ``name``'s saved workspace into this session (configs, chat, comparisons).

    A collection with no saved configs takes the session's current ones (and saves them), so creating a
    collection never resets the pipeline being worked on.
    """
    init()
    ws = Workspace(Collection(name).path)
    saved = ws.configs()
    if {"A", "B"} <= saved.keys():
        st.session_state[CONFIGS] = {"A": reachable(saved["A"]), "B": reachable(saved["B"])}
        st.session_state[SAVED_CONFIGS] = dict(st.session_state[CONFIGS])
    else:
        st.session_state[SAVED_CONFIGS] = {}
    # the chat is this session's (a link or a reload carries it in the URL): another session's chat on
    # the same collection is listed to reopen, never shown or written to unasked
    # (switching back to a collection reopens the chat this session left there)
    wanted = st.query_params.get("chat")
    if ws.chat(wanted) is None:
        wanted = st.session_state.get(CHATS_SEEN, {}).get(name)
    st.session_state[CHAT_ID] = wanted if ws.chat(wanted) is not None else None
    switching = st.session_state.get(RESTORED_FOR) is not None
    for key in (
        ()
        if not switching
        else (
            COMPARE_RESULT,
            BATCH_RESULT,
            INGEST_REPORT,
            LABEL_POOL,
            LABEL_SEARCH,
            EVAL_RESULT,
            EVAL_NOTES,
        )
    ):
        st.session_state.pop(key, None)
    st.session_state[RESTORED_FOR] = name
    persist_configs()


def persist_configs() -> None:
    """Save configs A and B with the active collection when they differ from what is saved."""
    ws = workspace()
    configs = st.session_state.get(CONFIGS)
    if (
        ws is None
        or configs is None
        or st.session_state.get(RESTORED_FOR) != st.session_state.get(COLLECTION)
    ):
        return
    saved = st.session_state.get(SAVED_CONFIGS) or {}
    changed = {k: c for k, c in configs.items() if saved.get(k) != c}
    if changed:  # only what this session changed: another session's save of the other config is kept
        ws.save_configs(changed)
        st.session_state[SAVED_CONFIGS] = dict(configs)


def session_chat(ws: Workspace) -> dict[str, Any]:
    """This session's chat on the Ask page (a new, unsaved one until its first question), named in the
    URL so a reload or a copied link finds it again."""
    from ragkit.app.workspace import new_chat

    chat = ws.chat(st.session_state.get(CHAT_ID))
    if chat is None:
        chat = new_chat()
        st.session_state[CHAT_ID] = chat["id"]
    st.query_params["chat"] = chat["id"]
    seen = st.session_state.setdefault(CHATS_SEEN, {})
    seen[st.session_state.get(COLLECTION)] = chat["id"]
    return chat


def open_chat(chat_id: str | None) -> None:
    """Show chat ``chat_id`` in this session (None: a new chat)."""
    st.session_state[CHAT_ID] = chat_id
