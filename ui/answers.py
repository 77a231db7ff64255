"""An answer on screen: its text with citations that open their passage, the warnings, the gauge, the
latency of each stage and every stage score of every retrieved chunk (Ask and Compare)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragkit.app.charts import answer_confidence_gauge, confidence_gauge, latency_bar
from ragkit.app.presentation import (
    CITATION_CSS,
    answer_html,
    citation_block_html,
    highlighted_page_html,
    hit_rows,
    renumbered_refs,
)
from ragkit.evaluation.metrics.citations import unsupported_markers


def render_answer(
    answer: Any,
    documents: Any,
    key: str,
    show_text: bool = True,
    latency_max: float | None = None,
    gauge_title: str = "Retrieval confidence",
    compact: bool = False,
) -> None:
    """The answer (citations as links that open their passage), warnings, the cited passages, the gauge,
    the latency bar and every stage score of every retrieved chunk. ``compact`` (earlier turns of a chat)
    states the gauges and timings in one line instead of three charts: a browser draws a long chat's
    dozens of charts slowly, and the figures are the same."""
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
        warn = check.unsupported
        (st.warning if warn else st.caption)(renumbered_refs(check.summary(), mapping))
    if answer.abstained:
        st.warning(f"Abstained: {answer.abstain_reason}")
        withheld = (answer.trace or {}).get("withheld")
        if withheld:  # a refusal near the threshold can be judged only against what was held back
            with st.expander("What the reader would have said (withheld)"):
                st.caption("Not an answer: held back for the reason above, shown to judge the refusal by.")
                st.text(withheld)
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
    if compact:
        st.caption(scores_line(answer))
    else:
        _charts(answer, key, latency_max, gauge_title)
    _searched_and_notes(answer)
    with st.expander(f"Retrieved chunks ({len(answer.hits)}) with every stage score"):
        st.dataframe(
            hit_rows(answer.hits),
            hide_index=True,
            width="stretch",
            key=f"{key}_hits",
            column_config={"text": st.column_config.TextColumn("text", width="large")},
        )


def scores_line(answer: Any) -> str:
    """The gauges and the stage timings in one line (the charts' figures, for a compact turn)."""
    parts = []
    if answer.confidence is not None:
        c = answer.confidence
        kind = "calibrated probability" if c.calibration else "raw score, not calibrated"
        parts.append(f"Retrieval confidence {c.value:.2f} ({c.band}, {kind})")
    a = answer.answerability
    if a is None or a.answer_confidence is None:
        parts.append("Answer confidence not measured")
    else:
        parts.append(f"Answer confidence {a.answer_confidence:.2f} (answerability {a.value:.2f})")
    stages = [f"{k} {v:.0f}" for k, v in answer.timings_ms.items() if k not in ("total", "load")]
    parts.append(f"{answer.latency_ms:.0f} ms" + (f" ({', '.join(stages)})" if stages else ""))
    return " · ".join(parts)


def _charts(answer: Any, key: str, latency_max: float | None, gauge_title: str) -> None:
    col1, col2, col3 = st.columns([1, 1, 1])
    col1.plotly_chart(
        confidence_gauge(answer.confidence, title=gauge_title), key=f"{key}_gauge", width="stretch"
    )
    if answer.confidence is not None and answer.confidence.calibration:
        col1.caption(f"Probability that the sources hold the answer, {answer.confidence.calibration}.")
    col2.plotly_chart(answer_confidence_gauge(answer.answerability), key=f"{key}_ans", width="stretch")
    col2.caption(
        "Retrieval confidence: is the topic there? Answer confidence: how likely is this answer right "
        "(fitted on dev questions, BENCHMARKS.md)?"
    )
    col3.plotly_chart(latency_bar(answer.timings_ms, x_max=latency_max), key=f"{key}_lat", width="stretch")


def _searched_and_notes(answer: Any) -> None:
    searched = answer.trace.get("retriever")
    if answer.mode == "rag":
        follow = answer.trace.get("follow_up") or {}
        how = f" — rewritten from your question because {follow['why']}" if follow.get("rewritten") else ""
        st.caption(f"Searched for “{answer.query}”{how}" + (f" with {searched}" if searched else ""))
        if front := answer.trace.get("front_matter"):
            st.caption(
                f"Also read: the first chunk of {front['document']} (its title, byline and date), because "
                f"the question asks for a document's {front['asks']} and search had not put it among the "
                "chunks read."
            )
    for web in answer.trace.get("web", []):
        st.caption(web_note(web))
    notes = [answer.llm, answer.model, f"config {answer.config_hash[:10]}"]
    if answer.cached_stages:
        notes.append(f"served from cache: {', '.join(answer.cached_stages)} (not a fair latency sample)")
    if answer.timings_ms.get("load", 0) > 50:
        notes.append(f"model load {answer.timings_ms['load']:.0f} ms (not counted in the total)")
    st.caption(" · ".join(notes))


def web_note(web: dict) -> str:
    """One line on a web answer's pages: how many, how many from earlier turns, what the filter removed."""
    fetched, earlier = web.get("fetched", []), web.get("from_earlier_turns", [])
    line = f"Web: {len(fetched)} pages searched"
    if earlier:
        line += f", {len(earlier)} of them fetched for earlier questions in this chat"
    if web.get("errors"):
        line += f"; {len(web['errors'])} could not be fetched"
    cf = web.get("content_filter")
    if cf:
        line += f"; the content filter removed {100 * cf['removed_share']:.0f} % of their text" + (
            f" (e.g. “{cf['examples'][0]}”)" if cf.get("examples") else ""
        )
    return line


def citation_check(answer: Any) -> Any:
    """The answer's citation check (offline, on the check's own embedding model), computed once and
    kept with the answer; None for an abstention or a no-retrieval answer."""
    if answer.abstained or answer.mode != "rag" or not answer.hits:
        return None
    from ragkit.evaluation.metrics.citations import CHECK_MODEL, annotate
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
