"""CLI indexes: the indexes created with `python -m ragkit ingest` (layout only)."""

import os

import streamlit as st

from ragkit.store import list_indexes

root = os.environ.get("RAGKIT_INDEX_ROOT", "indexes")
st.title("Indexes built from the command line")
rows = [r for r in list_indexes(root)]
if not rows:
    st.info(
        "None yet. Create one with `python -m ragkit ingest --index indexes/my-docs file.pdf …`; "
        "collections made in this app live under the same folder."
    )
else:
    st.dataframe(rows, hide_index=True, width="stretch")
