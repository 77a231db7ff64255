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


def test_a_cited_chunk_of_another_parsers_reading_is_highlighted_in_that_reading():
    """Ask and Compare pass the collection; config A may read the PDFs with the plain parser while the
    collection stores the layout reading: the passage must come from the reading the chunk was cut from."""
    from ragkit.app.presentation import find_document, highlighted_page_html
    from ragkit.core.types import Chunk, Document, Page, Span

    layout = Document("d", "p.pdf", "0" * 64, (Page(1, "# Title\n\nThe _cryostat_ is in room B102."),), "pdf")
    plain = Document("d", "p.pdf", "0" * 64, (Page(1, "Title The cryostat is in room B102."),), "pdf")

    class Coll:
        def documents(self):
            return [layout]

        def readings(self, doc):
            return [plain]

    text = "The cryostat is in room B102."
    start = plain.pages[0].text.index(text)
    chunk = Chunk("c", "d", "p.pdf", 0, text, (Span(1, start, start + len(text)),))
    assert find_document(Coll(), chunk) is plain
    assert f"<mark>{text}</mark>" in highlighted_page_html(Coll(), chunk)
    own = Chunk("c2", "d", "p.pdf", 0, "# Title", (Span(1, 0, 7),))
    assert find_document(Coll(), own) is layout  # a chunk of the stored reading stays there
