"""Unit tests of :mod:`ragkit.ingestion.html`."""

from __future__ import annotations

from ragkit.ingestion.parse import load_document
from tests.web_servers import FIXTURES


def test_html_main_content_is_kept_and_boilerplate_dropped():
    doc = load_document(FIXTURES / "article.html")
    text = doc.text
    assert doc.kind == "html" and doc.meta["title"] == "Reading files with pathlib"
    kept = ["# Reading files with pathlib", "## Reading bytes", 'read_text(encoding="utf-8")']
    kept += ["| read_bytes() | bytes | binary files |", "- Use `read_text()` for configuration files"]
    for k in kept:
        assert k in text, k
    for dropped in (
        "cookies",
        "Sign in",
        "Advertisement",
        "All rights reserved",
        "Related articles",
        "Tutorials",
    ):
        assert dropped not in text, dropped
    raw = (FIXTURES / "article.html").read_bytes()
    assert len(text) < 0.45 * len(raw)  # most of the page was furniture


def test_a_page_whose_charset_is_declared_in_html_is_decoded_by_it():
    doc = load_document(FIXTURES / "latin1.html")
    assert "bibliothèque municipale est ouverte du mardi au samedi" in doc.text and "café crème" in doc.text


def test_superscripts_and_emphasised_symbols_read_as_the_page_shows_them():
    """Wikipedia's reference marks and back-links: "[1]" and "^" as text, not ``<sup>`` or ``**^**``."""
    from ragkit.ingestion.fidelity import markup_leaks
    from ragkit.ingestion.html import html_to_document

    page = (
        b"<html><body><article><h1>Water</h1><p>Water is H<sub>2</sub>O and E = mc<sup>2</sup>, as shown."
        b"<sup>[1]</sup> More words of prose make this an article about water and energy.</p>"
        b"<ol><li><b>^</b> A reference to a book about <b>physics</b>.</li></ol></article></body></html>"
    )
    text = html_to_document("water.html", page).text
    assert "H2O" in text and "mc2, as shown.[1]" in text and "^ A reference" in text
    assert "**physics**" in text  # emphasis of a word is the page's own
    assert not markup_leaks(text)


def test_a_photo_caption_classed_as_a_caption_is_kept():
    """A news page's figure: its caption is text the page shows, whatever classes the site puts on it."""
    from ragkit.ingestion.html import html_to_document

    story = b"".join(
        b"<p>Paragraph %d of the story says that the government plans to reverse its position and lift "
        b"trade sanctions, officials said late on Thursday, and more words follow here.</p>" % i
        for i in range(8)
    )
    page = (
        b"<html><body><div class='story-body'><figure class='media photo'><div class='image'>"
        b"<img src='a.jpg' alt=''></div><figcaption class='caption'><span class='caption-text'>Peacekeepers "
        b"at a refugee camp in Sudan on Monday.</span></figcaption></figure>"
        + story
        + b"</div></body></html>"
    )
    text = html_to_document("news.html", page).text
    assert "Peacekeepers at a refugee camp in Sudan on Monday." in text and "Paragraph 7 of the story" in text
