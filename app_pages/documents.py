"""Documents: upload files into the collection, see the ingestion report, browse chunks, delete files."""

import streamlit as st

from ragkit.app.charts import chunk_length_histogram
from ragkit.app.presentation import chunk_rows, counted, display_name, metadata_line, report_rows, split_notes
from ragkit.core.errors import RagkitError
from ragkit.index.lexical import holds_no_vectors
from ragkit.ingestion.reading import SUPPORTED_SUFFIXES
from ui import resources, state, widgets

st.title("Documents")
collection = widgets.active_collection()
if collection is None:
    st.info("Create a collection in the sidebar, then upload files or add URLs here.")
    st.stop()

which = st.radio(
    "Index and chunk browser for config",
    ["A", "B"],
    horizontal=True,
    key=widgets.seed("docs_config", "A"),
    help="Ask uses A; Compare and Evaluate index both. The chunk browser shows this config's chunks.",
)
cfg = state.config(which)

left, right = st.columns([3, 2])
with left, st.form("upload", clear_on_submit=True):
    files = st.file_uploader(
        "Upload files: PDF, TXT, MD, HTML, DOCX, scans (PNG, JPG, TIFF), or question-answer CSV/JSONL",
        type=[s.lstrip(".") for s in SUPPORTED_SUFFIXES],
        accept_multiple_files=True,
    )
    submitted = st.form_submit_button("Upload and index")
with right, st.form("add_urls", clear_on_submit=True):
    url_text = st.text_area("Add URLs (one per line)", height=110, placeholder="https://example.org/page")
    add_urls = st.form_submit_button("Fetch and index")
resources.parse_workers()  # a warm parse worker for the upload to come (started once per server)
if submitted and not files:  # pressed before any file arrived: the form is cleared, so say so
    st.warning(
        "No file had arrived when “Upload and index” was pressed (a file still uploading is not sent "
        "with the form). Choose the files again, and press it once each one is listed with its size."
    )
if submitted and files:
    try:
        with widgets.progress_panel(f"Reading {len(files)} file(s)") as progress:
            report = collection.add_files(
                [(f.name, f.getvalue()) for f in files], progress=progress, on_wait=st.info
            )
        st.session_state[state.INGEST_REPORT] = report
    except RagkitError as e:
        st.error(str(e))
if add_urls and url_text.strip():
    urls = [u.strip() for u in url_text.splitlines() if u.strip()]
    try:
        with widgets.progress_panel(f"Fetching {len(urls)} URL(s)") as progress:
            report = collection.add_urls(urls, progress=progress, on_wait=st.info)
        st.session_state[state.INGEST_REPORT] = report
    except RagkitError as e:
        st.error(str(e))

# listed by name, so a file removed and added again comes back to its place
docs = sorted(collection.documents(), key=lambda d: d.source.lower())
store = None
if docs:
    try:
        if resources.needs_indexing(collection, cfg):
            with widgets.progress_panel(f"Indexing for config {which} ({widgets.config_summary(cfg)})") as p:
                store = resources.index(collection, cfg, p)
        else:
            store = resources.index(collection, cfg)
        st.caption(
            f"Index for config {which}: {len(store.documents)} documents, {len(store.chunks)} chunks "
            f"({widgets.config_summary(cfg)})"
            + (
                " · text only: BM25 alone reads no vectors, so nothing was embedded (the gauge embeds "
                "the chunks a question retrieves)"
                if holds_no_vectors(store)
                else ""
            )
        )
    except RagkitError as e:
        st.error(str(e))

report = state.get(state.INGEST_REPORT)
if report is not None:
    st.subheader("Ingestion report")
    if store is not None:  # the real chunk count of each file, now that it is indexed
        for f in report.files:
            doc_id = store.find_source(f.file) if f.status == "ok" else None
            if doc_id is not None:
                f.chunks = store.doc_info[doc_id]["chunks"]
    for f in report.failed:
        st.error(f.error)
    for f in report.files:
        notes, warnings = split_notes(f.warnings)
        for w in notes:
            st.info(f"{f.file}: {w}")
        for w in warnings:
            st.warning(f"{f.file}: {w}")
    st.dataframe(report_rows(report), hide_index=True, width="stretch")

if not docs:
    st.info(f"Collection **{display_name(collection.name)}** is empty: upload files above.")
    st.stop()

st.subheader(f"{len(docs)} documents in {display_name(collection.name)}")
pending = state.get(state.CONFIRM_DELETE)
for i, d in enumerate(docs):
    c1, c2 = st.columns([6, 1])
    info = store.doc_info.get(store.find_source(d.source) or "", {}) if store is not None else {}
    empty = f" · pages without text: {d.empty_pages[0]}" if len(d.empty_pages) == 1 else ""
    if len(d.empty_pages) > 1:
        from ragkit.ingestion.reading import page_ranges

        empty = f" · pages without text: {page_ranges(d.empty_pages)}"
    indexed = store.documents.get(info.get("doc_id", "")) if store is not None else None
    filtered = (indexed.meta if indexed is not None else {}).get("content_filter")
    c1.markdown(
        f"**{display_name(d.source)}** · {counted(len(d.pages), 'page')} · "
        f"{counted(info.get('chunks', 0), 'chunk')} · {counted(d.n_tables, 'table')}{empty}"
        + (f" · content filter {filtered}" if filtered else "")
    )
    if meta := metadata_line(d.meta):
        c1.caption(widgets.text_md(meta))
    if filtered and (dropped := indexed.meta.get("content_filter_examples")):
        c1.caption("Dropped, for example: " + " · ".join(f"“{x[:80]}”" for x in dropped))
    if pending == d.source:
        c1.warning(
            f"Delete {d.source!r} from the collection? Its chunks leave every index; this cannot be undone."
        )
        ok, cancel = c1.columns(2)
        if ok.button("Delete for good", key=f"del_ok_{i}", type="primary"):
            collection.remove(d.source)
            st.session_state.pop(state.CONFIRM_DELETE, None)
            st.session_state.pop(state.INGEST_REPORT, None)
            st.rerun()
        if cancel.button("Cancel", key=f"del_cancel_{i}"):
            st.session_state.pop(state.CONFIRM_DELETE, None)
            st.rerun()
    elif c2.button("Delete", key=f"del_{i}"):
        st.session_state[state.CONFIRM_DELETE] = d.source
        st.rerun()

if store is not None:
    st.subheader(f"Chunk browser (config {which})")
    pick = st.selectbox("Document", ["(all)"] + [d.source for d in docs], key="browse_doc")
    rows = chunk_rows(store, None if pick == "(all)" else pick)
    st.plotly_chart(chunk_length_histogram([r["chars"] for r in rows]), width="stretch")
    st.dataframe(
        rows,
        hide_index=True,
        width="stretch",
        column_config={"text": st.column_config.TextColumn(width="large")},
    )
