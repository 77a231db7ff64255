"""A frame round a page (issue 39, an Annual Health Survey fact sheet: a side strip with the state's name, a
title band, the district table inside): pdfplumber found the frame as a table of its own, and the whole
district table was read as one cell of it, or twice. The frame is no table; the table in it is."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings


def _framed() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.draw_rect(pymupdf.Rect(30, 30, 582, 370))  # the frame
    page.draw_line((90, 30), (90, 370))  # its side strip
    page.draw_line((90, 340), (582, 340))  # its footer band
    page.insert_text((40, 200), "ASSAM", fontsize=10)
    page.insert_text((110, 360), "Annual Health Survey 2010-11", fontsize=8)
    page.insert_text((110, 60), "SCHOOLING STATUS", fontsize=11)
    xs, ys = (110, 260, 360, 460), (80, 100, 120, 140, 160)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    rows = [("District", "Person", "Male"), ("Barpeta", "88.8", "88.6"), ("Cachar", "85.3", "84.9"),
            ("Darrang", "83.2", "82.8")]  # fmt: skip
    for y, row in zip(ys, rows, strict=False):
        for x, cell in zip(xs, row, strict=False):
            page.insert_text((x + 4, y + 14), cell, fontsize=9)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_frame_round_a_table_is_no_table_and_the_table_in_it_is_read_once(parser):
    text = parse_bytes("ahs.pdf", _framed(), settings=ParseSettings(pdf_parser=parser)).text
    assert "| Barpeta | 88.8 | 88.6 |" in text
    assert text.count("Barpeta") == 1
    assert "ASSAM" in text and "SCHOOLING STATUS" in text
