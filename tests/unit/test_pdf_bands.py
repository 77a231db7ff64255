"""A ruled header whose columns are ruled at different heights (a label centred in a tall cell beside a
cell ruled into two lines): pdfplumber cuts the header at every rule of any column, so before, the
header was read as three rows ("| State | n | | Read & |" over "| | | Illiterate | |" over
"| | | | Write |") and no line held the header's labels."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings

COLS = (72, 180, 230, 300, 370, 440)  # the x of each column rule
BODY = (
    ("Kerala", "2400", "7.2", "0.5", "25.3"),
    ("Tamil Nadu", "2400", "21.4", "2.3", "8.8"),
    ("Karnataka", "2399", "37.4", "2.8", "12.5"),
)


def _header_table() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_text((72, 50), "Table 6: Households by literacy status of the head", fontsize=9)
    top, bottom = 60, 90  # the header's band
    page.draw_line((COLS[0], top), (COLS[-1], top))
    for x in COLS:
        page.draw_line((x, top), (x, bottom + 16 * len(BODY)))
    # column 1 ("State") and 2 ("n"): one tall cell; column 4 ruled into two lines; 3 and 5 into three
    page.draw_line((COLS[2], top + 10), (COLS[3], top + 10))
    page.draw_line((COLS[2], top + 20), (COLS[3], top + 20))
    page.draw_line((COLS[3], top + 15), (COLS[4], top + 15))
    page.draw_line((COLS[4], top + 10), (COLS[5], top + 10))
    page.draw_line((COLS[4], top + 20), (COLS[5], top + 20))
    page.insert_text((COLS[0] + 4, top + 18), "State", fontsize=8)
    page.insert_text((COLS[1] + 4, top + 18), "n", fontsize=8)
    page.insert_text((COLS[2] + 4, top + 18), "Illiterate", fontsize=8)
    page.insert_text((COLS[3] + 4, top + 12), "Read &", fontsize=8)
    page.insert_text((COLS[3] + 4, top + 26), "Write", fontsize=8)
    page.insert_text((COLS[4] + 4, top + 18), "1-4 std.", fontsize=8)
    for k, row in enumerate(BODY):
        y = bottom + 16 * k
        page.draw_line((COLS[0], y), (COLS[-1], y))
        for x, cell in zip(COLS, row, strict=False):
            page.insert_text((x + 4, y + 12), cell, fontsize=8)
    page.draw_line((COLS[0], bottom + 16 * len(BODY)), (COLS[-1], bottom + 16 * len(BODY)))
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_header_ruled_at_different_heights_is_one_row(parser):
    text = parse_bytes("header.pdf", _header_table(), settings=ParseSettings(pdf_parser=parser)).text
    header = ("State", "n", "Illiterate", "Read & Write", "1-4 std.")
    line = next((x for x in text.splitlines() if "State" in x), "")
    at = [line.find(c) for c in header]
    assert -1 not in at and at == sorted(at), line
    for row in BODY:
        line = next((x for x in text.splitlines() if row[0] in x), "")
        assert all(c in line for c in row), (row, line)


def _tall_label() -> bytes:
    """A label in a tall cell beside two rows of values, each row's values in columns of their own."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=300)
    xs, top = (72, 160, 240, 320), 60
    for y in (top, top + 32, top + 48):
        page.draw_line((xs[0], y), (xs[-1], y))
    page.draw_line((xs[1], top + 16), (xs[-1], top + 16))  # the label's cell is not cut
    for x in xs:
        page.draw_line((x, top), (x, top + 48))
    page.insert_text((xs[0] + 4, top + 20), "Region", fontsize=8)
    page.insert_text((xs[1] + 4, top + 12), "Rural", fontsize=8)
    page.insert_text((xs[2] + 4, top + 28), "Urban", fontsize=8)
    page.insert_text((xs[0] + 4, top + 44), "North", fontsize=8)
    page.insert_text((xs[1] + 4, top + 44), "12", fontsize=8)
    page.insert_text((xs[2] + 4, top + 44), "15", fontsize=8)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_tall_label_beside_rows_of_their_own_stays_rows(parser):
    text = parse_bytes("tall.pdf", _tall_label(), settings=ParseSettings(pdf_parser=parser)).text
    assert not any("Rural" in x and "Urban" in x for x in text.splitlines()), text
    assert "Region" in text and "North" in text
