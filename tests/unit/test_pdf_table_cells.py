"""A score sheet (pdfplumber's issue-90 example) draws a row's figures right first: its cells read
"Ekaterina PUSHKASH / Jonathan GUERREIRO 7" and "24.28 49.88" for the page's "7 | Ekaterina …" and
"49.88 24.28". A cell's lines that follow one another on one row now read left to right; lines on rows
of their own (a header set in two stacked parts) keep the page's order."""

from __future__ import annotations

import pymupdf

from ragkit.ingestion.pdf_spans import cell_text, left_to_right


def _blocks(placed: list[tuple[float, float, str]]) -> list[dict]:
    """RAWDICT text blocks of a page with each (x, baseline, text) drawn in the order given."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    for x, y, text in placed:
        page.insert_text((x, y), text, fontsize=9)
    raw = page.get_textpage(flags=pymupdf.TEXTFLAGS_RAWDICT).extractRAWDICT()
    return [b for b in raw["blocks"] if b["type"] == 0]


CELL = (20.0, 40.0, 380.0, 70.0)


def test_figures_drawn_right_first_read_left_to_right():
    blocks = _blocks([(200, 55, "24.28"), (120, 55, "49.88"), (30, 55, "7")])
    assert cell_text(blocks, CELL) == "7 49.88 24.28"


def test_lines_on_rows_of_their_own_keep_the_pages_order():
    """Two stacked headers in one cell, each written top then bottom: not read across."""
    blocks = _blocks([(30, 50, "Segment"), (30, 62, "Score"), (120, 50, "Element"), (120, 62, "Score")])
    assert cell_text(blocks, CELL) == "Segment Score Element Score"


def _line(x0: float, text: str) -> dict:
    return {"dir": (1.0, 0.0), "bbox": (x0, 46.0, x0 + 30, 58.0), "spans": [{"text": text}]}


def test_right_to_left_lines_keep_the_pages_order():
    """Hebrew reads right to left: its lines on one row are not put in the order of x."""
    hebrew = [_line(200, "\u05e9\u05dc\u05d5\u05dd"), _line(120, "\u05e2\u05d5\u05dc\u05dd")]
    assert left_to_right(hebrew) == hebrew
    latin = [_line(200, "world"), _line(120, "hello")]
    assert left_to_right(latin) == latin[::-1]
