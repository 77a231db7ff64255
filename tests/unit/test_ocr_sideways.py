"""A line printed down the margin of an upright scan (a manual's "Product specifications and safety
information" down its page edge): Tesseract read it a glyph at a time, and the page's text ended in a
column of noise the page does not say ("ae]", "=", "jek", "®", …). It is now read turned, as a line."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.ocr_sideways import stacks
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")
SIDE = "Product specifications and safety information"
BODY = (
    "The insulin pump is intended for use in the electromagnetic environment specified below. "
    "The customer or the user of the pump should assure that it is used in such an environment. "
) * 4


def _scan() -> bytes:
    """A PNG (150 dpi) of a page of text with a line printed down its right margin."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 72, 500, 400), BODY, fontsize=11)
    page.insert_text((560, 150), SIDE, fontsize=11, rotate=270)
    return page.get_pixmap(dpi=150).tobytes("png")


@needs_tesseract
def test_a_line_down_the_margin_is_read_as_a_line_and_leaves_no_noise():
    text = parse_bytes("manual.png", _scan()).text
    assert SIDE.lower() in " ".join(text.split()).lower(), text
    assert "intended for use in the electromagnetic environment" in text
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    assert not [x for x in lines if len(x) <= 3], text  # no glyph read as a word on a line of its own


def _glyphs(x: int, conf: float, texts: list[str]) -> list:
    return [((x, 100 + 25 * k, x + 20, 120 + 25 * k), t, conf) for k, t in enumerate(texts)]


def test_a_stack_is_a_narrow_run_down_the_page_and_no_column_of_figures():
    words = [((100, 30 * k, 400, 30 * k + 20), "a line of running text", 95.0) for k in range(10)]
    noise = ["ae]", "=", "jek", "c", "ia!", "tad", "Ww", "G"]
    ((box, sure),) = stacks(words + _glyphs(560, 35.0, noise))
    assert box == (560, 100, 580, 295) and sure == 35.0
    assert stacks(words + _glyphs(560, 35.0, [str(k) for k in range(1, 9)])) == []  # line numbers
    assert stacks(words + _glyphs(560, 35.0, noise[:4])) == []  # too short a reach
    wide = [((560, 100 + 25 * k, 700, 120 + 25 * k), t, 35.0) for k, t in enumerate(noise)]
    assert stacks(words + wide) == []  # words across the page, not glyphs down it
    beyond = [((620, 30 * k, 700, 30 * k + 20), "more text", 95.0) for k in range(10)]
    assert stacks(words + beyond + _glyphs(560, 35.0, noise)) == []  # between columns: a table's column
