"""The app server and the browser of ``test_browser`` for every browser test of this folder (one
Streamlit server per test module)."""

from tests.e2e.test_browser import browser, server  # noqa: F401
