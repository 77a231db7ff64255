"""Every ``st.session_state`` key in one place, with typed accessors."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragkit.config import PipelineConfig

COLLECTION = "collection"  # name of the active collection
CONFIGS = "configs"  # {"A": PipelineConfig, "B": PipelineConfig}
EDITING = "editing"  # which config the sidebar edits
GROQ_KEY = "groq_key"  # held in this session's memory only, never written anywhere
CHAT = "chat"  # list of (question, Answer | None, error | None)
INGEST_REPORT = "ingest_report"
COMPARE_RESULT = "compare_result"
BATCH_RESULT = "batch_result"
EVAL_RESULT = "eval_result"  # the evaluation result dict shown on the Evaluate page
EVAL_NOTES = "eval_notes"  # notes from a re-run (what changed since the saved run)
LABEL_POOL = "label_pool"  # (question, [Chunk]) candidates being labelled


def init() -> None:
    st.session_state.setdefault(
        CONFIGS, {"A": PipelineConfig(name="A"), "B": PipelineConfig(name="B", retriever="bm25")}
    )
    st.session_state.setdefault(CHAT, [])


def config(which: str = "A") -> PipelineConfig:
    init()
    return st.session_state[CONFIGS][which]


def set_config(which: str, cfg: PipelineConfig) -> None:
    init()
    st.session_state[CONFIGS][which] = cfg


def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def groq_key() -> str | None:
    return st.session_state.get(GROQ_KEY) or None
