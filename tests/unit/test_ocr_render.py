"""A coarse scan in a PDF (issue 39, a 72-dpi screenshot of a Wikipedia page saved as PDF): MuPDF drew its
image enlarged in blocks and Tesseract misread the staircase letters ("poliaes", "religous"); the page is
rendered at the scan's own resolution and enlarged smoothly."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.ocr_render import grey, scan_dpi
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")

TEXT = (
    "Edgar mainly followed the political policies of his predecessors, but there were major changes "
    "in the religious sphere. The English Benedictine Reform, which he strongly supported, became a "
    "dominant religious and social force. It is seen by historians as a major achievement, and it was "
    "accompanied by a literary and artistic flowering, mainly associated with the bishop of Winchester."
)


def _scan(dpi: int, size: float = 9) -> pymupdf.Document:
    """An image-only PDF page: a paragraph of ``size``-point type scanned at ``dpi``."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(60, 60, 330, 400), TEXT, fontsize=size, fontname="tiro")
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), pixmap=pix)
    return scan


def test_the_resolution_of_a_scan_is_that_of_the_image_covering_the_page():
    assert scan_dpi(_scan(72)[0], _scan(72)[0].rect) == pytest.approx(72, abs=1)
    assert scan_dpi(_scan(150)[0], _scan(150)[0].rect) == pytest.approx(150, abs=1)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)  # a small picture on a page of text: no scan
    page.insert_image(pymupdf.Rect(60, 60, 160, 160), pixmap=_scan(72)[0].get_pixmap(dpi=10))
    assert scan_dpi(page, page.rect) is None
    assert scan_dpi(page, pymupdf.Rect(60, 60, 160, 160)) is not None  # the picture, read alone


def _blocky(pix: pymupdf.Pixmap) -> float:
    """The share of inked pixels equal to their right-hand neighbour: near 1 for a blocky enlargement."""
    row = pix.width
    data = pix.samples
    same = inked = 0
    for i in range(0, len(data) - 1, 7):
        if data[i] < 200 and (i + 1) % row:
            inked += 1
            same += data[i] == data[i + 1]
    return same / max(inked, 1)


def test_a_coarse_scan_is_enlarged_smoothly_and_a_fine_one_drawn_as_before():
    coarse = _scan(72)[0]
    smooth = grey(coarse, 300, None)
    assert (smooth.width, smooth.height) == (2550, 3300)  # the size asked for, so boxes map to the page
    drawn = coarse.get_pixmap(matrix=pymupdf.Matrix(300 / 72, 300 / 72), colorspace=pymupdf.csGRAY)
    assert _blocky(smooth) < _blocky(drawn) - 0.2
    fine = _scan(300)[0]
    assert grey(fine, 300, None).samples == fine.get_pixmap(dpi=300, colorspace=pymupdf.csGRAY).samples


@needs_tesseract
def test_a_72_dpi_scan_of_small_type_is_read_word_for_word():
    text = parse_bytes("screenshot.pdf", _scan(72).tobytes()).text
    read = text.split()
    words = TEXT.split()
    # drawn in blocks, 44 of these 59 words were read right
    assert sum(w in read for w in words) >= 0.85 * len(words), text
