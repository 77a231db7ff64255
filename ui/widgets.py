"""Shared widgets: the sidebar pipeline panel and the answer renderers used by Ask and Compare."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import streamlit as st

from ragkit.collections import Collection, default_root, list_collections
from ragkit.config import LLM_NAMES, RETRIEVER_NAMES, PipelineConfig
from ragkit.errors import RagkitError
from ragkit.presentation import highlighted_page_html, hit_rows
from ragkit.viz import confidence_gauge, latency_bar
from ui import state

CHUNKER_PARAMS = {
    "sliding": [("size", 500, 50, 4000), ("overlap", 100, 0, 1000)],
    "sentence": [("n", 3, 1, 20), ("overlap", 0, 0, 19)],
    "markdown": [("min_chars", 100, 0, 2000), ("max_chars", 2000, 0, 20000)],
}


def configs_dir() -> Path:
    return default_root() / ".configs"


def saved_config_names() -> list[str]:
    d = configs_dir()
    return sorted(p.stem for p in d.glob("*.json")) if d.is_dir() else []


SHIPPED_CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def config_choices() -> dict[str, PipelineConfig]:
    """Every config the Evaluate page can run, by label: sidebar A and B, saved ones, shipped examples.
    Each is renamed to its label, so results and comparisons name them the way the user chose them."""
    out = {"A": state.config("A"), "B": state.config("B")}
    for name in saved_config_names():
        try:
            out.setdefault(name, PipelineConfig.load(configs_dir() / f"{name}.json"))
        except RagkitError:
            continue  # an unreadable saved file is reported where configs are loaded, not here
    for p in sorted(SHIPPED_CONFIGS.glob("*.json")):
        out.setdefault(p.stem, PipelineConfig.load(p))
    return {k: replace(v, name=k) for k, v in out.items()}


def active_collection() -> Collection | None:
    name = state.get(state.COLLECTION)
    if not name:
        return None
    c = Collection(name)
    return c if c.exists else None


def collection_picker() -> None:
    """Choose or create the collection every page works on."""
    names = list_collections()
    current = state.get(state.COLLECTION)
    if current not in names:
        current = names[0] if names else None
        st.session_state[state.COLLECTION] = current
    if names:
        st.sidebar.selectbox("Collection", names, index=names.index(current), key=state.COLLECTION)
    else:
        st.sidebar.info("No collection yet: create one to upload documents.")
    with st.sidebar.form("new_collection", clear_on_submit=True, border=False):
        new = st.text_input("New collection", placeholder="e.g. papers")
        if st.form_submit_button("Create") and new.strip():
            try:
                Collection.create(new.strip())
                st.session_state[state.COLLECTION] = new.strip()
                st.rerun()
            except RagkitError as e:
                st.error(str(e))


def seed(key: str, value: Any) -> str:
    """Give a widget its starting value through session state (once), so the widget is created without a
    default argument: a default that follows the config would change the widget's identity and reset it."""
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def pipeline_panel() -> None:
    """Edit configuration A or B; save, load, export and import configs as JSON."""
    state.init()
    sb = st.sidebar
    sb.subheader("Pipeline")
    which = sb.radio(
        "Editing",
        ["A", "B"],
        horizontal=True,
        key=seed(state.EDITING, "A"),
        help="Ask uses A; Compare runs A and B side by side",
    )
    cfg = state.config(which)
    k = f"cfg{which}_"  # widget keys per config so A and B keep their own values
    chunker = sb.selectbox("Chunker", list(CHUNKER_PARAMS), key=seed(k + "chunker", cfg.chunker))
    params = {}
    cols = sb.columns(2)
    for i, (name, default, lo, hi) in enumerate(CHUNKER_PARAMS[chunker]):
        value = cfg.chunker_params.get(name, default) if chunker == cfg.chunker else default
        params[name] = cols[i].number_input(name, lo, hi, key=seed(f"{k}{chunker}_{name}", int(value)))
    retriever = sb.selectbox("Retriever", RETRIEVER_NAMES, key=seed(k + "retriever", cfg.retriever))
    upd: dict[str, Any] = {"chunker": chunker, "chunker_params": params, "retriever": retriever}
    if retriever == "hybrid":
        c1, c2 = sb.columns(2)
        upd["rrf_k"] = float(c1.number_input("RRF k", 0, 1000, key=seed(k + "rrfk", int(cfg.rrf_k))))
        upd["hybrid_depth"] = int(c2.number_input("Depth", 1, 500, key=seed(k + "depth", cfg.hybrid_depth)))
        w0 = cfg.hybrid_weights.get("bm25", 1.0) / max(sum(cfg.hybrid_weights.values()), 1e-9)
        w = sb.slider("BM25 weight (dense = 1 − w)", 0.0, 1.0, step=0.05, key=seed(k + "w", round(w0, 2)))
        upd["hybrid_weights"] = {"bm25": round(w, 2), "dense": round(1 - w, 2)}
        upd["intent_routing"] = sb.toggle(
            "Intent routing (FACT/CONCEPT/COMPARISON)", key=seed(k + "intent", cfg.intent_routing)
        )
    upd["rerank"] = sb.toggle("Cross-encoder rerank", key=seed(k + "rerank", cfg.rerank))
    if upd["rerank"]:
        upd["rerank_candidates"] = int(
            sb.number_input("Rerank candidates", 1, 200, key=seed(k + "rrc", cfg.rerank_candidates))
        )
        upd["rerank_model"] = sb.text_input(
            "Cross-encoder (name or local path)", key=seed(k + "rrm", cfg.rerank_model)
        )
    llm = sb.selectbox("LLM backend", LLM_NAMES, key=seed(k + "llm", cfg.llm))
    upd["llm"] = llm
    if llm in ("groq", "ollama", "local"):
        hint = {"groq": "llama-3.3-70b-versatile", "ollama": "llama3.2", "local": "packaged Gemma 3 270M"}[
            llm
        ]
        upd["llm_model"] = (
            sb.text_input("Model", key=seed(k + "model", cfg.llm_model or ""), placeholder=hint) or None
        )
    if llm == "groq":
        sb.text_input(
            "Groq API key",
            type="password",
            key=state.GROQ_KEY,
            help="Kept in this browser session's memory only; never saved or exported.",
        )
    if llm == "ollama":
        upd["ollama_host"] = (
            sb.text_input(
                "Ollama host",
                key=seed(k + "host", cfg.ollama_host or ""),
                placeholder="http://127.0.0.1:11434",
            )
            or None
        )
    upd["top_k"] = int(sb.slider("Top-k chunks", 1, 20, key=seed(k + "topk", cfg.top_k)))
    upd["confidence_threshold"] = sb.slider(
        "Abstain below confidence", 0.0, 1.0, step=0.05, key=seed(k + "thr", cfg.confidence_threshold)
    )
    upd["no_retrieval"] = sb.toggle(
        "No-retrieval baseline (plain LLM)", key=seed(k + "noret", cfg.no_retrieval)
    )
    try:
        state.set_config(which, replace(cfg, **upd))
    except RagkitError as e:
        sb.error(str(e))
    _config_files(which)


def _config_files(which: str) -> None:
    sb = st.sidebar
    cfg = state.config(which)
    with sb.expander("Save / load / export"):
        name = st.text_input("Save as", key="save_name")
        if st.button("Save config", disabled=not name.strip()):
            configs_dir().mkdir(parents=True, exist_ok=True)
            from ragkit.store import atomic_write

            atomic_write(
                configs_dir() / f"{Path(name.strip()).name}.json",
                lambda f: f.write(replace(cfg, name=name.strip()).to_json()),
            )
            st.success(f"saved {name.strip()!r}")
        saved = saved_config_names()
        if saved:
            pick = st.selectbox("Saved configs", saved, key="load_pick")
            if st.button(f"Load into {which}"):
                try:
                    loaded = PipelineConfig.load(configs_dir() / f"{pick}.json")
                    _load_into(which, loaded)
                except RagkitError as e:
                    st.error(str(e))
        st.download_button(
            "Export JSON", cfg.to_json(), file_name=f"ragkit-config-{cfg.name}.json", mime="application/json"
        )
        up = st.file_uploader("Import JSON", type=["json"], key="import_cfg")
        if up is not None and st.button(f"Import into {which}"):
            try:
                _load_into(which, PipelineConfig.from_json(up.getvalue().decode("utf-8", "replace")))
            except RagkitError as e:
                st.error(f"{up.name}: {e}")


def _load_into(which: str, cfg: PipelineConfig) -> None:
    """Replace config ``which`` and drop its widget state so the widgets show the loaded values."""
    state.set_config(which, replace(cfg, name=which))
    prefix = f"cfg{which}_"
    for key in [k for k in st.session_state if str(k).startswith(prefix)]:
        del st.session_state[key]
    st.rerun()


def render_answer(answer: Any, store: Any, key: str, show_text: bool = True) -> None:
    """The answer with its citations, abstention notice, gauge, hit table and latency bar."""
    if show_text:
        st.markdown(answer.text)
    if answer.abstained:
        st.warning(f"Abstained: {answer.abstain_reason}")
    elif answer.mode == "rag" and answer.uncited:
        st.warning("Uncited: the answer does not cite any of the sources.")
    if answer.invalid_citations:
        st.warning(f"Citations pointing to no source: {answer.invalid_citations}")
    render_citations(answer, store)
    if answer.mode == "no_retrieval":
        st.caption("No-retrieval baseline: the plain LLM, no sources.")
        return
    col1, col2 = st.columns([1, 1])
    col1.plotly_chart(confidence_gauge(answer.confidence), key=f"{key}_gauge", width="stretch")
    col2.plotly_chart(latency_bar(answer.timings_ms), key=f"{key}_lat", width="stretch")
    st.caption(f"{answer.llm} · {answer.model} · config {answer.config_hash[:10]}")
    with st.expander(f"Retrieved chunks ({len(answer.hits)}) with every stage score"):
        st.dataframe(hit_rows(answer.hits), hide_index=True, width="stretch", key=f"{key}_hits")


def render_citations(answer: Any, store: Any) -> None:
    """One expander per cited source: its file, page and heading, the passage highlighted in its page."""
    for c in answer.citations:
        hit = answer.hits[c.n - 1]
        heading = f" · {hit.chunk.heading}" if hit.chunk.heading else ""
        with st.expander(f"[{c.n}] {c.source} · page {c.page}{heading}"):
            st.markdown(highlighted_page_html(store, hit.chunk), unsafe_allow_html=True)


def download_json(label: str, obj: Any, file_name: str, key: str) -> None:
    st.download_button(
        label,
        json.dumps(obj, indent=2, ensure_ascii=False, default=str),
        file_name=file_name,
        mime="application/json",
        key=key,
    )


def config_summary(cfg: PipelineConfig) -> str:
    parts = [f"{cfg.chunker}{cfg.chunker_params or ''}", cfg.retriever]
    if cfg.rerank:
        parts.append("rerank")
    parts += [cfg.llm + (f":{cfg.llm_model}" if cfg.llm_model else ""), f"top-{cfg.top_k}"]
    if cfg.no_retrieval:
        parts.append("no retrieval")
    return " · ".join(parts)
