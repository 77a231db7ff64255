"""A low-resolution scan is enlarged by Lanczos resampling before Tesseract reads it: enlarged by
MuPDF's own scaling, small print was misread ("S CPR" for "5 CFR", "(265" for "0.65", "$2.1" for
"§2.1" on a 96-dpi CFR page)."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.core.folding import fold
from ragkit.ingestion.ocr import enlarged, tesseract_path
from ragkit.ingestion.pdf import parse_image

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")

LINES = (
    "PART 2-APPOINTMENT THROUGH THE COMPETITIVE SERVICE (RULE II)",
    "§ 2.1 Competitive examinations and eligible registers.",
    "2.4 Probationary period.",
    "5 CFR Ch. II (1-1-22 Edition)",
    "The rate was 0.65 per cent in 1963, and 12.5 per cent in 1974.",
    "E.O. 13764, 82 FR 8115, Jan. 23, 2017.",
    "Sec. 3.1 Noncompetitive acquisition of status; 3.2 Appointments.",
)


def _scan(dpi: int = 96) -> bytes:
    """A page of 8-point print, three times over, scanned in grey at ``dpi`` as a JPEG."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 72
    for _ in range(3):
        for line in LINES:
            page.insert_text((54, y), line, fontsize=8, fontname="tiro")
            y += 14
    return page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY).tobytes("jpg", jpg_quality=75)


@needs_tesseract
def test_small_print_of_a_low_resolution_scan_reads_true():
    pages, _ = parse_image("cfr-96dpi.jpg", _scan())
    text = fold(pages[0].text)
    assert text.count(fold("5 CFR Ch. II (1-1-22 Edition)")) >= 2
    assert text.count(fold("E.O. 13764, 82 FR 8115, Jan. 23, 2017.")) >= 2


def test_the_enlarged_page_is_drawn_pixel_for_pixel_at_its_resolution():
    """Rendered at the resolution it was enlarged to, the page is the resampled picture itself (no
    second scaling by MuPDF), and it keeps the page's size in points."""
    page = pymupdf.open("jpg", _scan()).load_page(0)
    with enlarged(page, 96, 200) as big:
        pix = big.load_page(0).get_pixmap(matrix=pymupdf.Matrix(200 / 72, 200 / 72))
        assert (pix.width, pix.height) == (
            round(page.rect.width * 200 / 72),
            round(page.rect.height * 200 / 72),
        )
        assert big.load_page(0).rect.width == pytest.approx(page.rect.width, abs=0.5)


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
