"""ragkit — Streamlit entry point: page config, navigation and the shared sidebar. Layout only."""

from pathlib import Path

from ragkit.core.threads import quiet_openmp

quiet_openmp()  # before torch or FAISS load: idle OpenMP threads must not spin beside a page's work

import streamlit as st  # noqa: E402

from ragkit.ingestion.netpolicy import serve_visitors  # noqa: E402
from ui import resources, sidebar, state  # noqa: E402

# absolute (the app runs from any working directory), and not named pages/: with a pages/ folder beside the
# entry point, a page's URL opened on a freshly started server (a bookmark) was served by Streamlit's
# legacy multipage mode, without this script, so without the sidebar, the collection or the pipeline
PAGES = Path(__file__).resolve().parent / "app_pages"

st.set_page_config(page_title="ragkit", page_icon=":material/search:", layout="wide")
serve_visitors()  # service URLs typed in the browser reach their services only through the fetch policy
state.init()

nav = st.navigation(
    [
        st.Page(PAGES / "documents.py", title="Documents", icon=":material/description:", default=True),
        st.Page(PAGES / "ask.py", title="Ask", icon=":material/chat:"),
        st.Page(PAGES / "compare.py", title="Compare", icon=":material/compare_arrows:"),
        st.Page(PAGES / "evaluate.py", title="Evaluate", icon=":material/analytics:"),
        st.Page(PAGES / "indexes.py", title="CLI indexes", icon=":material/folder:"),
    ]
)
st.sidebar.title("ragkit")
sidebar.collection_picker()
sidebar.pipeline_panel()
try:
    nav.run()
finally:  # after the page is drawn (or stopped early): the models configs A and B embed with load in the
    # background; a page that only shows an index needs none, the first question or indexing finds them
    resources.warm_up_after_paint([state.config("A"), state.config("B")])
