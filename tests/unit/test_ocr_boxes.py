"""A table in a frame on a scanned page (issue 39, a DEXA report's results): Tesseract's page layout reads
it column by column (or drops a column); the frame is found in the page image and read alone, row by
row, so "L Spine 47.04 54.62 1.161" is one line of the reading."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pymupdf
import pytest

from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.ocr_boxes import MOST_BOXES, box_rows, ruled_boxes
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")

ROWS = (
    ("Region", "Area", "BMC", "BMD"),
    ("L Arm", "197.82", "159.60", "0.807"),
    ("T Spine", "148.77", "130.68", "0.878"),
    ("L Spine", "47.04", "54.62", "1.161"),
    ("Pelvis", "240.04", "307.24", "1.280"),
    ("Total", "2131.39", "2455.33", "1.152"),
)


def _scan(frame: bool = True) -> bytes:
    """An image-only PDF (a scan at 200 dpi) of a report page: a heading, a paragraph, and the results
    table in a frame of thick rules, its columns far apart."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((60, 80), "Bone Density Report", fontsize=18)
    page.insert_textbox(
        pymupdf.Rect(60, 100, 550, 160),
        "The scan was taken on the Discovery A model. The results of each region are given below.",
        fontsize=11,
    )
    left, top = 300, 200
    for k, row in enumerate(ROWS):
        for j, cell in enumerate(row):
            page.insert_text((left + 8 + [0, 70, 135, 200][j], top + 22 + 20 * k), cell, fontsize=10)
    if frame:
        page.draw_rect(pymupdf.Rect(left, top, left + 250, top + 22 + 20 * len(ROWS)), width=2.5)
    page.insert_text((60, 600), "Image not for diagnostic use.", fontsize=11)
    pix = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    scan = pymupdf.open()
    scan.new_page(width=612, height=792).insert_image(pymupdf.Rect(0, 0, 612, 792), pixmap=pix)
    return scan.tobytes()


@needs_tesseract
def test_a_framed_table_on_a_scan_is_read_row_by_row_as_a_table():
    doc = parse_bytes("dexa.pdf", _scan())
    text = doc.text
    lines = [" ".join(line.split()) for line in text.splitlines()]
    for row in ROWS:
        assert "| " + " | ".join(row) + " |" in lines, text
    assert doc.pages[0].tables == 1
    assert "Bone Density Report" in text and "Image not for diagnostic use." in text
    assert text.index("Bone Density Report") < text.index("L Spine") < text.index("Image not for")


def test_a_boxs_words_in_columns_are_rows_of_cells_under_a_merged_header():
    def line(n: int, *cells: tuple[int, str]) -> list:
        return [((1, 1, n), x, x + 8 * len(t), t) for x, t in cells]

    words = (line(1, (0, "Region"), (200, "Area"), (400, "BMD"))
             + line(2, (200, "(cm2)"), (400, "(g/cm2)"))
             + line(3, (0, "L"), (16, "Spine"), (200, "47.04"), (400, "1.161"))
             + line(4, (0, "Pelvis"), (200, "240.04"), (400, "1.280"))
             + line(5, (0, "Total"), (400, "1.152")))  # fmt: skip
    assert box_rows(words) == [["Region", "Area (cm2)", "BMD (g/cm2)"], ["L Spine", "47.04", "1.161"],
                               ["Pelvis", "240.04", "1.280"], ["Total", "", "1.152"]]  # fmt: skip
    prose = (
        line(1, (0, "The"), (32, "scan"), (72, "was"))
        + line(2, (0, "taken"), (48, "on"))
        + line(3, (0, "Monday."))
    )
    assert box_rows(prose) is None  # words apart by a space, not in columns


def _frame(h: int, w: int, box: tuple[int, int, int, int], thick: int = 6, fill: int = 255) -> np.ndarray:
    grey = np.full((h, w), 250, np.uint8)
    x0, y0, x1, y1 = box
    grey[y0:y1, x0:x1] = fill
    for y in (y0, y1 - thick):
        grey[y : y + thick, x0:x1] = 0
    for x in (x0, x1 - thick):
        grey[y0:y1, x : x + thick] = 0
    return grey


def test_a_frame_is_a_box_and_a_dark_photo_or_the_page_border_is_not():
    found = ruled_boxes(_frame(1100, 850, (400, 300, 800, 600)))
    assert len(found) == 1
    x0, y0, x1, y1 = found[0]
    assert abs(x0 - 400) < 10 and abs(y0 - 300) < 10 and abs(x1 - 800) < 10 and abs(y1 - 600) < 10
    assert ruled_boxes(_frame(1100, 850, (100, 300, 400, 900), fill=20)) == []  # an X-ray's dark ground
    assert ruled_boxes(_frame(1100, 850, (20, 20, 830, 1080))) == []  # the page's own border
    assert ruled_boxes(np.full((1100, 850), 250, np.uint8)) == []


def test_ruled_paper_has_no_boxes_and_a_page_of_frames_reads_the_largest_few():
    stripes = np.full((3300, 2550), 250, np.uint8)
    stripes[::6] = 0  # a rule every 6 pixels: 550 of them
    assert ruled_boxes(stripes) == []
    page = np.full((3300, 2550), 250, np.uint8)
    for k in range(12):  # twelve framed boxes, the first the largest
        y = 100 + 260 * k
        page[:] = np.minimum(page, _frame(3300, 2550, (100, y, 1500 - 50 * k, y + 200)))
    found = ruled_boxes(page)
    assert len(found) == MOST_BOXES and found[0][2] > 1400 and all(b[2] > 1000 for b in found)


def _shaded_table() -> bytes:
    """A PNG of a ruled table whose header row is shaded light blue (dark text on it), as a report's
    tables are: Tesseract's page layout reads neither the header (binarised with the page, its blue
    goes as dark as its text) nor, at the resolution it is read at, the framed rows below it."""
    doc = pymupdf.open()
    page = doc.new_page(width=700, height=330)
    ink = (0.1, 0.1, 0.2)
    page.draw_rect(pymupdf.Rect(30, 20, 670, 120), color=ink, fill=(0.55, 0.70, 0.89), width=1.5)
    xs = [30, 170, 300, 430, 560, 670]
    for x in xs[1:-1]:
        page.draw_line((x, 20), (x, 300), color=ink, width=1.5)
    heads = ["Disability Category", "Participants", "Ballots Completed", "Ballots Terminated", "Accuracy"]
    for (x0, x1), head in zip(pairwise(xs), heads, strict=True):
        page.insert_textbox(pymupdf.Rect(x0 + 6, 50, x1 - 6, 110), head, fontsize=15, fontname="hebo")
    for i, row in enumerate(SHADED_ROWS):
        y = 120 + 60 * i
        page.draw_rect(pymupdf.Rect(30, y, 670, y + 60), color=ink, width=1.5)
        for (x0, x1), cell in zip(pairwise(xs), row, strict=True):
            page.insert_textbox(pymupdf.Rect(x0 + 6, y + 20, x1 - 6, y + 55), cell, fontsize=15)
    return page.get_pixmap(dpi=150).tobytes("png")


SHADED_ROWS = (("Blind", "5", "1", "4", "34.5%"), ("Low Vision", "5", "2", "3", "98.3%"),
               ("Dexterity", "5", "4", "1", "98.3%"))  # fmt: skip


@needs_tesseract
def test_a_shaded_header_and_framed_rows_the_page_layout_dropped_are_read_in_their_place():
    """Each framed row with ink inside is read alone although the page's layout read no word there,
    and in its place top to bottom: the header's words first, then the rows in order."""
    text = parse_bytes("ballots.png", _shaded_table()).text
    assert "Disability" in text and "Accuracy" in text, text
    lines = [" ".join(line.strip().strip("|").split()) for line in text.splitlines()]  # a Markdown row too
    rows = [lines.index(" | ".join(row)) for row in SHADED_ROWS]
    assert rows == sorted(rows), text
    assert text.index("Disability") < text.index("Blind"), text
