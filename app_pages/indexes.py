"""CLI indexes: the indexes created with `python -m ragkit ingest`, and opening one as a collection so Ask,
Compare and Evaluate work on it (layout only)."""

import streamlit as st

from ragkit.core.errors import RagkitError
from ragkit.index.collections import Collection, default_root
from ragkit.index.maintenance import list_indexes
from ragkit.index.store import IndexStore
from ui import state

root = default_root()
st.title("Indexes built from the command line")
rows = list_indexes(root)
if not rows:
    st.info(
        "None yet. Create one with `python -m ragkit ingest --index indexes/my-docs file.pdf …`; "
        "collections made in this app live under the same folder."
    )
else:
    st.dataframe(rows, hide_index=True, width="stretch")
    usable = [r for r in rows if not r.get("error")]
    if usable:
        st.markdown(
            "**Open an index as a collection.** Its parsed documents are copied into a collection of that "
            "name (nothing is parsed again); the collection indexes them for each config you use, reusing "
            "the "
            "embeddings already computed for the same chunks."
        )
        with st.form("open_index"):
            pick = st.selectbox("Index", [r["name"] for r in usable])
            name = st.text_input("Collection name (blank: the index's name)")
            go = st.form_submit_button("Open as collection")
        if go:
            try:
                row = next(r for r in usable if r["name"] == pick)
                store = IndexStore.open(row["path"])
                target = name.strip() or f"{pick}-collection"
                if IndexStore.exists(root / target):
                    raise RagkitError(f"{target!r} is a command-line index: choose another collection name")
                collection = Collection.create(target)
                n = collection.add_documents(store.documents.values())
                st.session_state[state.PENDING_COLLECTION] = target
                st.success(f"Collection {target!r}: {n} documents added from index {pick!r}.")
                st.rerun()
            except RagkitError as e:
                st.error(str(e))
