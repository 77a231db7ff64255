"""AppTest helpers and fixtures shared by the page tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragkit.index.collections import Collection

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "Who patented the typewriter, and when?"


@pytest.fixture(scope="module")
def seeded_root(tmp_path_factory, evaldata, int8_model):
    """An index root holding a collection with the docling PDF (parsed; indexed on first page visit)."""
    root = tmp_path_factory.mktemp("app-root")
    c = Collection.create("papers", root)
    pdf = evaldata / "pdfs" / "docling_multi_page.pdf"
    c.add_files([(pdf.name, pdf.read_bytes())])
    return root


@pytest.fixture
def app(seeded_root, monkeypatch, tmp_path):
    root = tmp_path / "root"
    shutil.copytree(seeded_root, root)
    monkeypatch.setenv("RAGKIT_INDEX_ROOT", str(root))
    monkeypatch.chdir(ROOT)
    return make_app()


def _entry(app_path: str) -> None:
    """AppTest entry: runs streamlit_app.py from a temp script, so AppTest's page manager never takes a
    folder beside the app for legacy multipage pages (which dropped the sidebar on reruns)."""
    import runpy
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(app_path).parent))
    runpy.run_path(app_path, run_name="__main__")


def make_app() -> AppTest:
    return AppTest.from_function(_entry, args=(str(ROOT / "streamlit_app.py"),), default_timeout=300)


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)
