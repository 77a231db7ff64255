"""The question-set picker shared by Evaluate's Run and Sweep tabs: an upload, the collection's labels,
or a path (BEIR folder, SQuAD .json, .csv/.jsonl)."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.questionsets import QuestionSet, load_question_set
from ui import widgets

SOURCES = {
    "upload": "Upload a CSV/JSONL (over the active collection)",
    "labels": "Labels saved with the active collection",
    "path": "A path: BEIR folder, SQuAD .json, or .csv/.jsonl",
}


def pick_question_set(collection, prefix: str) -> Callable[[], QuestionSet]:
    """Draw the picker (widget keys start with ``prefix``); returns the loader to call on "Run"."""
    source = st.radio("Question set", list(SOURCES), format_func=SOURCES.get, key=f"{prefix}_source")
    upload, path, holdout = None, "", 0.0
    if source == "upload":
        upload = st.file_uploader(
            "Columns: question, gold_answer, relevant_sources (file names; several separated by ';')",
            type=["csv", "jsonl"],
            key=f"{prefix}_upload",
        )
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
            )
        if source == "labels":
            return load_question_set(collection=collection, labels=True)
        if not path.strip():
            raise RagkitError("give the path of a question set")
        return load_question_set(path.strip(), collection=collection, holdout=holdout)

    return load
