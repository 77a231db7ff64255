"""Tables with rules missing (issue 39, the Federal Register's "Estimated costs"): rules across the table
run past its outer column rules (open sides), its column rules run on past the last rule across (the
table continues on the next page), and rows share one ruled cell. Before, pdfplumber found only the
inner columns and the layout parser put that part in place of the whole table: "Stabilizer wiring
change" and "Up to $766,865." were lost from the reading."""

from __future__ import annotations

from itertools import pairwise

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_rules import closing
from ragkit.ingestion.tables import table_to_markdown

COLUMNS = (45, 190, 340, 415, 495, 567)  # the x where each column starts, and the table's right end
HEADER = ("Action", "Labor cost", "Parts cost", "Cost per product", "Cost on operators")
ROWS = (
    (("Stabilizer wiring change ..........",), ("Up to 79 work-hours x $85 =", "Up to $6,715."),
     ("Up to $3,790 ......",), ("Up to $10,505 ....",), ("Up to $766,865.",)),
    (("AOA sensor system test ..........",), ("40 work-hours x $85 =", "$3,400."), ("$0 ........",),
     ("$3,400 ........",), ("$248,200.",)),
)  # fmt: skip
LEAD = 12  # points from one line to the next


def _estimated_costs(bottom_rule: bool = True) -> bytes:
    """A page with the Federal Register's table: rules across at the top, under the header and (unless
    the table goes on to the next page) at the bottom, all from x=45 to 567; rules down only between
    the columns, none at the outer edges; no rule between the two rows; a wrapped cell in each row."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_text((45, 40), "The agency estimates the following costs to comply with this AD:", fontsize=9)
    top, head = 60.0, 80.0
    for x, text in zip(COLUMNS, HEADER, strict=False):
        page.insert_text((x + 3, top + 13), text, fontsize=8)
    y = head + 12
    for row in ROWS:
        for x, cell in zip(COLUMNS, row, strict=False):
            for k, line in enumerate(cell):
                page.insert_text((x + 3 + 6 * (k > 0), y + k * LEAD), line, fontsize=8)
        y += 2 * LEAD + 4
    bottom = y - LEAD
    for rule in (top, head) + ((bottom,) if bottom_rule else ()):
        page.draw_line((COLUMNS[0], rule), (COLUMNS[-1], rule))
    for x in COLUMNS[1:-1]:
        page.draw_line((x, top), (x, bottom))
    page.insert_text((45, bottom + 30), "The FAA has received no definitive data on the flight.", fontsize=9)
    return doc.tobytes()


def _reading(data: bytes, parser: str) -> str:
    return parse_bytes("costs.pdf", data, settings=ParseSettings(pdf_parser=parser)).text


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


@pytest.mark.parametrize("parser", ["layout", "plain"])
@pytest.mark.parametrize("bottom_rule", [True, False], ids=["closed-bottom", "continued-on-next-page"])
def test_a_table_with_open_sides_is_read_whole_row_by_row(parser, bottom_rule):
    text = _reading(_estimated_costs(bottom_rule), parser)
    assert _row(*HEADER) in text
    assert _row("Stabilizer wiring change", "Up to 79 work-hours x $85 = Up to $6,715.", "Up to $3,790",
                "Up to $10,505", "Up to $766,865.") in text  # fmt: skip
    assert (
        _row("AOA sensor system test", "40 work-hours x $85 = $3,400.", "$0", "$3,400", "$248,200.") in text
    )
    assert "The FAA has received no definitive data" in text  # the prose below stays prose


def test_a_rule_across_is_followed_to_where_it_ends_and_a_column_rule_to_where_it_stops():
    across = [{"orientation": "h", "top": y, "x0": x0, "x1": x1} for y in (60, 100)
              for x0, x1 in ((45, 190), (190, 495), (495, 567))]  # fmt: skip
    down = [{"orientation": "v", "x0": x, "top": t, "bottom": b} for x in (190, 495)
            for t, b in ((60, 100), (100, 130))]  # fmt: skip
    assert closing((190, 60, 495, 100), across + down) == (45, 60, 567, 130)
    # a rule across at the top only (a heading's underline) opens no side
    assert closing((190, 60, 495, 100), across[:3]) == (190, 60, 495, 100)
    # a page's column rule that runs through the table from above is not the table's own
    page_rule = {"orientation": "v", "x0": 495, "top": 20, "bottom": 700}
    assert closing((190, 60, 495, 100), across + down[:2] + [page_rule]) == (45, 60, 567, 100)


def test_dot_leaders_are_dropped_from_cells_and_an_ellipsis_is_kept():
    md = table_to_markdown([["Item", "Cost"], ["Parts ............", "$0 . . . . . . ."], ["Wait...", "1"]])
    assert "| Parts | $0 |" in md and "| Wait... | 1 |" in md
    # a label that nearly fills its cell leaves two spaced dots of its leader; a form's ellipsis stays
    md = table_to_markdown([["Offence", "Arrests"], ["Curfew and loitering law violations . .", "12"],
                            ["IF the age was . . .", "3"]])  # fmt: skip
    assert "| Curfew and loitering law violations | 12 |" in md and "| IF the age was . . . | 3 |" in md


def _banded_table() -> bytes:
    """A report's comparison table: a filled band behind the header closes it at both sides, but below
    the band there are rules across and between the columns only, none at the outer edges; the last
    row's third cell runs five lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=400)
    cols, top, band = (60, 120, 240, 360), 60.0, 76.0
    for x0, x1 in pairwise(cols):
        page.draw_rect(pymupdf.Rect(x0, top, x1, band), color=None, fill=(0.5, 0.7, 0.9))
    for x, text in zip(cols, ("Class", "Before", "After"), strict=False):
        page.insert_text((x + 4, top + 12), text, fontsize=8)
    listed = ("Some codes", "included:", "1. Novel syndrome", "2. SARS", "3. MERS")
    rows = (
        ("Criterion", ("Spread by water",), ("Spread by air or contact",)),
        ("Code", ("No code",), listed),
    )
    y = band
    for label, before, after in rows:
        page.insert_text((cols[0] + 4, y + 12), label, fontsize=8)
        for x, cell in ((cols[1], before), (cols[2], after)):
            for k, line in enumerate(cell):
                page.insert_text((x + 4, y + 12 + k * LEAD), line, fontsize=8)
        y += LEAD * max(len(before), len(after)) + 6
        page.draw_line((cols[0], y), (cols[-1], y))
    for x in cols[1:-1]:
        page.draw_line((x, band), (x, y))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_table_closed_only_by_its_header_band_keeps_its_outer_columns(parser):
    """The Korean report's table (docling's test PDF ``normal_4pages``): pdfplumber found the whole box
    but cells only in the middle column, and the row labels and the whole right column were lost."""
    text = _reading(_banded_table(), parser)
    assert _row("Class", "Before", "After") in text
    assert _row("Criterion", "Spread by water", "Spread by air or contact") in text
    assert _row("Code", "No code", "Some codes included: 1. Novel syndrome 2. SARS 3. MERS") in text


def test_header_words_turned_up_their_cells_read_in_order():
    """IBM's Redpaper (docling's ``redp5110_sampled``): column headers set bottom to top read backwards,
    "LTCBOJ*" for "*JOBCTL", and a two-word header upside down, "Authority No"."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    cols, rows = (40, 160, 220, 280), (40.0, 120.0, 140.0, 160.0)
    for x in cols:
        page.draw_line((x, rows[0]), (x, rows[-1]))
    for y in rows:
        page.draw_line((cols[0], y), (cols[-1], y))
    page.insert_text((44, 110), "User action", fontsize=8)
    for x, word in ((cols[1], "*JOBCTL"), (cols[2], "No Authority")):
        page.insert_text((x + 30, 114), word, fontsize=8, rotate=90)
    for y, label, marks in (
        (rows[1], "SET CURRENT DEGREE", ("X", "")),
        (rows[2], "CHGQRYA command", ("", "X")),
    ):
        page.insert_text((44, y + 13), label, fontsize=8)
        for x, mark in zip(cols[1:], marks, strict=False):
            page.insert_text((x + 20, y + 13), mark, fontsize=8)
    text = _reading(doc.tobytes(), "layout")
    assert _row("User action", "*JOBCTL", "No Authority") in text
    assert _row("SET CURRENT DEGREE", "X", "") in text


def test_a_glyph_no_character_stands_for_is_not_read_as_its_name():
    md = table_to_markdown(
        [["Column", "Meaning"], ["USAGE", "(cid:2) ALLOWED: may use it. (cid:2) DENIED: may not."]]
    )
    assert "| USAGE | ALLOWED: may use it. DENIED: may not. |" in md


def test_a_table_whose_rules_run_off_the_page_still_reads_its_cells():
    """pdfplumber's ``issue-71`` PDF: a table's rules drawn past the page's edge; cropping the page to
    the table raised, and the page lost every ruled table to the layout engine's guess."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    xs, ys = (40, 120, 200, 380), (40, 60, 80)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    cells = ("Sample", "pH", "PCO2", "Arterial", "7.38 - 7.42", "36 - 44")
    for k, text in enumerate(cells):
        page.insert_text((xs[k % 3] + 4, 54 + 20 * (k // 3)), text, fontsize=8)
    text = _reading(doc.tobytes(), "plain")
    assert _row("Arterial", "7.38 - 7.42", "36 - 44") in text
