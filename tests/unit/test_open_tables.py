"""Tables with rules missing (issue 39, the Federal Register's "Estimated costs"): rules across the table
run past its outer column rules (open sides), its column rules run on past the last rule across (the
table continues on the next page), and rows share one ruled cell. Before, pdfplumber found only the
inner columns and the layout parser put that part in place of the whole table: "Stabilizer wiring
change" and "Up to $766,865." were lost from the reading."""

from __future__ import annotations

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
