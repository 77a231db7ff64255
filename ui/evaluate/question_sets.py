"""The question-set picker shared by Evaluate's Run and Sweep tabs: an upload, the collection's labels, a
set saved with the collection (generated and reviewed), or a path (BEIR folder, SQuAD .json,
.csv/.jsonl)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from ragkit.app.presentation import problem_line
from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.questionsets import QuestionSet, load_question_set
from ragkit.evaluation.questiongen import load_report, saved_question_sets
from ui import widgets

SOURCES = {
    "upload": "Upload a CSV/JSONL (over the active collection)",
    "labels": "Labels saved with the active collection",
    "saved": "A question set saved with the active collection (Generate tab)",
    "path": "A path: BEIR folder, SQuAD .json, or .csv/.jsonl",
}


def _upload_key(upload) -> str:
    return hashlib.sha256(upload.getvalue()).hexdigest()[:16]


def check_upload(upload, collection, prefix: str) -> None:
    """Check an uploaded question file against the collection at once: how many rows run, and every row
    set aside with why and the nearest passage, each with a button that uses that passage instead."""
    fixes = st.session_state.setdefault(f"{prefix}_fixes", {}).setdefault(_upload_key(upload), {})
    try:
        qset = load_question_set(
            text=upload.getvalue().decode("utf-8-sig", "replace"), filename=upload.name,
            collection=collection, fixes=fixes,
        )  # fmt: skip
    except RagkitError as e:
        st.error(str(e))
        return
    if not qset.problems:
        st.caption(f"{qset.n} questions, every one ready to run.")
        return
    st.warning(f"{qset.n} questions ready to run; {len(qset.problems)} set aside until fixed:")
    for i, p in enumerate(qset.problems):
        st.markdown("- " + widgets.text_md(problem_line(p)))
        near = p.get("nearest")
        label = f"Use the nearest passage for question {p['qid']}"
        if near and p.get("quote") and st.button(label, key=f"{prefix}_fix_{i}"):
            fixes.setdefault(p["qid"], {})[p["quote"]] = near["text"]
            st.rerun()


def pick_question_set(collection, prefix: str) -> Callable[[], QuestionSet]:
    """Draw the picker (widget keys start with ``prefix``); returns the loader to call on "Run"."""
    source = st.radio("Question set", list(SOURCES), format_func=SOURCES.get, key=f"{prefix}_source")
    upload, path, holdout = None, "", 0.0
    if source == "upload":
        upload = st.file_uploader(
            "Columns: question; optional gold_answer, relevant_sources (file names, several separated by "
            "';'), evidence (quotes of the passages that answer it, several separated by '|'), id, and "
            "follows (the id or row number of the question a follow-up continues)",
            type=["csv", "jsonl"],
            key=f"{prefix}_upload",
        )
        if upload is not None and collection is not None:
            check_upload(upload, collection, prefix)
    elif source == "saved":
        files = saved_question_sets(collection) if collection is not None else []
        names = [f.name for f in files]
        saved = st.selectbox("Saved question set", names, key=f"{prefix}_saved") if names else None
        if not names:
            st.caption("Nothing saved yet: generate and save a set on the Generate tab.")
        elif (rep := load_report(files[names.index(saved)])) is not None and rep.bias_note:
            st.caption(f"Made by the {rep.method} method. {rep.bias_note}")
        path = str(files[names.index(saved)]) if saved else ""
    elif source == "path":
        path = st.text_input(
            "Path", key=f"{prefix}_path", placeholder="../shared/evaldata/xquad_en/xquad.en.json"
        )
        holdout = st.number_input(
            "SQuAD: share of paragraphs held out of the index (their questions test 'I don't know')",
            min_value=0.0,
            max_value=0.5,
            step=0.05,
            key=widgets.seed(f"{prefix}_holdout", 0.0),
        )

    def load() -> QuestionSet:
        if source == "upload":
            if upload is None:
                raise RagkitError("upload a .csv or .jsonl question set first")
            return load_question_set(
                text=upload.getvalue().decode("utf-8-sig", "replace"),
                filename=upload.name,
                collection=collection,
                fixes=st.session_state.get(f"{prefix}_fixes", {}).get(_upload_key(upload)),
            )
        if source == "labels":
            return load_question_set(collection=collection, labels=True)
        if source == "saved" and not path:
            raise RagkitError("no question set is saved with this collection yet (Generate tab)")
        if not path.strip():
            raise RagkitError("give the path of a question set")
        return load_question_set(path.strip(), collection=collection, holdout=holdout)

    load.signature = _signature(source, upload, path, holdout, collection, prefix)  # type: ignore[attr-defined]
    return load


def _signature(source: str, upload, path: str, holdout: float, collection, prefix: str) -> tuple | None:
    """What the loaded set depends on, to keep it between reruns (None: load it every time, for the
    collection's labels, which change as they are labelled)."""
    if source == "labels":
        return None
    if source == "upload":
        if upload is None:
            return None
        fixes = st.session_state.get(f"{prefix}_fixes", {}).get(_upload_key(upload))
        return (source, _upload_key(upload), repr(fixes), getattr(collection, "name", None))
    p = Path(path.strip()) if path.strip() else None
    stamp = p.stat().st_mtime_ns if p is not None and p.exists() else None
    return (source, path.strip(), stamp, holdout, getattr(collection, "name", None))
