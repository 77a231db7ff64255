"""Evaluate page, Generate tab: write questions from the active collection's documents (offline or with
config A's LLM), review them in a table (keep, edit, reject; the passage shown with its evidence), and
save the accepted ones with the collection for the Run and Sweep tabs."""

from __future__ import annotations

import html
import os
import time

import pandas as pd
import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.metrics.citations import CHECK_MODEL
from ragkit.evaluation.questiongen import (
    DEFAULT_MIX,
    METHODS,
    TYPES,
    GenerationReport,
    QuestionGenerator,
    cache_path,
    critique,
    estimate,
    save_question_set,
)
from ragkit.evaluation.questiongen.generator import measured_agreement
from ragkit.evaluation.questiongen.review import Decision, apply_review, marked_passages
from ragkit.evaluation.questiongen.store import load_draft, question_set_path, questions_dir, save_draft
from ragkit.llms import LLMS, llm_from_config
from ui import resources, state, widgets

REPORT = "gen_report"  # the GenerationReport being reviewed, as a dict
REVISION = "_gen_revision"  # how many review decisions were applied
PICKED = "_gen_picked"  # the question under review
RUNNING = ".generating"  # exists while a generation runs in this collection; holds the server's pid


def _llm():
    cfg = state.config("A")
    if not LLMS.component(cfg.llm).generative:
        raise RagkitError(
            f"config A's LLM backend is {cfg.llm!r}, which writes no text: choose groq, ollama, openai or "
            "local in the sidebar (or use the offline method)"
        )
    return llm_from_config(cfg, api_key=state.api_key(cfg)), cfg


def _mix(method: str) -> dict[str, float]:
    if method != "llm":
        return {"factual": 1.0}
    cols = st.columns(len(TYPES))
    mix = {}
    for col, (t, label) in zip(cols, TYPES.items(), strict=True):
        mix[t] = col.number_input(
            label, min_value=0.0, step=0.1, key=widgets.seed(f"gen_mix_{t}", DEFAULT_MIX[t])
        )
    return mix


def _run(collection, documents, method: str, n: int, mix: dict[str, float], seed: int) -> None:
    llm = _llm()[0] if method == "llm" else None
    emb = resources.embedder(CHECK_MODEL)
    gen = QuestionGenerator(
        documents,
        method,
        llm=llm,
        embedder=emb,
        mix=mix,
        seed=seed,
        cache_path=cache_path(collection),
    )
    bar = st.progress(0.0, text="Sampling passages…")
    started = time.perf_counter()

    def progress(stage: str, done: int, total: int) -> None:
        spent = time.perf_counter() - started
        eta = f" · about {spent / done * (total - done):.0f} s left" if done and stage == "questions" else ""
        bar.progress(min(done / max(total, 1), 1.0), text=f"{stage}: {done}/{total}{eta}")

    running = questions_dir(collection) / RUNNING  # the rerun a "Stop" starts waits for it to go
    running.parent.mkdir(parents=True, exist_ok=True)
    running.write_text(str(os.getpid()), encoding="utf-8")
    try:
        report = gen.run(n, progress)
    except RagkitError:
        raise
    except BaseException:  # "Stop" (any click) stops the script here: keep what was made, critiqued
        report = gen.report
        report.status = "cancelled"
        report.questions = critique(report.questions, emb)
        save_draft(collection, report)  # only the file: Streamlit refuses state changes of a stopped run
        raise
    finally:
        running.unlink(missing_ok=True)
    save_draft(collection, report)
    st.session_state[PICKED] = 0
    bar.empty()


def _wait_for_stopped_run(collection, timeout_s: float = 60.0) -> None:
    """After "Stop", the interrupted run still critiques and keeps what it made (Streamlit starts this
    rerun without waiting for it): wait until it is done, so the set shows now."""
    running = questions_dir(collection) / RUNNING
    if not _ours(running):
        return  # left by a server that crashed mid-run, or another server's run: nothing here to wait for
    deadline = time.monotonic() + timeout_s
    with st.spinner("Stopping: keeping the questions made so far…"):
        while running.exists() and time.monotonic() < deadline:
            time.sleep(0.2)


def _ours(marker) -> bool:
    """Whether the running-marker was written by this server process (a Stop only stops its runs)."""
    try:
        return marker.read_text(encoding="utf-8").strip() == str(os.getpid())
    except OSError:
        return False


def _current(collection) -> GenerationReport | None:
    """The set under review in this collection: the draft kept with it (the latest any session made;
    a reload, another tab, or the rerun after a stopped run finds it), mirrored in this session."""
    draft = load_draft(collection)
    if draft is None:
        st.session_state.pop(REPORT, None)
        return None
    st.session_state[REPORT] = draft.to_dict()
    return draft


def _table(report: GenerationReport) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "#": range(1, len(report.questions) + 1),
            "status": [q.status + (" (edited)" if q.edited else "") for q in report.questions],
            "type": [q.qtype for q in report.questions],
            "question": [q.question for q in report.questions],
            "answer": [q.answer for q in report.questions],
            "why rejected": [q.reason for q in report.questions],
            "source": [", ".join(dict.fromkeys(p[0] for p in q.passages)) for q in report.questions],
        }
    )


def _passages_html(q, documents) -> None:
    for pieces, where in zip(marked_passages(q, documents), q.passages, strict=False):
        body = "".join(f"<mark>{html.escape(t)}</mark>" if marked else html.escape(t) for t, marked in pieces)
        st.caption(f"{where[0]} · page {where[1]} (evidence highlighted)")
        st.markdown(f"<div class='gen-passage'>{body.replace(chr(10), '<br>')}</div>", unsafe_allow_html=True)


def _edit_one(collection, report: GenerationReport, documents) -> None:
    """One question at a time: its passage with the evidence marked, and its fields to edit."""
    # the labels change with every decision: a new key per revision redraws them (a kept key would show
    # the old ones), and the picked question is carried over by index
    revision = st.session_state.get(REVISION, 0)
    picked = min(st.session_state.get(PICKED, 0), len(report.questions) - 1)
    i = st.selectbox(
        "Review question",
        range(len(report.questions)),
        index=picked,
        format_func=lambda k: f"{k + 1}. [{report.questions[k].status}] {report.questions[k].question[:90]}",
        key=f"gen_pick_{revision}",
    )
    st.session_state[PICKED] = i
    q = report.questions[i]
    _passages_html(q, documents)
    with st.form(f"gen_edit_{i}_{q.qid}"):
        question = st.text_input("Question", value=q.question)
        answer = st.text_input("Gold answer", value=q.answer, disabled=q.absent)
        evidence = st.text_area(
            "Evidence (a quote of the passage; two-passage questions: one per line)",
            value="\n".join(" ".join(x.split()) for x in q.evidence_text),  # one line per quote
            disabled=q.absent,
        )
        keep = st.radio(
            "Decision", ["keep", "reject"], index=0 if q.status == "accepted" else 1, horizontal=True
        )
        if st.form_submit_button("Apply"):
            quotes = tuple(x for x in evidence.splitlines() if x.strip()) if not q.absent else q.evidence_text
            decision = Decision(keep == "keep", question, answer if not q.absent else q.answer, quotes)
            try:
                save_draft(collection, apply_review(report, {i: decision}, documents))
                st.session_state[REVISION] = revision + 1
                st.rerun()
            except RagkitError as e:
                st.error(str(e))


def _review(collection, documents, report: GenerationReport) -> None:
    acc = report.acceptance()
    calls = f" · {report.calls} LLM calls, {report.cached} cached, {report.tokens:,} tokens"
    st.markdown(
        f"**{acc['accepted']} of {acc['attempts']} accepted**"
        + (" · **cancelled**: what was made is kept" if report.status == "cancelled" else "")
        + (f" · {report.status}" if report.status.startswith("stopped") else "")
        + (calls if report.calls or report.cached else "")
    )
    reasons = {f"rejected: {r}": n for r, n in acc["rejected"].items()}
    reasons.update({report.failure_label(r): n for r, n in acc["failed_replies"].items()})
    if reasons:
        st.dataframe(
            pd.DataFrame({"reason": list(reasons), "questions": list(reasons.values())}), hide_index=True
        )
        for r, example in report.failure_examples.items():
            st.caption(f"{report.failure_label(r)}, e.g.: {example[:200]}")
    if report.bias_note:
        st.warning(report.bias_note)
    st.dataframe(_table(report), hide_index=True, width="stretch", key="gen_table")
    if report.questions:
        _edit_one(collection, report, documents)
    c1, c2 = st.columns([3, 1])
    name = c1.text_input("Save as", key=widgets.seed("gen_save_name", "generated"))
    if c2.button("Save with the collection", type="primary", key="gen_save"):
        try:
            replaced = question_set_path(collection, name).is_file()
            path = save_question_set(collection, name, report)
            st.success(
                f"Saved {len(report.accepted)} questions as {path.name}"
                + (" (replacing the set saved under that name)" if replaced else "")
                + ": pick 'A question set saved with the active collection' on the Run or Sweep tab."
            )
        except RagkitError as e:
            st.error(str(e))


def generate_tab(collection) -> None:
    """The Generate tab."""
    documents = collection.documents() if collection is not None else []
    if not documents:
        st.info("Questions are written from a collection's documents: upload some on the Documents page.")
        return
    st.caption(
        "Passages are sampled from every document (and every part of long ones), one question per "
        "passage, with its evidence as a character span — so the set scores every chunker. A critique "
        "rejects questions that are not standalone, copy their evidence, are not supported by it, or "
        "repeat another."
    )
    method = st.radio("Method", list(METHODS), format_func=METHODS.get, key="gen_method")
    st.caption(measured_agreement(method))
    c1, c2 = st.columns(2)
    n = int(c1.number_input("Questions", min_value=1, max_value=500, key=widgets.seed("gen_n", 20)))
    seed = int(c2.number_input("Seed (which passages)", min_value=0, key=widgets.seed("gen_seed", 0)))
    mix = _mix(method)
    if method == "llm":
        cfg = state.config("A")
        est = estimate(n, method, mix)
        st.info(
            f"{est['llm_calls']} calls to config A's backend ({cfg.llm} {cfg.llm_model or ''}), about "
            f"{est['tokens']:,} tokens (one per question, one more per unanswerable question to check that "
            "the collection does not answer it); replies already generated for the same prompt are reused."
        )
    go, stop = st.columns([1, 1])
    start = go.button("Generate", type="primary", key="gen_start")
    if stop.button("Stop (keeps what was made)", key="gen_stop"):  # any click interrupts a run
        _wait_for_stopped_run(collection)
    if start:
        try:
            _run(collection, documents, method, n, mix, seed)
        except RagkitError as e:
            st.error(str(e))
    report = _current(collection)
    if report is not None:
        _review(collection, documents, report)
