"""An image whose stated resolution is not its scan's (issue 39: a 770-pixel typescript page tagged 300 dpi):
its lines were 13 pixels high, and Tesseract read "ené sebotage" for "and sabotage". A page whose text is
drawn that small is read again enlarged, and the surer reading is kept."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.core.folding import fold
from ragkit.ingestion import ocr
from ragkit.ingestion.ocr_tsv import line_height
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(ocr.tesseract_path() is None, reason="Tesseract is not installed")

TEXT = (
    "WHEREAS the successful prosecution of the war requires every possible protection against espionage "
    "and against sabotage to national-defense material, national-defense premises, and national-defense "
    "utilities as defined in Section 4 of the Act of April 20, 1918."
)


def _small_scan(dpi: int) -> bytes:
    """A PNG of a typescript paragraph (10-point Courier) scanned at ``dpi`` but tagged 300 dpi."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=300)
    page.insert_textbox(pymupdf.Rect(60, 40, 552, 280), TEXT, fontsize=10, fontname="cour")
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    pix.set_dpi(300, 300)
    return pix.tobytes("png")


@needs_tesseract
def test_text_drawn_too_small_for_tesseract_is_read_again_enlarged(monkeypatch):
    png = _small_scan(70)
    assert fold(TEXT) in fold(parse_bytes("scan.png", png).text)
    monkeypatch.setattr(ocr, "SMALL_TEXT_PX", 0)  # read once, as it was: most of the paragraph is lost
    assert fold("requires every possible protection") not in fold(parse_bytes("scan.png", png).text)


def test_the_line_height_is_the_median_of_the_lines_that_hold_words():
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "4\t1\t1\t1\t1\t0\t0\t0\t100\t12\t-1\t",
        "5\t1\t1\t1\t1\t1\t0\t0\t40\t12\t90\tThe",
        "4\t1\t1\t1\t2\t0\t0\t20\t100\t14\t-1\t",
        "5\t1\t1\t1\t2\t1\t0\t20\t40\t14\t90\tend",
        "4\t1\t1\t1\t3\t0\t0\t40\t100\t60\t-1\t",  # a line Tesseract found no word on
        "4\t1\t1\t1\t4\t0\t0\t110\t100\t13\t-1\t",
        "5\t1\t1\t1\t4\t1\t0\t110\t40\t13\t90\tof",
    ]
    assert line_height("\n".join([head, *rows])) == 13
    assert line_height(head) is None
