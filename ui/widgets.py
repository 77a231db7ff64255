"""Shared widgets: the collection picker, the sidebar pipeline panel, progress panels, and the answer
renderers used by Ask and Compare."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import streamlit as st

from ragkit.app.charts import confidence_gauge, latency_bar
from ragkit.app.presentation import (
    CITATION_CSS,
    answer_html,
    citation_block_html,
    highlighted_page_html,
    hit_rows,
    renumbered_refs,
    safe_markdown,
)
from ragkit.app.workspace import remember_collection
from ragkit.core.errors import ConfigError, RagkitError
from ragkit.core.progress import StageClock
from ragkit.evaluation.citations_check import unsupported_markers
from ragkit.index.collections import Collection, default_root, list_collections
from ragkit.pipeline.config import LLM_NAMES, RETRIEVER_NAMES, PipelineConfig
from ui import state

#: chunker parameter widgets: (name, default, min, max)
CHUNKER_PARAMS = {
    "sliding": [("size", 500, 1, 100_000), ("overlap", 100, 0, 99_999)],
    "sentence": [("n", 3, 1, 200), ("overlap", 0, 0, 199)],
    "markdown": [("min_chars", 100, 0, 20_000), ("max_chars", 2000, 0, 100_000), ("overlap", 0, 0, 99_999)],
}
PROMPT_STYLE_HELP = {
    "numbered": "[n] file p.3 blocks, cite [n]",
    "plain": "the context as plain text; answer only from it",
    "context-i": "'Context i:' blocks in triple quotes; asks for a code example",
    "xml": "<source id url relevance> blocks; cite sources as Markdown links",
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
    for p in sorted(SHIPPED_CONFIGS.glob("*.json")) + sorted(SHIPPED_CONFIGS.glob("presets/*.json")):
        try:
            out.setdefault(p.stem, PipelineConfig.load(p))
        except RagkitError:
            continue
    return {k: replace(v, name=k) for k, v in out.items()}


def active_collection() -> Collection | None:
    return state.active()


# ------------------------------------------------------------------ collection


def collection_picker() -> None:
    """Choose or create the collection every page works on; restores its saved workspace.

    The active collection comes from a pending "Create", else the session, else the link (``?collection=``),
    else the one used last, else the first. It is set before the selectbox exists (setting a widget's state
    after it exists is what crashed "Create" before).
    """
    ss = st.session_state
    names = list_collections()
    pending = ss.pop(state.PENDING_COLLECTION, None)
    if pending in names:
        ss[state.COLLECTION] = pending
    if ss.get(state.COLLECTION) not in names:
        from ragkit.app.workspace import last_collection

        wanted = st.query_params.get("collection")
        last = last_collection(default_root())
        ss[state.COLLECTION] = (
            wanted if wanted in names else last if last in names else (names[0] if names else None)
        )
    current = ss.get(state.COLLECTION)
    if current and ss.get(state.RESTORED_FOR) != current:
        state.restore(current)
    if names:
        st.sidebar.selectbox("Collection", names, key=state.COLLECTION)
        st.query_params["collection"] = current
        remember_collection(default_root(), current)
        from ragkit.index.vectorstores.base import describe_store

        st.sidebar.caption(f"Vectors in {describe_store(Collection(current).store)}")
    else:
        st.sidebar.info("No collection yet: create one to upload documents.")
    with st.sidebar.form("new_collection", clear_on_submit=True, border=False):
        new = st.text_input("New collection", placeholder="e.g. papers")
        where = st.selectbox(
            "Vectors in",
            list(STORE_CHOICES),
            help="Local files (FAISS), Qdrant's engine embedded in this process, or a Qdrant server or "
            "cluster by URL (its API key from $QDRANT_API_KEY, never stored). Fixed per collection.",
        )
        uri = st.text_input("Qdrant server URL", placeholder="http://localhost:6333 (server only)")
        if st.form_submit_button("Create") and new.strip():
            try:
                from ragkit.index.vectorstores.base import store_spec

                kind = STORE_CHOICES[where]
                if kind == "qdrant-server" and not uri.strip():
                    raise ConfigError("a Qdrant server collection needs the server's URL")
                spec = store_spec("qdrant", uri.strip() or None) if kind != "local" else None
                Collection.create(new.strip(), store=spec)
                ss[state.PENDING_COLLECTION] = new.strip()
                st.rerun()
            except RagkitError as e:
                st.error(str(e))


#: the sidebar's store choices -> store kinds (``qdrant-server`` becomes ``qdrant`` with a URL)
STORE_CHOICES = {
    "local files (FAISS)": "local",
    "Qdrant, embedded": "qdrant",
    "Qdrant server (URL)": "qdrant-server",
}


# ------------------------------------------------------------------ pipeline panel


def seed(key: str, value: Any) -> str:
    """Give a widget its starting value through session state (once), so it is created without a default
    argument (a default that follows other state would change the widget's identity and reset it)."""
    if key not in st.session_state:
        st.session_state[key] = value
    return key


def _show(key: str, value: Any) -> str:
    """Make the widget ``key`` show ``value`` (the config's), set before the widget is built in this run."""
    st.session_state[key] = value
    return key


def _change(which: str, field: str, key: str, convert: Callable[[Any], Any] = lambda v: v) -> None:
    """``on_change``: the user changed a widget; apply it to config ``which`` (a rejected value leaves the
    config as it was and says why)."""
    cfg = state.config(which)
    value = convert(st.session_state[key])
    try:
        if field.startswith("chunker_params."):
            name = field.split(".", 1)[1]
            new = replace(cfg, chunker_params={**cfg.chunker_params, name: value})
        elif field == "chunker":
            new = replace(cfg, chunker=value, chunker_params={})
        elif field == "bm25_weight":
            new = replace(cfg, hybrid_weights={"bm25": round(value, 2), "dense": round(1 - value, 2)})
        else:
            new = replace(cfg, **{field: value})
        state.set_config(which, new)
    except RagkitError as e:
        st.session_state[state.CONFIG_ERROR] = str(e)


def _optional(v: Any) -> Any:
    return (v or "").strip() or None


def pipeline_panel() -> None:
    """Edit configuration A or B; save, load, export and import configs as JSON."""
    state.init()
    sb = st.sidebar
    sb.subheader("Pipeline")
    _preset_picker()
    which = sb.radio(
        "Editing",
        ["A", "B"],
        horizontal=True,
        key=seed(state.EDITING, "A"),
        help="Ask uses A; Compare runs A and B side by side",
    )
    cfg = state.config(which)
    k = f"cfg{which}_"  # widget keys per config so A and B keep their own values

    def on(field: str, key: str, convert: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
        return {"key": key, "on_change": _change, "args": (which, field, key, convert)}

    sb.selectbox("Chunker", list(CHUNKER_PARAMS), **on("chunker", _show(k + "chunker", cfg.chunker)))
    params = CHUNKER_PARAMS[cfg.chunker]
    cols = sb.columns(len(params))
    for i, (name, default, lo, hi) in enumerate(params):
        key = _show(f"{k}{cfg.chunker}_{name}", int(cfg.chunker_params.get(name, default)))
        cols[i].number_input(name, lo, hi, **on(f"chunker_params.{name}", key, int))
    if cfg.chunker == "markdown":
        sb.toggle(
            "Code blocks as their own chunks",
            help="Every fenced or <pre><code> block becomes a chunk, never merged with prose.",
            **on(
                "chunker_params.separate_code",
                _show(k + "sepcode", bool(cfg.chunker_params.get("separate_code"))),
            ),
        )
    sb.selectbox("Retriever", RETRIEVER_NAMES, **on("retriever", _show(k + "retriever", cfg.retriever)))
    if cfg.retriever == "hybrid":
        c1, c2 = sb.columns(2)
        c1.number_input("RRF k", 0, 1000, **on("rrf_k", _show(k + "rrfk", int(cfg.rrf_k)), float))
        c2.number_input("Depth", 1, 5000, **on("hybrid_depth", _show(k + "depth", cfg.hybrid_depth), int))
        w0 = cfg.hybrid_weights.get("bm25", 1.0) / max(sum(cfg.hybrid_weights.values()), 1e-9)
        sb.slider(
            "BM25 weight (dense = 1 − w)",
            0.0,
            1.0,
            step=0.05,
            **on("bm25_weight", _show(k + "w", round(w0, 2))),
        )
        sb.toggle(
            "Intent routing (FACT/CONCEPT/COMPARISON)",
            **on("intent_routing", _show(k + "intent", cfg.intent_routing)),
        )
    sb.toggle("Cross-encoder rerank", **on("rerank", _show(k + "rerank", cfg.rerank)))
    if cfg.rerank:
        sb.number_input(
            "Rerank candidates",
            1,
            1000,
            **on("rerank_candidates", _show(k + "rrc", cfg.rerank_candidates), int),
        )
        sb.text_input(
            "Cross-encoder (name or local path)", **on("rerank_model", _show(k + "rrm", cfg.rerank_model))
        )
    sb.selectbox("LLM backend", LLM_NAMES, **on("llm", _show(k + "llm", cfg.llm)))
    if cfg.llm in ("groq", "ollama", "local"):
        hint = {"groq": "llama-3.3-70b-versatile", "ollama": "llama3.2", "local": "packaged Gemma 3 270M"}[
            cfg.llm
        ]
        sb.text_input(
            "Model", placeholder=hint, **on("llm_model", _show(k + "model", cfg.llm_model or ""), _optional)
        )
    if cfg.llm == "groq":
        sb.text_input(
            "Groq API key",
            type="password",
            key=state.GROQ_KEY,
            help="Kept in this browser session's memory only; never saved or exported.",
        )
    if cfg.llm == "ollama":
        sb.text_input(
            "Ollama host",
            placeholder="http://127.0.0.1:11434",
            **on("ollama_host", _show(k + "host", cfg.ollama_host or ""), _optional),
        )
    if cfg.llm == "openai":
        sb.text_input(
            "Server base URL",
            placeholder="http://127.0.0.1:8000/v1 (blank: OpenAI)",
            **on("openai_base_url", _show(k + "baseurl", cfg.openai_base_url or ""), _optional),
        )
        sb.text_input(
            "API key",
            type="password",
            key=state.OPENAI_KEY,
            help="Kept in this browser session's memory only; a local server usually needs none.",
        )
    sb.number_input("Top-k chunks", 1, 1000, **on("top_k", _show(k + "topk", cfg.top_k), int))
    sb.slider(
        "Abstain below confidence",
        0.0,
        1.0,
        step=0.05,
        **on("confidence_threshold", _show(k + "thr", float(cfg.confidence_threshold))),
    )
    if cfg.confidence_calibration:
        from ragkit.pipeline.calibration import CalibrationMap

        sb.caption("Gauge " + CalibrationMap.from_dict(cfg.confidence_calibration).describe() + ".")
        if sb.button("Use the raw gauge", key=k + "uncal", help="Drop the calibration map from this config."):
            state.set_config(which, replace(cfg, confidence_calibration=None))
            st.rerun()
    else:
        sb.caption("Gauge not calibrated: a score, not a probability (calibrate it on the Evaluate page).")
    sb.toggle(
        "No-retrieval baseline (plain LLM)",
        disabled=cfg.llm == "extractive",
        help="Needs a language model: the extractive backend only quotes retrieved sentences."
        if cfg.llm == "extractive"
        else "Ask the LLM without any retrieved context.",
        **on("no_retrieval", _show(k + "noret", cfg.no_retrieval)),
    )
    _stages_panel(which, cfg, on)
    error = st.session_state.pop(state.CONFIG_ERROR, None)
    if error:
        sb.error(error)
    _config_files(which)


def _stages_panel(which: str, cfg: PipelineConfig, on: Callable[..., dict[str, Any]]) -> None:
    """Prompt style and template, the fallback sentence, and the optional stages of config ``which``."""
    k = f"cfg{which}_"
    with st.sidebar.expander("Prompt and extra stages"):
        st.selectbox(
            "Prompt style",
            list(PROMPT_STYLE_HELP),
            format_func=lambda s: f"{s} — {PROMPT_STYLE_HELP[s]}",
            **on("prompt_style", _show(k + "style", cfg.prompt_style)),
        )
        st.text_input("Fallback answer", **on("fallback_answer", _show(k + "fallback", cfg.fallback_answer)))
        st.toggle(
            "Relevance grader + one rewrite",
            help="Grade each retrieved chunk (LLM yes/no, or offline: cross-encoder / cosine); when none "
            "passes, rewrite the query once and retrieve again.",
            **on("relevance_grader", _show(k + "grader", cfg.relevance_grader)),
        )
        if cfg.relevance_grader:
            st.slider(
                "Offline grader threshold (cosine)",
                0.0,
                1.0,
                step=0.05,
                **on("grader_threshold", _show(k + "gthr", float(cfg.grader_threshold))),
            )
        st.number_input(
            "Query expansion: alternative queries (0 = off; needs an LLM)",
            0,
            5,
            **on("query_expansion", _show(k + "expand", cfg.query_expansion), int),
        )
        st.number_input(
            "Context budget in tokens (0 = no budget)",
            0,
            1_000_000,
            step=512,
            **on("context_tokens", _show(k + "budget", cfg.context_tokens or 0), lambda v: int(v) or None),
        )
        st.toggle(
            "Answer from the web (SearXNG)",
            help="Search a SearXNG instance, fetch the top pages, and retrieve from them (cached by URL).",
            **on("web_search", _show(k + "web", cfg.web_search)),
        )
        if cfg.web_search:
            st.text_input(
                "SearXNG instance URL",
                placeholder="http://127.0.0.1:8888 (or SEARXNG_URL)",
                **on("searxng_url", _show(k + "searx", cfg.searxng_url or ""), _optional),
            )
            st.number_input(
                "Result pages", 1, 20, **on("web_results", _show(k + "wres", cfg.web_results), int)
            )
            st.toggle(
                "LLM writes the search queries",
                **on("web_query_enhancement", _show(k + "wenh", cfg.web_query_enhancement)),
            )
        if cfg.retriever in ("bm25", "hybrid"):
            from ragkit.retrievers.analyzer import LANGUAGES
            from ragkit.retrievers.bm25 import BM25_ENGINES

            st.selectbox(
                "BM25 language", LANGUAGES, **on("bm25_language", _show(k + "lang", cfg.bm25_language))
            )
            st.selectbox(
                "BM25 engine",
                BM25_ENGINES,
                help="bm25s: sparse index, state saved with the index; rank_bm25: the reference (slow on "
                "large collections). Same scores.",
                **on("bm25_engine", _show(k + "bm25eng", cfg.bm25_engine)),
            )
        if cfg.retriever in ("dense", "hybrid"):
            from ragkit.retrievers.dense import DENSE_INDEXES, HNSW_FROM

            st.selectbox(
                "Dense search",
                DENSE_INDEXES,
                help=f"flat: exact; hnsw: approximate, much faster on big collections; auto: HNSW from "
                f"{HNSW_FROM:,} chunks.",
                **on("dense_index", _show(k + "dindex", cfg.dense_index)),
            )
        use = st.toggle(
            "Own prompt template",
            value=cfg.prompt_template is not None,
            key=f"{k}use_template_{cfg.prompt_template is not None}",
            help="System and user text with {sources}, {question} and {history}.",
        )
        if use:
            current = cfg.prompt_template or {}
            from ragkit.pipeline.prompts import STYLE_TEXTS

            default_system, default_user = STYLE_TEXTS[cfg.prompt_style]
            with st.form(f"{k}template_form", border=False):
                system = st.text_area("System", current.get("system", default_system), height=140)
                user = st.text_area("User", current.get("user", default_user), height=90)
                if st.form_submit_button("Apply template"):
                    _set_field(which, "prompt_template", {"system": system, "user": user})
        elif cfg.prompt_template is not None:
            _set_field(which, "prompt_template", None)


def _set_field(which: str, field: str, value: Any) -> None:
    try:
        state.set_config(which, replace(state.config(which), **{field: value}))
        st.rerun()
    except RagkitError as e:
        st.session_state[state.CONFIG_ERROR] = str(e)


def _preset_picker() -> None:
    """Load a shipped preset into A or B; what cannot run here is swapped (and said)."""
    from ragkit.pipeline.presets import load_preset, preset_names, runnable_here

    sb = st.sidebar
    names = preset_names()
    c1, c2, c3 = sb.columns([3, 1, 1], vertical_alignment="bottom")
    pick = c1.selectbox("Preset", ["(choose)", *names], key="preset_pick")
    for col, which in ((c2, "A"), (c3, "B")):
        if col.button(
            which, key=f"preset_to_{which}", disabled=pick == "(choose)", help=f"Load into {which}"
        ):
            try:
                cfg, notes = runnable_here(load_preset(pick), state.groq_key() or state.get(state.OPENAI_KEY))
                state.set_config(which, replace(cfg, name=which))
                st.session_state[state.PRESET_NOTES] = [f"Loaded preset {pick} into {which}.", *notes]
                st.rerun()
            except RagkitError as e:
                sb.error(str(e))
    for note in st.session_state.get(state.PRESET_NOTES, []):
        sb.caption(note)


def _config_files(which: str) -> None:
    sb = st.sidebar
    cfg = state.config(which)
    with sb.expander("Save / load / export"):
        name = st.text_input("Save as", key="save_name")
        if st.button("Save config", disabled=not name.strip()):
            configs_dir().mkdir(parents=True, exist_ok=True)
            from ragkit.core.files import atomic_write

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
                    _load_into(which, PipelineConfig.load(configs_dir() / f"{pick}.json"))
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
    """Replace config ``which``; the widgets show it on the rerun (they always show the config)."""
    state.set_config(which, replace(cfg, name=which))
    st.rerun()


# ------------------------------------------------------------------ progress


@contextlib.contextmanager
def progress_panel(label: str, expanded: bool = True) -> Iterator[Callable[[str, int, int], None]]:
    """A visible ``st.status`` with a progress bar; yields ``progress(stage, done, total)`` that shows the
    stage, the count, the rate and an ETA ("embed: 120/400 chunks · 35.1/s · ETA 8 s")."""
    clock = StageClock()
    with st.status(label, expanded=expanded) as status:
        bar = st.progress(0.0, text="starting…")

        def update(stage: str, done: int, total: int) -> None:
            bar.progress(min(done / max(total, 1), 1.0), text=clock.line(stage, done, total))

        try:
            yield update
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


# ------------------------------------------------------------------ answers


def render_answer(
    answer: Any,
    documents: Any,
    key: str,
    show_text: bool = True,
    latency_max: float | None = None,
    gauge_title: str = "Retrieval confidence",
) -> None:
    """The answer (citations as links that open their passage), warnings, the cited passages, the gauge,
    the latency bar and every stage score of every retrieved chunk."""
    st.markdown(CITATION_CSS, unsafe_allow_html=True)
    style = getattr(answer, "prompt_style", "numbered")
    check = citation_check(answer)
    flags = unsupported_markers(answer.text, check) if check is not None else []
    html, mapping = answer_html(
        answer.text, len(answer.hits), key, style, [c.n for c in answer.citations], flags
    )
    if show_text:
        st.markdown(html, unsafe_allow_html=True)
    if check is not None and check.sentences:
        (st.warning if check.unsupported else st.caption)(renumbered_refs(check.summary(), mapping))
    if answer.abstained:
        st.warning(f"Abstained: {answer.abstain_reason}")
    elif answer.mode == "rag" and answer.uncited:
        st.warning("Uncited: the answer does not cite any of the sources.")
    if answer.invalid_citations:
        st.warning(f"Citations pointing to no source: {answer.invalid_citations}")
    render_citations(answer, documents, key, mapping)
    if answer.trace:
        with st.expander("Pipeline trace (grades, rewrite, expansion, context budget)"):
            st.json(answer.trace, expanded=2)
    if answer.mode == "no_retrieval":
        st.caption("No-retrieval baseline: the plain LLM, no sources.")
        return
    col1, col2 = st.columns([1, 1])
    col1.plotly_chart(
        confidence_gauge(answer.confidence, title=gauge_title), key=f"{key}_gauge", width="stretch"
    )
    if answer.confidence is not None and answer.confidence.calibration:
        col1.caption(f"Probability that the sources hold the answer, {answer.confidence.calibration}.")
    col2.plotly_chart(latency_bar(answer.timings_ms, x_max=latency_max), key=f"{key}_lat", width="stretch")
    notes = [answer.llm, answer.model, f"config {answer.config_hash[:10]}"]
    if answer.cached_stages:
        notes.append(f"served from cache: {', '.join(answer.cached_stages)} (not a fair latency sample)")
    if answer.timings_ms.get("load", 0) > 50:
        notes.append(f"model load {answer.timings_ms['load']:.0f} ms (not counted in the total)")
    st.caption(" · ".join(notes))
    with st.expander(f"Retrieved chunks ({len(answer.hits)}) with every stage score"):
        st.dataframe(
            hit_rows(answer.hits),
            hide_index=True,
            width="stretch",
            key=f"{key}_hits",
            column_config={"text": st.column_config.TextColumn("text", width="large")},
        )


def citation_check(answer: Any) -> Any:
    """The answer's citation check (offline, on the check's own embedding model), computed once and
    kept with the answer; None for an abstention or a no-retrieval answer."""
    if answer.abstained or answer.mode != "rag" or not answer.hits:
        return None
    from ragkit.evaluation.citations_check import CHECK_MODEL, annotate
    from ui import resources

    return annotate(answer, resources.embedder(CHECK_MODEL))


def render_citations(answer: Any, documents: Any, key: str, mapping: dict[int, int] | None = None) -> None:
    """The cited sources, numbered in the order the answer cites them; each opens its passage,
    highlighted in its page, when its label or the answer's ``[n]`` is clicked."""
    if mapping is None:
        style = getattr(answer, "prompt_style", "numbered")
        _, mapping = answer_html(answer.text, len(answer.hits), key, style, [c.n for c in answer.citations])
    blocks = []
    for old, new in sorted(mapping.items(), key=lambda kv: kv[1]):
        if not 0 < old <= len(answer.hits):
            continue
        hit = answer.hits[old - 1]
        heading = f" · {hit.chunk.heading}" if hit.chunk.heading else ""
        url = str(hit.chunk.metadata.get("url") or "")
        where = (
            hit.chunk.metadata.get("title") or hit.chunk.source
            if url
            else f"{hit.chunk.source} · page {hit.chunk.page}"
        )
        label = f"[{new}] {where}{heading}"
        blocks.append(
            citation_block_html(key, new, label, highlighted_page_html(documents, hit.chunk), url=url or None)
        )
    if blocks:
        st.markdown("".join(blocks), unsafe_allow_html=True)


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
    return " · ".join(parts)


def text_md(text: str) -> str:
    """Document-derived text for ``st.markdown``: nothing in it is fetched or rendered as HTML."""
    return safe_markdown(text)
