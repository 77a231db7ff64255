"""A footnote's raised number that the font flags do not mark (issue 39, a DLHS fact sheet: "Haemoglobin
Level" then "14" in a smaller font above the baseline): pdfplumber read it into the word, "Level14 (%)", a
number the page does not print. It is read as a superscript, as a flagged one is."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings


def _ruled(raise_by: float) -> bytes:
    """A ruled two-column table whose first label carries a 5-point number ``raise_by`` points up."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=300)
    xs, ys = (72, 300, 400), (60, 80, 100, 120)
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    page.insert_text((76, 74), "Indicator", fontsize=8)
    page.insert_text((304, 74), "Total", fontsize=8)
    label = "Haemoglobin Level"
    page.insert_text((76, 94), label, fontsize=8)
    end = 76 + pymupdf.get_text_length(label, fontsize=8)
    page.insert_text((end + 0.3, 94 - raise_by), "14", fontsize=5)
    page.insert_text((end + 0.3 + pymupdf.get_text_length("14", fontsize=5), 94), " (%)", fontsize=8)
    page.insert_text((304, 94), "51.2", fontsize=8)
    page.insert_text((76, 114), "Children aged 6-9 years", fontsize=8)
    page.insert_text((304, 114), "37.9", fontsize=8)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_raised_number_in_a_ruled_cell_is_read_as_a_superscript(parser):
    text = parse_bytes("dlhs.pdf", _ruled(2.5), settings=ParseSettings(pdf_parser=parser)).text
    assert "| Haemoglobin Level¹⁴ (%) | 51.2 |" in text
    assert "| Children aged 6-9 years | 37.9 |" in text  # digits on the line are no mark


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_smaller_number_on_the_baseline_is_no_mark(parser):
    text = parse_bytes("dlhs.pdf", _ruled(0.0), settings=ParseSettings(pdf_parser=parser)).text
    assert "Level14" in text.replace(" ", "") and "¹⁴" not in text
