"""A ruled table in a scan is read row by row without cutting the tops of its letters."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.pdf import parse_image

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")


def _table_scan() -> bytes:
    """A screenshot of a wide ruled table (72 dpi) whose text sits close under each row's top rule."""
    doc = pymupdf.open()
    page = doc.new_page(width=1000, height=420)
    xs = [40, 200, 330, 460, 620, 790, 960]
    for k, row in enumerate(ROWS):
        for x0, cell in zip(xs, row, strict=False):
            page.insert_text((x0 + 8, 40 + 70 * k + 18), cell, fontsize=16, fontname="helv")
    for k in range(len(ROWS) + 1):
        page.draw_line((xs[0], 40 + 70 * k), (xs[-1], 40 + 70 * k), width=1.5)
    for x in xs:
        page.draw_line((x, 40), (x, 40 + 70 * len(ROWS)), width=1.5)
    return page.get_pixmap(dpi=72).tobytes("png")


ROWS = (
    ("Blind", "5", "1", "4", "34.5%, n=1", "1199 sec, n=1"),
    ("Low Vision", "5", "2", "3", "98.3%, n=2", "1716 sec, n=3"),
    ("Dexterity", "5", "4", "1", "98.3%, n=4", "1672.1 sec, n=4"),
    ("Mobility", "3", "3", "0", "95.4%, n=3", "1416 sec, n=3"),
)


@needs_tesseract
def test_each_row_of_a_ruled_table_reads_whole_not_cut_at_its_top():
    """A row's box was inset by a hundredth of its width, top and bottom too: in a wide, low row that cut
    the tops of its letters ("DUNG" for "Blind", "VEXTEHLy" for "Dexterity")."""
    pages, _ = parse_image("ballots.png", _table_scan())
    for row in ROWS:
        assert " | ".join(row) in pages[0].text
