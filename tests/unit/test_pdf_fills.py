"""A table drawn as shaded cells, each cell's text on a second rectangle of the same shade (its padding),
and prose set on white rectangles on the white page (an annual report's Data.gov table, issue 39): the
inner rectangles show no edge, and pdfplumber read ten columns for four, the header's "Launch:" and
"May 21, 2009" as two rows, and the prose as one-column tables. Fills that show no edge make none."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_fills import rgb, unseen

NAVY, PALE = (0.09, 0.21, 0.36), (0.78, 0.85, 0.94)
COLUMNS = (67, 260, 346, 433, 530)  # each column's left edge, and the table's right edge
HEADER = ((), ("Launch:", "May 21, 2009"), ("1 Year:", "May 21, 2010"), ("FY 2010", "Sept. 30, 2011"))
ROWS = (
    ("Total data sets available", "47", "272,768", "389,933"),
    ("Data set downloads", "0", "652,412", "2,348,928"),
)
PROSE = (
    "The Data.gov team makes public-sector data available to everyone and creates a directory.",
    "Data.gov increases the public's ability to easily find, download, and use data sets.",
)


def _cell(
    page: pymupdf.Page, box: tuple[float, float, float, float], fill: tuple, lines: list[str], white: bool
):
    """A shaded cell, its padding drawn again in the same shade inside it, each line on its own padding."""
    page.draw_rect(pymupdf.Rect(box), color=None, fill=fill, width=0)
    x0, y0, x1, y1 = box
    step = (y1 - y0) / max(len(lines), 1)
    for k, line in enumerate(lines):
        page.draw_rect(
            pymupdf.Rect(x0 + 5, y0 + k * step, x1 - 5, y0 + (k + 1) * step), color=None, fill=fill, width=0
        )
        page.insert_text(
            (x0 + 8, y0 + k * step + step / 2 + 3), line, fontsize=9, color=(1, 1, 1) if white else (0, 0, 0)
        )


def _report() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=400)
    for k, line in enumerate(PROSE):  # each prose line on a white rectangle
        page.draw_rect(pymupdf.Rect(72, 40 + 16 * k, 530, 54 + 16 * k), color=None, fill=(1, 1, 1), width=0)
        page.insert_text((72, 51 + 16 * k), line, fontsize=9)
    top = 100.0
    for k in range(4):  # the header: two lines to a cell, each on its own padding
        _cell(page, (COLUMNS[k] + 0.5, top, COLUMNS[k + 1] - 0.5, top + 52), NAVY, list(HEADER[k]), True)
    for n, row in enumerate(ROWS):
        y = top + 53 + 26 * n
        for k in range(4):
            fill = NAVY if k == 0 else PALE
            _cell(page, (COLUMNS[k] + 0.5, y, COLUMNS[k + 1] - 0.5, y + 25), fill, [row[k]], k == 0)
    return doc.tobytes()


def test_only_fills_of_the_colour_behind_them_are_unseen():
    rects = [
        {"x0": 0, "top": 0, "x1": 100, "bottom": 50, "fill": True, "non_stroking_color": list(NAVY)},
        {
            "x0": 5,
            "top": 0,
            "x1": 95,
            "bottom": 25,
            "fill": True,
            "non_stroking_color": list(NAVY),
        },  # padding
        {
            "x0": 5,
            "top": 25,
            "x1": 95,
            "bottom": 50,
            "fill": True,
            "non_stroking_color": 1.0,
        },  # white on navy
        {
            "x0": 200,
            "top": 0,
            "x1": 300,
            "bottom": 20,
            "fill": True,
            "non_stroking_color": 1.0,
        },  # white on page
        {
            "x0": 200,
            "top": 30,
            "x1": 300,
            "bottom": 50,
            "fill": True,
            "stroke": True,
            "non_stroking_color": 1.0,
        },
    ]
    assert unseen(rects) == [1, 3]
    assert rgb((0, 0, 0, 1)) == (0.0, 0.0, 0.0) and rgb("pattern") is None


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_table_of_shaded_cells_reads_in_its_own_columns_and_rows(parser):
    text = parse_bytes("report.pdf", _report(), settings=ParseSettings(pdf_parser=parser)).text
    lines = text.splitlines()
    header = "| " + " | ".join(" ".join(cell) for cell in HEADER[1:]) + " |"
    assert header in [x.replace("|  |", "|") for x in lines], text
    for row in ROWS:
        assert "| " + " | ".join(row) + " |" in lines, (row, text)
    for line in PROSE:  # prose, not a table's rows
        assert line in text and f"| {line} |" not in text, text


#: a word processor's shaded table: each cell padded left and right by strips as tall as the cell, each
#: line of its text on a strip of its own between them (stacked edge to edge), rows a gap apart
WORD_COLUMNS = (60, 200, 330, 440)
WORD_HEADER = (("Region",), ("Total", "Revenue &", "Capital"), ("Count",))
WORD_ROWS = (("Andhra Pradesh", "59,082,426", "14"), ("Assam", "17,590,618", "9"))


def _word_cell(page: pymupdf.Page, x0: float, x1: float, top: float, lines: tuple[str, ...], tall: float):
    """One shaded cell as a word processor draws it: padding strips, one strip per line, a filler below."""
    step = 12.0
    for box in ((x0, top, x0 + 5, top + tall), (x1 - 5, top, x1, top + tall)):  # the padding
        page.draw_rect(pymupdf.Rect(box), color=None, fill=PALE, width=0)
    for k, line in enumerate(lines):
        page.draw_rect(
            pymupdf.Rect(x0 + 5, top + k * step, x1 - 5, top + (k + 1) * step), color=None, fill=PALE
        )
        page.insert_text((x0 + 7, top + k * step + 9), line, fontsize=9)
    if len(lines) * step < tall:
        page.draw_rect(pymupdf.Rect(x0, top + len(lines) * step, x1, top + tall), color=None, fill=PALE)


def _word_table(stripped_rows: bool) -> bytes:
    """The table above; with ``stripped_rows`` its body is drawn as one strip per cell, rows stacked edge
    to edge with no padding (a shaded table whose rows touch): those are rows, not one cell's lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=500, height=300)
    page.insert_text((60, 40), "Table 5: Public health outlay by region.", fontsize=9)
    for k, lines in enumerate(WORD_HEADER):
        _word_cell(page, WORD_COLUMNS[k] + 0.5, WORD_COLUMNS[k + 1] - 0.5, 60, lines, 40)
    for n, row in enumerate(WORD_ROWS):
        top = 101 + (14 if stripped_rows else 15) * n
        for k, value in enumerate(row):
            x0, x1 = WORD_COLUMNS[k] + 0.5, WORD_COLUMNS[k + 1] - 0.5
            if stripped_rows:
                page.draw_rect(pymupdf.Rect(x0, top, x1, top + 14), color=None, fill=PALE, width=0)
                page.insert_text((x0 + 7, top + 10), value, fontsize=9)
            else:
                _word_cell(page, x0, x1, top, (value,), 14)
    return doc.tobytes()


@pytest.mark.parametrize("stripped_rows", [False, True])
def test_a_shaded_cell_drawn_in_strips_line_by_line_is_one_cell(stripped_rows):
    """camelot's health table (issue 39): the header cell "Total / Revenue & / Capital" is drawn as three
    strips between two padding strips, and their edges cut it into three rows ("| Total |", "| Revenue & |",
    "| Capital |"), so the header row a reader quotes was nowhere. It reads as one cell; rows of shaded
    cells that touch stay rows."""
    text = parse_bytes(
        "outlay.pdf", _word_table(stripped_rows), settings=ParseSettings(pdf_parser="layout")
    ).text
    lines = [x.replace("|  |", "|") for x in text.splitlines()]
    assert "| Region | Total Revenue & Capital | Count |" in lines, text
    for row in WORD_ROWS:
        assert "| " + " | ".join(row) + " |" in lines, (row, text)
