"""A ruled table in a scan is read row by row without cutting the tops of its letters; a scan's
columns are read so that a sentence a column break cuts reads whole."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.ocr import parse_tsv, tesseract_path
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


def _tsv(blocks: list[tuple[int, int, int, str]]) -> str:
    """Tesseract's TSV for ``blocks`` (block number, left, top, text), one line each, in that order."""
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    rows = [f"5\t1\t{b}\t1\t1\t{k + 1}\t{x + 60 * k}\t{y}\t50\t30\t90\t{w}"
            for b, x, y, text in blocks for k, w in enumerate(text.split())]  # fmt: skip
    return head + "\n".join(rows)


def test_a_heading_read_between_a_sentence_and_its_end_goes_below_the_columns():
    """A two-column brochure: Tesseract read the left column, then the heading under both columns, then
    the right column, and "… within a sequence," | "Additional Features" | "simply use LOCATE …" cut the
    sentence. The heading goes before the first paragraph below it, and the sentence is one paragraph."""
    page = parse_tsv(_tsv([
        (1, 100, 100, "To overdub notes at specific points within a sequence,"),
        (2, 100, 900, "Additional Features"),
        (3, 1300, 100, "simply use LOCATE to find the bar."),
        (4, 1300, 300, "Creating a Song"),
        (5, 100, 1000, "Simple, easy to learn operation."),
    ]))  # fmt: skip
    assert page.text.split("\n\n") == [
        "To overdub notes at specific points within a sequence, simply use LOCATE to find the bar.",
        "Creating a Song",
        "Additional Features",
        "Simple, easy to learn operation.",
    ]


def test_a_paragraph_below_a_finished_sentence_keeps_tesseracts_order():
    """A column's last paragraph below the other column's end is read where Tesseract read it when the
    sentence before it is finished: a longer left column flows into the right one as it stands."""
    blocks = [
        (1, 100, 100, "The sequence is saved."),
        (2, 100, 900, "Press STOP to end it."),
        (3, 1300, 100, "Tracks may be transposed."),
    ]
    assert parse_tsv(_tsv(blocks)).text.split("\n\n") == [text for *_, text in blocks]
