"""A wide table printed turned on a portrait page (its text running up or down the page): before, both
parsers read its lines along the page's x axis, so a column of the table came out as a row ("Kerala
Tamil Nadu Karnataka" on one line) and no row of the table stood on a line of its own."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_turned import turn_of, turned_part

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


PROSE = (
    "The survey reached every district of the five states in the period. "
    "Field teams visited households twice, once in the dry season and once after the rains. "
) * 6


def _turned_in_one_column(heads_only: bool = False) -> bytes:
    """An upright page: running text in its right half, and in its left half the table turned up the
    page (``heads_only``: an upright table whose column heads alone are turned)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(330, 72, 560, 720), PROSE, fontsize=10)
    if heads_only:
        for j, head in enumerate(ROWS[0]):
            page.insert_text((60 + 60 * j, 160), head, fontsize=9, rotate=90)
        for k, row in enumerate(ROWS[1:], start=1):
            for j, cell in enumerate(row):
                page.insert_text((50 + 60 * j, 160 + 16 * k), cell, fontsize=9)
        return doc.tobytes()
    page.insert_text((60, 700), TITLE, fontsize=10, rotate=90)
    for k, row in enumerate(ROWS, start=1):
        for j, cell in enumerate(row):
            page.insert_text((70 + 20 * k, 700 - 130 * j), cell, fontsize=9, rotate=90)
    return doc.tobytes()


def test_a_table_turned_in_one_column_of_an_upright_page_is_read_upright():
    """Before, the layout parser read such a table's columns as rows ("State Kerala Tamil Nadu …")."""
    data = _turned_in_one_column()
    assert turn_of(pymupdf.open(stream=data, filetype="pdf")[0]) is None  # the page is not turned whole
    text = parse_bytes("part.pdf", data, settings=ParseSettings(pdf_parser="layout")).text
    for row in ROWS:
        line = next((x for x in text.splitlines() if row[0] in x), "")
        at = [line.find(c) for c in row]
        assert -1 not in at and at == sorted(at), (row, line)
    assert TITLE in text
    assert "Field teams visited households twice" in text  # the running text beside it stays


def test_an_upright_tables_turned_heads_are_no_turned_part():
    page = pymupdf.open(stream=_turned_in_one_column(heads_only=True), filetype="pdf")[0]
    assert turned_part(page) is None
    assert turned_part(pymupdf.open(stream=_turned_in_one_column(), filetype="pdf")[0]) is not None
