"""Evaluate page, Label tab: mark evidence passages for questions over the active collection."""

from __future__ import annotations

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.labels import LabelSet, candidates_for, question_id, search_collection
from ui import state, widgets


def label_tab(collection) -> None:
    """The Label tab."""
    if collection is None or not collection.documents():
        st.info("Labels belong to a collection: upload documents on the Documents page first.")
    else:
        widgets.show_flash("labels")
        labels = LabelSet.for_collection(collection)
        counts = labels.counts()
        st.caption(
            "Evidence is a passage (document and character span), so the same labels judge every "
            "chunker. Candidates are pooled from configs A and B (sidebar) in a neutral order that favours "
            "neither; search the whole collection or paste a quote for evidence no config retrieved. "
            f"In '{collection.name}': {counts['evidence']} questions with evidence, {counts['absent']} "
            f"marked 'no answer in the collection', {counts['unlabelled']} still without evidence (left "
            "out of runs)."
        )
        if labels.migrated:
            st.info(
                f"{labels.migrated} labels from an earlier version were read as passages; saving rewrites "
                "them."
            )
        with st.form("label_question"):
            q = st.text_input("Question to label", key="label_question_text")
            find = st.form_submit_button("Find candidates (A ∪ B)")
        if find and q.strip():
            try:
                with st.spinner("Retrieving with A and B…"):
                    pipes = widgets.pipelines(collection, [state.config("A"), state.config("B")])
                    st.session_state[state.LABEL_POOL] = (
                        q.strip(),
                        candidates_for(q.strip(), pipes, collection.documents()),
                    )
            except RagkitError as e:
                st.error(str(e))
        pool = state.get(state.LABEL_POOL)
        if pool:
            question, chunks = pool
            qkey = question_id(question)  # widget keys per question: one question's answers never leak
            mine = labels.for_question(question)
            docs = collection.documents()
            st.markdown(f"**{widgets.text_md(question)}** — {len(chunks)} candidates")
            if mine.relevant:
                with st.expander(f"Evidence so far: {len(mine.relevant)} passages", expanded=False):
                    for lab in mine.relevant:
                        doc = next((d for d in docs if d.source == lab.source), None)
                        page, start, end = lab.spans[-1]
                        text = doc.pages[page - 1].text[start:end] if doc and page <= len(doc.pages) else ""
                        st.caption(f"{lab.source} · page {page}")
                        st.text(" ".join(text.split())[:500])
            with st.form("label_candidates"):
                for i, ch in enumerate(chunks):
                    prior = mine.verdict(ch)
                    st.radio(
                        f"Candidate {i + 1} · {ch.source} · page {ch.page}",
                        ["not judged", "relevant", "not relevant"],
                        index=0 if prior is None else (1 if prior else 2),
                        horizontal=True,
                        key=f"label_{qkey}_{i}",
                    )
                    st.text(ch.text[:700])
                absent = st.checkbox(
                    "There is no answer to this question in the collection",
                    value=mine.absent,
                    help="Only this marks a question 'no evidence' (scored by \"I don't know\"); judging "
                    "every "
                    "candidate not relevant does not.",
                    key=f"label_absent_{qkey}",
                )
                save = st.form_submit_button("Save labels")
            if save:
                n = 0
                for i, ch in enumerate(chunks):
                    verdict = st.session_state.get(f"label_{qkey}_{i}")
                    if verdict in ("relevant", "not relevant"):
                        labels.set(question, ch, verdict == "relevant")
                        n += 1
                if absent != mine.absent:
                    labels.set_absent(question, absent)
                labels.save()
                widgets.flash(f"Saved {n} judgements for this question.", "labels")
                st.rerun()
            st.markdown("**Find evidence no config retrieved**")
            with st.form("label_search"):
                query = st.text_input(
                    "Search the whole collection (BM25 over every chunk)",
                    key=widgets.seed(f"label_query_{qkey}", question),
                )
                hits_k = st.number_input("Results", 1, 50, value=8)
                go_search = st.form_submit_button("Search")
            if go_search and query.strip():
                try:
                    from ui import resources

                    store = resources.index(collection, state.config("A"))
                    st.session_state[state.LABEL_SEARCH] = (
                        question,
                        search_collection(store, query, int(hits_k), collection.documents()),
                    )
                except RagkitError as e:
                    st.error(str(e))
            found = state.get(state.LABEL_SEARCH)
            if found and found[0] == question:
                with st.form("label_search_results"):
                    for i, ch in enumerate(found[1]):
                        st.checkbox(
                            f"Result {i + 1} · {ch.source} · page {ch.page}: evidence",
                            value=bool(mine.verdict(ch)),
                            key=f"label_found_{qkey}_{i}",
                        )
                        st.text(ch.text[:700])
                    add = st.form_submit_button("Mark the ticked results as evidence")
                if add:
                    ticked = [
                        ch for i, ch in enumerate(found[1]) if st.session_state.get(f"label_found_{qkey}_{i}")
                    ]
                    for ch in ticked:
                        labels.set(question, ch, True)
                    labels.save()
                    widgets.flash(f"Added {len(ticked)} passages as evidence.", "labels")
                    st.rerun()
            with st.form("label_quote"):
                quote = st.text_area(
                    "…or paste the exact text of the evidence (a sentence or a few words; whitespace and "
                    "case "
                    "do not matter)",
                    height=80,
                )
                where = st.selectbox("In", ["any document"] + [d.source for d in docs])
                add_quote = st.form_submit_button("Add the quote as evidence")
            if add_quote and quote.strip():
                n = labels.add_quote(question, quote, docs, None if where == "any document" else where)
                if n:
                    labels.save()
                    widgets.flash(f"Found the quote in {n} place(s); marked as evidence.", "labels")
                    st.rerun()
                else:
                    st.error(f"The quote was not found in {where}: copy it exactly from the document.")
