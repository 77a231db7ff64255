"""A rule missing from a ruled table joins cells pdfplumber then reads as one (issue 39, camelot's
health outlay table: every other, unshaded, row has no column rules, and "Bihar 21,016,708 4,332,141 …"
was read into one cell as wide as the table). Such a cell's words are given back to the columns they
stand in; a note spread over the columns keeps its span."""

from __future__ import annotations

from itertools import pairwise

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings

COLUMNS = (60, 200, 290, 380, 470)  # where each column starts, and the table's right end
ROWS = (
    ("State", "Revenue", "Capital", "Total"),
    ("Andhra Pradesh", "47,824,589", "1,275,000", "59,082,426"),
    ("Arunachal Pradesh", "2,241,609", "23,000", "2,372,158"),
    ("Assam", "14,874,821", "161,600", "17,590,618"),
    ("Bihar", "21,016,708", "5,329,000", "30,677,849"),
)
NOTE = "All figures are in thousands of rupees and rounded to the nearest unit"
HEIGHT = 18


def _outlay() -> bytes:
    """The table with column rules in the header and on every other row only, and a last row holding a
    note in one cell across the table."""
    doc = pymupdf.open()
    page = doc.new_page(width=540, height=400)
    top = 60.0
    for n, row in enumerate(ROWS):
        y = top + n * HEIGHT
        for k, (x, cell) in enumerate(zip(COLUMNS, row, strict=False)):
            width = pymupdf.get_text_length(cell, fontsize=9)
            at = x + 4 if k == 0 else COLUMNS[k + 1] - 4 - width  # figures set right
            page.insert_text((at, y + 13), cell, fontsize=9)
        if n % 2 == 0:  # the shaded rows' cells are drawn; the others are not
            for x in COLUMNS[1:-1]:
                page.draw_line((x, y), (x, y + HEIGHT))
    end = top + len(ROWS) * HEIGHT
    page.insert_text((COLUMNS[0] + 4, end + 13), NOTE, fontsize=9)
    for y in [top + n * HEIGHT for n in range(len(ROWS) + 1)] + [end + HEIGHT]:
        page.draw_line((COLUMNS[0], y), (COLUMNS[-1], y))
    for x in (COLUMNS[0], COLUMNS[-1]):
        page.draw_line((x, top), (x, end + HEIGHT))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_row_without_its_column_rules_is_read_in_its_columns(parser):
    text = parse_bytes("outlay.pdf", _outlay(), settings=ParseSettings(pdf_parser=parser)).text
    lines = text.splitlines()
    for row in ROWS:
        assert "| " + " | ".join(row) + " |" in lines, (row, text)
    assert any(NOTE in line and line.count(NOTE) == 1 for line in lines), text


STAFF = (
    ("BAIN, J MATTHEW", "DISTRICT DIRECTOR", "37,499.96"),
    ("SMITH, ALVARO R", "LEGISLATIVE CORRESPONDENT", "21,000.00"),
    ("ENGLERT, PAYTON A", "STAFF ASSISTANT", "25,499.96"),
)


WRAPPED = ("GRUENDER, BENJAMIN L", "FIELD REPRESENTATIVE FROM SEP. 16", "1,458.33")
OVERFLOW = "AND FROM OCT. 1 TO OCT. 30 IN KANSAS CITY AND SAINT LOUIS"


def _boxed_body() -> bytes:
    """A Senate expenditure page: the header's cells are ruled, the body below is one box holding a row
    per line with no rule inside it (pdfplumber reads it as one cell of every row)."""
    doc = pymupdf.open()
    page = doc.new_page(width=540, height=300)
    cols, top = (60, 200, 380, 470), 60.0
    for x, label in zip(cols, ("PAYEE NAME", "DESCRIPTION", "AMOUNT ($)"), strict=False):
        page.insert_text((x + 4, top + 13), label, fontsize=8)
    for x in cols[1:-1]:
        page.draw_line((x, top), (x, top + 18))
    body = top + 18
    for n, row in enumerate(STAFF):
        y = body + 14 + n * 11
        for k, (x, cell) in enumerate(zip(cols, row, strict=False)):
            at = x + 4 if k < 2 else cols[k + 1] - 4 - pymupdf.get_text_length(cell, fontsize=7)
            page.insert_text((at, y), cell, fontsize=7)
    y = body + 14 + len(STAFF) * 11
    for k, (x, cell) in enumerate(zip(cols, WRAPPED, strict=False)):
        at = x + 4 if k < 2 else cols[k + 1] - 4 - pymupdf.get_text_length(cell, fontsize=7)
        page.insert_text((at, y), cell, fontsize=7)
    page.insert_text((cols[1] + 4, y + 11), OVERFLOW, fontsize=7)  # runs on past the column's edge
    end = y + 16
    for y in (top, body, end):
        page.draw_line((cols[0], y), (cols[-1], y))
    for x in (cols[0], cols[-1]):
        page.draw_line((x, top), (x, end))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_boxed_body_of_several_rows_is_read_row_by_row(parser):
    """The box's words stand in the header's columns and its lines start rows in every column: each
    line is a row of its own, not the whole body in the first cell; a description's second line longer
    than its column stays in it."""
    text = parse_bytes("senate.pdf", _boxed_body(), settings=ParseSettings(pdf_parser=parser)).text
    for row in STAFF:
        assert "| " + " | ".join(row) + " |" in text.splitlines(), text
    row = f"| {WRAPPED[0]} | {WRAPPED[1]} {OVERFLOW} | {WRAPPED[2]} |"
    assert row in text.splitlines(), text


DISTRICT = (
    (("District Totals",), ("FY 2009", "FY 2010", "FY 2011")),
    (("Investigative Matters", "Received by AUSAs"), ("285", "402", "387")),
    (("Defendants Charged",), ("235", "259", "215")),
    (("Cases Charged",), ("173", "177", "168")),
    (("Defendants", "Sentenced"), ("223", "207", "208")),
    (("No Prison Term",), ("126", "121", "102")),
)


def _district() -> bytes:
    """A U.S. Attorney's district table: column rules on every other row only, a label of two lines in
    a ruled row whose last line runs a little past the row's rule, and in an unruled row a label of two
    lines with its figures set level with its middle."""
    doc = pymupdf.open()
    page = doc.new_page(width=540, height=400)
    cols, height, top = (60, 220, 300, 380, 460), 26.0, 60.0
    for n, (label, figures) in enumerate(DISTRICT):
        y = top + n * height
        if len(label) == 1:
            page.insert_text((cols[0] + 4, y + 17), label[0], fontsize=9)
        else:  # the last line's glyphs reach 0.5 pt past the rule under the row
            for k, line in enumerate(label):
                page.insert_text((cols[0] + 4, y + (11 if k == 0 else height - 1.4)), line, fontsize=9)
        for x, figure in zip(cols[1:-1], figures, strict=True):
            page.insert_text((x + 20, y + 17), figure, fontsize=9)
        if n % 2 == 1 or n == 0:  # the shaded rows: the header and every other row
            for x in cols[1:-1]:
                page.draw_line((x, y), (x, y + height))
    end = top + len(DISTRICT) * height
    for y in [top + n * height for n in range(len(DISTRICT) + 1)]:
        page.draw_line((cols[0], y), (cols[-1], y))
    for x in (cols[0], cols[-1]):
        page.draw_line((x, top), (x, end))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_an_unruled_rows_figures_go_to_their_columns_beside_a_label_of_two_lines(parser):
    """Before, "Defendants Charged 235 259 215" (the ruled row above's last line grazed it) and
    "Defendants 223 207 208 Sentenced" were each read into one cell as wide as the table."""
    lines = parse_bytes(
        "district.pdf", _district(), settings=ParseSettings(pdf_parser=parser)
    ).text.splitlines()
    for label, figures in DISTRICT:
        assert "| " + " | ".join((" ".join(label), *figures)) + " |" in lines, (label, lines)


SCORES = (("#", "Topic", "Completion", "Knowledge"), ("30", "Move through doors", "0.00", "0.25"),
          ("31", "Using keys with doors", "0.00", "0.54"), ("32", "Navigate to a room", "0.00", "0.20"),
          ("33", "Search for an object", "0.60", "1.00"))  # fmt: skip
LABEL = ("Principal and Interest", "Reference Rate")  # a head in lines down a tall cell: one cell


def _heat_map() -> bytes:
    """A results table whose "Completion" column draws rows 30 to 32 as one cell (a heat map's run of
    equal values in one fill), each value level with its row; a last column holds a head of two lines in
    one cell beside rows 30 and 31."""
    doc = pymupdf.open()
    page = doc.new_page(width=540, height=300)
    cols, top = (60, 90, 230, 300, 370, 480), 60.0
    for n, row in enumerate(SCORES):
        for x, cell in zip(cols, row, strict=False):
            page.insert_text((x + 4, top + n * HEIGHT + 13), cell, fontsize=9)
    for n, line in enumerate(LABEL):
        page.insert_text((cols[4] + 4, top + (n + 1) * HEIGHT + 13), line, fontsize=9)
    end = top + len(SCORES) * HEIGHT
    for n in range(len(SCORES) + 1):
        y = top + n * HEIGHT
        for a, b in pairwise(cols):
            merged = (a == cols[2] and n in (2, 3)) or (a == cols[4] and n == 2)
            if not merged:
                page.draw_line((a, y), (b, y))
    for x in cols:
        page.draw_line((x, top), (x, end))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_column_cell_over_rows_gives_each_row_its_level_value(parser):
    """DiscoveryWorld's Table 5 (issue 39): three "0.00" of one fill read "0.00 0.00 0.00" in row 30 and
    nothing in rows 31 and 32. Each value goes back to the row it stands level with; a label of two
    lines stays one cell, its second line level with the next row too (a bank's rate table lost its head
    "Principal and Interest Reference Rate" to a first version that took any lines)."""
    text = parse_bytes("scores.pdf", _heat_map(), settings=ParseSettings(pdf_parser=parser)).text
    assert "| 30 | Move through doors | 0.00 | 0.25 | Principal and Interest Reference Rate |" in text, text
    assert "| 31 | Using keys with doors | 0.00 | 0.54 |" in text
    assert "| 32 | Navigate to a room | 0.00 | 0.20 |" in text
