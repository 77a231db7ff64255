"""Documents: upload files into the collection, see the ingestion report, browse chunks, delete files."""

import streamlit as st

from ragkit.chunkers import make_chunker
from ragkit.errors import RagkitError
from ragkit.presentation import chunk_rows, report_rows
from ragkit.viz import chunk_length_histogram
from ui import resources, state, widgets

st.title("Documents")
collection = widgets.active_collection()
if collection is None:
    st.info("Create a collection in the sidebar, then upload PDF, TXT or Markdown files here.")
    st.stop()
cfg = state.config("A")

with st.form("upload", clear_on_submit=True):
    files = st.file_uploader(
        "Upload PDF / TXT / MD files", type=["pdf", "txt", "md", "markdown"], accept_multiple_files=True
    )
    submitted = st.form_submit_button("Upload and index")
if submitted and files:
    try:
        report = collection.add_files([(f.name, f.getvalue()) for f in files])
        st.session_state[state.INGEST_REPORT] = report
    except RagkitError as e:
        st.error(str(e))

report = state.get(state.INGEST_REPORT)
if report is not None:
    st.subheader("Ingestion report")
    for f in report.failed:
        st.error(f.error)
    for f in report.files:
        for w in f.warnings:
            st.warning(f"{f.file}: {w}")
    st.dataframe(report_rows(report), hide_index=True, width="stretch")

docs = collection.documents()
if not docs:
    st.info(f"Collection **{collection.name}** is empty: upload files above.")
    st.stop()

# Build or update the index for config A's chunker, with visible progress.
chunker = make_chunker(cfg.chunker, **cfg.chunker_params)
bar: dict = {}


def on_progress(stage: str, done: int, total: int) -> None:
    if "w" not in bar:
        bar["w"] = st.progress(0.0, text="Indexing…")
    bar["w"].progress(done / max(total, 1), text=f"{stage}: {done}/{total} chunks")


try:
    with st.status(f"Index for {widgets.config_summary(cfg)}", expanded=False) as status:
        store = resources.index(collection, cfg, on_progress)
        status.update(
            label=f"Indexed: {len(store.documents)} documents, {len(store.chunks)} chunks ({chunker.name})",
            state="complete",
        )
except RagkitError as e:
    st.error(str(e))
    st.stop()

st.subheader(f"{len(docs)} documents in {collection.name}")
for d in docs:
    c1, c2 = st.columns([6, 1])
    info = store.doc_info.get(d.doc_id, {})
    empty = f" · image-only pages: {d.empty_pages}" if d.empty_pages else ""
    c1.markdown(
        f"**{d.source}** · {len(d.pages)} pages · {info.get('chunks', 0)} chunks · {d.n_tables} tables{empty}"
    )
    if c2.button("Delete", key=f"del_{d.source}"):
        collection.remove(d.source)
        st.session_state.pop(state.INGEST_REPORT, None)
        st.rerun()

st.subheader("Chunk browser")
pick = st.selectbox("Document", ["(all)"] + [d.source for d in docs], key="browse_doc")
rows = chunk_rows(store, None if pick == "(all)" else pick)
st.plotly_chart(chunk_length_histogram([r["chars"] for r in rows]), width="stretch")
st.dataframe(
    rows,
    hide_index=True,
    width="stretch",
    column_config={"text": st.column_config.TextColumn(width="large")},
)
