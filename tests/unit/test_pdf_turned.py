"""A wide table printed turned on a portrait page (its text running up or down the page): before, both
parsers read its lines along the page's x axis, so a column of the table came out as a row ("Kerala
Tamil Nadu Karnataka" on one line) and no row of the table stood on a line of its own."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_turned import turn_of

ROWS = (
    ("State", "Surveyed", "Men", "Women"),
    ("Kerala", "5738", "2161", "3195"),
    ("Tamil Nadu", "7387", "2134", "2858"),
    ("Karnataka", "6453", "2467", "2894"),
    ("Andhra Pradesh", "5844", "1899", "2493"),
    ("Maharashtra", "5161", "2368", "2648"),
)
TITLE = "Table 1: Coverage of the nutrition survey by period"


def _turned_table(rotate: int) -> bytes:
    """The table's text turned a quarter: ``rotate`` 90 runs it up the page, 270 down it."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    up = rotate == 90
    page.insert_text((100, 700) if up else (512, 92), TITLE, fontsize=10, rotate=rotate)
    for k, row in enumerate(ROWS, start=1):
        x = 120 + 20 * k if up else 492 - 20 * k
        for j, cell in enumerate(row):
            y = 700 - 130 * j if up else 92 + 130 * j
            page.insert_text((x, y), cell, fontsize=9, rotate=rotate)
    return doc.tobytes()


@pytest.mark.parametrize("rotate", [90, 270], ids=["up", "down"])
def test_a_turned_page_is_seen_as_turned(rotate):
    page = pymupdf.open(stream=_turned_table(rotate), filetype="pdf")[0]
    assert turn_of(page) == (-90 if rotate == 90 else 90)


def test_an_upright_page_is_not_turned():
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Kerala 5738 2161 3195", fontsize=9)
    page.insert_text((72, 300), "a note up the margin", fontsize=6, rotate=90)
    assert turn_of(page) is None


def test_a_landscape_page_stored_turned_is_not_turned():
    """Its text runs up the page as stored, and its /Rotate shows it across: it reads as it stands."""
    page = pymupdf.open(stream=_turned_table(90), filetype="pdf")[0]
    page.set_rotation(90)
    assert turn_of(page) is None


@pytest.mark.parametrize("parser", ["layout", "plain"])
@pytest.mark.parametrize("rotate", [90, 270], ids=["up", "down"])
def test_a_turned_tables_rows_are_read_as_rows(parser, rotate):
    text = parse_bytes("turned.pdf", _turned_table(rotate), settings=ParseSettings(pdf_parser=parser)).text
    for row in ROWS:
        line = next((x for x in text.splitlines() if row[0] in x), "")
        at = [line.find(c) for c in row]
        assert -1 not in at and at == sorted(at), (row, line)
    assert text.find(TITLE) < text.find("Kerala")
