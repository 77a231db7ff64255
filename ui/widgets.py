"""Shared widgets: progress panels, building pipelines under one, flash messages, downloads, and the
one-line summary of a config."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import Any

import streamlit as st

from ragkit.app.presentation import safe_markdown
from ragkit.core.progress import StageClock
from ragkit.index.collections import Collection
from ragkit.ingestion.parsing import ParseSettings
from ragkit.pipeline.config import PipelineConfig
from ui import state


def seed(key: str, value: Any) -> str:
    """Give a widget its starting value through session state (once), so it is created without a default
    argument (a default that follows other state would change the widget's identity and reset it)."""
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def active_collection() -> Collection | None:
    return state.active()


def stage_bar(bar: Any) -> Callable[[str, int, int], None]:
    """``progress(stage, done, total)`` drawn on ``bar`` (an ``st.progress``): the stage, the count, and
    a rate and an ETA per stage (an index build's, then the work's)."""
    clock = StageClock()

    def update(stage: str, done: int, total: int) -> None:
        bar.progress(min(done / max(total, 1), 1.0), text=clock.line(stage, done, total))

    return update


@contextlib.contextmanager
def progress_panel(label: str, expanded: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """A visible ``st.status`` with a progress bar; yields ``progress(stage, done, total)`` that shows the
    stage, the count, the rate and an ETA ("embed: 120/400 chunks · 35.1/s · ETA 8 s")."""
    with st.status(label, expanded=expanded) as status:
        bar = st.progress(0.0, text="starting…")
        try:
            yield stage_bar(bar)
        except Exception:
            status.update(label=f"{label} — failed", state="error", expanded=True)
            raise
        bar.empty()
        status.update(label=f"{label} — done", state="complete", expanded=False)


def pipelines(collection: Collection, configs: list[PipelineConfig]) -> list[Any]:
    """Pipelines for these configs over the collection; an index that must be built or updated first is
    built under a visible progress panel saying which config it is for."""
    from ui import resources

    out = []
    for cfg in configs:
        if resources.needs_indexing(collection, cfg):
            with progress_panel(f"Building the index for config {cfg.name} ({config_summary(cfg)})") as p:
                out.append(resources.pipeline(collection, cfg, state.api_key(cfg), p))
        else:
            out.append(resources.pipeline(collection, cfg, state.api_key(cfg)))
    return out


def flash(message: str, where: str = "main") -> None:
    """A success message that survives the ``st.rerun()`` that follows a change."""
    st.session_state.setdefault("_flash", {}).setdefault(where, []).append(message)


def show_flash(where: str = "main") -> None:
    for message in st.session_state.get("_flash", {}).pop(where, []):
        st.success(message)


def download_json(label: str, obj: Any, file_name: str, key: str) -> None:
    st.download_button(
        label,
        json.dumps(obj, indent=2, ensure_ascii=False, default=str),
        file_name=file_name,
        mime="application/json",
        key=key,
    )


def config_summary(cfg: PipelineConfig) -> str:
    params = ", ".join(f"{k}={v}" for k, v in cfg.chunker_params.items())
    parts = [f"{cfg.chunker}({params})" if params else cfg.chunker, cfg.retriever]
    if cfg.rerank:
        parts.append("rerank")
    parts += [cfg.llm + (f":{cfg.llm_model}" if cfg.llm_model else ""), f"top-{cfg.top_k}"]
    if cfg.no_retrieval:
        parts.append("no retrieval")
    parse = ParseSettings.of(cfg)
    if parse.key() != ParseSettings().key():  # PDFs read otherwise
        parts.append(
            f"PDFs: {cfg.pdf_parser}, OCR {cfg.ocr}"
            + (f" ({cfg.ocr_language})" if cfg.ocr != "never" else "")
        )
    if parse.content_filter != "off":
        parts.append(f"content filter: {cfg.content_filter} (≥ {cfg.content_filter_min_words} words)")
    return " · ".join(parts)


def text_md(text: str) -> str:
    """Document-derived text for ``st.markdown``: nothing in it is fetched or rendered as HTML."""
    return safe_markdown(text)
