"""The layout parser's table cells, on defects found in public tables:

- a score sheet (pdfplumber's issue-90 example) draws a row's figures right first: its cells read
  "Ekaterina PUSHKASH / Jonathan GUERREIRO 7" and "24.28 49.88" for the page's "7 | Ekaterina …" and
  "49.88 24.28". A cell's lines that follow one another on one row now read left to right; lines on rows
  of their own (a header set in two stacked parts) keep the page's order.
- an ICDAR 2013 table (us-018, rows set 10.7 pt apart): a comma's ink hangs under the baseline, so it
  fell into the row below ("3 031" over ", 131,418"); a glyph now goes by its line's height.
- the same table's headings over two columns ("Actual", "Projected") and a wide total reaching under its
  neighbour moved a column boundary past the next column (two years' figures in one cell beside an
  empty one) or dropped it; a cell now takes whole words, and a boundary is not moved across a column."""

from __future__ import annotations

import pymupdf

from ragkit.ingestion.pdf_bounds import uncut_columns
from ragkit.ingestion.pdf_spans import cell_text, left_to_right


def _blocks(placed: list[tuple[float, float, str]]) -> list[dict]:
    """RAWDICT text blocks of a page with each (x, baseline, text) drawn in the order given, glyph boxes
    of their ink as the layout engine reads them."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    for x, y, text in placed:
        page.insert_text((x, y), text, fontsize=9)
    raw = page.get_textpage(flags=pymupdf.TEXTFLAGS_RAWDICT | pymupdf.TEXT_ACCURATE_BBOXES).extractRAWDICT()
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


def test_a_comma_hanging_under_its_line_stays_in_its_row():
    """Rows 10.7 pt apart: the upper row's comma reaches past the boundary between the rows."""
    blocks = _blocks([(30, 50, "3,031"), (30, 60.7, "131,418")])
    assert cell_text(blocks, (20.0, 40.0, 380.0, 50.2)) == "3,031"  # the comma ink: 49.1 to 51.3
    assert cell_text(blocks, (20.0, 50.2, 380.0, 63.0)) == "131,418"


def test_a_word_across_a_column_boundary_goes_whole_to_the_cell_of_its_middle():
    blocks = _blocks([(100, 55, "Projected")])  # 9-pt Helvetica: about 100 to 139
    assert cell_text(blocks, (20.0, 40.0, 125.0, 70.0)) == "Projected"
    assert cell_text(blocks, (125.0, 40.0, 380.0, 70.0)) == ""


def test_a_boundary_is_not_moved_across_a_column_nor_dropped_under_a_heading():
    """Two columns of figures; a heading over both, and one wide total reaching under the left column,
    cut the boundary at 60. It stays where it cuts fewest (the heading's, taken whole by one cell)."""
    left = [(30.0, 55.0)] * 8  # the left column's figures
    right = [(65.0, 90.0)] * 8  # the right column's
    heading = (45.0, 78.0)  # "Actual", over both
    total = (58.0, 90.0)  # "2,893,045", wider than its column
    assert uncut_columns([60.0], 0.0, [*left, *right, heading, total]) == [57.5]
    assert uncut_columns([60.0], 0.0, [*left, *right, heading]) == [60.0]


def test_a_word_set_in_two_spans_keeps_its_last_letter_beyond_the_boundary():
    """ "Coronar" and its "y" in two spans (a change of font), the boundary between them: the "y" span lies
    wholly in the next cell, and was lost from both."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    page.insert_text((100, 55), "Coronar", fontsize=9, fontname="helv")
    end = 100 + pymupdf.get_text_length("Coronar", fontname="helv", fontsize=9)
    page.insert_text((end, 55), "y", fontsize=9, fontname="tiro")
    raw = page.get_textpage(flags=pymupdf.TEXTFLAGS_RAWDICT | pymupdf.TEXT_ACCURATE_BBOXES).extractRAWDICT()
    blocks = [b for b in raw["blocks"] if b["type"] == 0]
    assert [len(ln["spans"]) for b in blocks for ln in b["lines"]] == [2]
    assert cell_text(blocks, (20.0, 40.0, end - 0.3, 70.0)) == "Coronary"
    assert cell_text(blocks, (end - 0.3, 40.0, 380.0, 70.0)) == ""


def test_two_boundaries_a_sliver_apart_are_one():
    """CDC's housing table: the engine drew boundaries at 461 and 467 with no word between them, each
    cutting the group label over both ("Inadequate housing units"), and both were dropped: "(4.6) 1.1
    (0.8–1.5)" read in one cell. As one boundary, midway, the three columns stand apart."""
    share = [(436.0, 458.0)] * 8  # "(4.9)", the share column's figures
    ratio = [(470.0, 480.0)] * 8  # "1.1", the odds ratio's
    group = (441.0, 530.0)  # "Inadequate housing units", over both
    bounds = uncut_columns([461.0, 467.0], 0.0, [*share, *ratio, group])
    assert len(bounds) == 1 and 458.0 <= bounds[0] <= 470.0
    assert uncut_columns([461.0], 0.0, [*share, *ratio, group]) == [461.0]  # one boundary: as before


def test_a_boundary_under_a_heading_stays_where_its_columns_hold_it():
    """The 2007 tax table's "And you are—" and "Your tax is—" over its Single and Qualifying widow(er)
    columns (word extents as the engine read them): the boundary between the two cut three heading words,
    and the place that cut fewest (one) had no whole word left of it, so it was dropped and the columns
    were read as one ("131 131"). It stays at the nearest place the columns beside it hold."""
    figures = [(129.7, 137.7)] * 36 + [(125.7, 137.7)] * 12 + [(133.7, 137.7)] * 6  # Single
    figures += [(163.6, 171.6)] * 36 + [(159.6, 171.6)] * 12 + [(167.6, 171.6)] * 6  # Qualifying widow(er)
    heads = [(135.5, 149.1), (151.1, 163.5), (165.5, 184.0), (116.1, 135.5), (144.0, 174.3), (144.0, 173.5),
             (137.9, 153.8), (155.8, 165.9), (167.8, 181.7)]  # fmt: skip
    (bound,) = uncut_columns([149.0], 0.0, figures + heads)
    assert 137.7 < bound < 159.6
