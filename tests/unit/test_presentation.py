"""Unit tests of :mod:`ragkit.app.presentation`."""

from __future__ import annotations

from ragkit.app.presentation import display_name, highlighted_page_html, safe_markdown
from tests.conftest import make_doc


def test_document_text_loads_nothing_remote():
    md = safe_markdown(
        "![p](https://t.example/pixel.png) [ok](https://x.org) [bad](javascript:alert) <img src=x>"
    )
    assert "pixel.png" not in md.split("[image: p]")[0] and "[image: p]" in md
    assert "[ok](https://x.org)" in md and "javascript" not in md
    assert "<img" not in md and "&lt;img src=x&gt;" in md
    assert "![" not in safe_markdown("![ref][r]").replace("!\\[", "")  # reference images shown literally
    assert display_name("**x**\n.md") == "\\*\\*x\\*\\*␊\\.md"


def test_a_split_table_chunk_highlights_its_header_and_its_rows():
    from ragkit.ingestion.chunkers import SlidingChunker

    text = "Intro.\n\n| k | v |\n|---|---|\n" + "\n".join(f"| r{i} | {i} |" for i in range(200))
    doc = make_doc(text)
    chunk = SlidingChunker(size=100, overlap=0).split(doc)[10]
    html = highlighted_page_html({doc.doc_id: doc}, chunk)
    assert html.count("<mark>") == 2 and "<mark>| k | v |<br>|---|---|</mark>" in html
    assert "…<br>…" in html  # the rows between header and chunk are elided, not shown whole
