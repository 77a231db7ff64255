"""Two columns of a scanned court filing's caption box that Tesseract read as one (issue 39: "PUERTO RICO
ELECTRIC POWER AUTHORITY and Shall Only be Filed in Case No." — the parties on the left, a note on the
right, joined where their lines stand level). The stretch is read column by column; a table's rows,
key-value lines and the page's other text are left as Tesseract read them."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.core.folding import fold
from ragkit.ingestion import ocr
from ragkit.ingestion.ocr_columns import two_columns
from ragkit.ingestion.ocr_tsv import parse_tsv
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(ocr.tesseract_path() is None, reason="Tesseract is not installed")

LEFT = ["In re:", "", "THE FINANCIAL OVERSIGHT AND", "MANAGEMENT BOARD FOR PUERTO RICO,", "",
        "as representative of", "", "PUERTO RICO ELECTRIC POWER AUTHORITY", "(PREPA),", "",
        "Debtor."]  # fmt: skip
RIGHT = ["PROMESA", "Title III", "", "No. 17 BK 4780-LTS", "", "", "Court Filing Relates Only to PREPA",
         "and Shall Only be Filed in Case No.", "17-BK-4780 (LTS)"]  # fmt: skip
NOTE = "Court Filing Relates Only to PREPA and Shall Only be Filed in Case No. 17-BK-4780 (LTS)"
PARTY = "PUERTO RICO ELECTRIC POWER AUTHORITY (PREPA),"


def _caption() -> bytes:
    """A PNG of a court filing's head: the court, the caption's two columns, the title under them."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=360)
    page.insert_text((150, 60), "UNITED STATES DISTRICT COURT", fontsize=11, fontname="tiro")
    for n, text in enumerate(LEFT):
        page.insert_text((70, 100 + n * 16), text, fontsize=11, fontname="tiro")
    for n, text in enumerate(RIGHT):
        page.insert_text((360, 104 + n * 16), text, fontsize=11, fontname="tiro")
    page.insert_text(
        (70, 300), "LIMITED OBJECTION OF WHITEFISH ENERGY HOLDINGS, LLC", fontsize=11, fontname="tiro"
    )
    return page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY).tobytes("png")


@needs_tesseract
def test_a_caption_box_read_as_one_is_read_column_by_column(monkeypatch):
    png = _caption()
    text = fold(parse_bytes("caption.png", png).text)
    assert fold(NOTE) in text and fold(PARTY) in text, text
    monkeypatch.setattr(ocr, "two_columns", lambda tsv: tsv)  # as Tesseract read it: the lines joined
    before = fold(parse_bytes("caption.png", png).text)
    assert fold(NOTE) not in before, before


HEAD = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"


def _tsv(lines: list[list[tuple[int, str]]]) -> str:
    """A TSV of words 20 px high, one line every 30 px, each word (left, text) 10 px a letter wide."""
    rows = [HEAD]
    for n, line in enumerate(lines, start=1):
        for k, (left, text) in enumerate(line, start=1):
            rows.append(f"5\t1\t1\t1\t{n}\t{k}\t{left}\t{n * 30}\t{10 * len(text)}\t20\t95\t{text}")
    return "\n".join(rows) + "\n"


def test_lines_over_a_table_of_three_columns_are_left_as_read():
    rows = [
        [(0, "Members of the"), (400, "Notes on the")],
        [(0, "board and staff"), (400, "meeting held")],
        [(0, "Name"), (200, "Role"), (400, "Office")],
        [(0, "Ann"), (200, "Chair"), (400, "Room 4")],
    ]
    tsv = _tsv(rows)
    assert parse_tsv(two_columns(tsv)).text == parse_tsv(tsv).text


def test_key_value_lines_that_do_not_run_on_are_left_as_read():
    rows = [[(0, "Applicant"), (400, "John Smith")], [(0, "Date of birth"), (400, "1 May 1990")],
            [(0, "Country"), (400, "Ireland")], [(0, "Signed"), (400, "Yes")]]  # fmt: skip
    tsv = _tsv(rows)
    assert parse_tsv(two_columns(tsv)).text == parse_tsv(tsv).text


def test_a_ruled_line_read_as_a_bar_parts_the_columns_and_is_left_out():
    rows = [
        [
            (0, "IN"),
            (40, "RE:"),
            (90, "TEMPORARY"),
            (200, "MEASURES"),
            (330, "|"),
            (360, "CASE"),
            (420, "NO.:"),
        ],
        [(0, "RELATED"), (90, "TO"), (130, "THE"), (170, "PROCUREMENT"), (250, "AND")],
        [
            (0, "MANAGEMENT"),
            (130, "OF"),
            (170, "SERVICES"),
            (330, "|"),
            (360, "SUBJECT:"),
            (450, "Order"),
            (510, "and"),
        ],
        [(0, "BY"), (40, "PREPA"), (360, "implementing"), (490, "measures.")],
    ]
    text = parse_tsv(two_columns(_tsv(rows))).text
    assert "RELATED TO THE PROCUREMENT AND\nMANAGEMENT OF SERVICES\nBY PREPA" in text, text
    assert "SUBJECT: Order and\nimplementing measures." in text, text
    assert "|" not in text


@needs_tesseract
def test_a_caption_box_in_a_picture_is_read_column_by_column(monkeypatch):
    """The same caption as a picture on a page (read region by region, as a turned page is read again):
    its columns are read apart there too."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=360)
    page.insert_image(page.rect, stream=_caption())
    assert fold(NOTE) in fold(ocr.read_region(page, page.rect).text)
    monkeypatch.setattr(ocr, "two_columns", lambda tsv: tsv)
    assert fold(NOTE) not in fold(ocr.read_region(page, page.rect).text)
