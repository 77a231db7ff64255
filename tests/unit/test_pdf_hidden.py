"""Text a page paints over is not read (issue 39): an IRS booklet prints "Department of the Treasury",
paints a white box over it and writes a notice on the box; before, both parsers read the hidden words
into the notice ("…recapture of a charitable Internal Revenue Service contribution of…")."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.core.folding import fold
from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_hidden import drop_hidden_text

NOTICE = "You owe the additional tax on recapture of a charitable contribution"
BODY = "Section references are to the Internal Revenue Code unless otherwise noted."


def _page(cover: dict | None, *, before: bool = False, over: bool = False) -> bytes:
    """A page with hidden words under a box (drawn after them, or before them with ``before``) and a
    notice written on the box, its lines above and below them (``over``: its first line on them)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 200), BODY, fontsize=10)
    box = pymupdf.Rect(300, 30, 590, 90)
    if before and cover:
        page.draw_rect(box, color=None, **cover)
    page.insert_text((330, 60), "Department of the Treasury", fontsize=10)
    if not before and cover:
        page.draw_rect(box, color=None, **cover)
    page.insert_text((310, 61 if over else 45), NOTICE[:34], fontsize=9)
    page.insert_text((310, 80), NOTICE[34:].strip(), fontsize=9)
    return doc.tobytes()


def _reading(data: bytes, parser: str) -> str:
    doc = parse_bytes("notice.pdf", data, settings=ParseSettings(pdf_parser=parser))
    return fold("\n".join(p.text for p in doc.pages), True)


@pytest.mark.parametrize("parser", ["layout", "plain"])
@pytest.mark.parametrize("fill", [(1, 1, 1), (0, 0, 0)], ids=["white box", "black box"])
def test_text_painted_over_is_not_read_and_the_text_on_the_box_is(parser, fill):
    text = _reading(_page({"fill": fill}), parser)
    assert "department" not in text
    assert fold(NOTICE[:34], True) in text
    assert fold(BODY, True) in text


@pytest.mark.parametrize(
    ("cover", "before"),
    [({"fill": (1, 1, 0), "fill_opacity": 0.4}, False), ({"fill": (1, 1, 1)}, True), (None, False)],
    ids=["see-through highlight", "box drawn first", "no box"],
)
def test_text_that_shows_is_read(cover, before):
    assert "department of the treasury" in _reading(_page(cover, before=before), "layout")


def test_the_page_says_how_much_it_left_out():
    page = pymupdf.open(stream=_page({"fill": (1, 1, 1)}), filetype="pdf")[0]
    assert drop_hidden_text(page) >= len("DepartmentoftheTreasury")  # its letters, and maybe its spaces
    assert "Department" not in page.get_text()
    assert drop_hidden_text(page) == 0


def test_hidden_text_under_words_that_show_is_left_rather_than_lose_them():
    """MuPDF takes a character with a redaction by its own glyph box: where the notice's line lies on
    the hidden words, removing them would take the notice's letters too, so the page is left whole."""
    page = pymupdf.open(stream=_page({"fill": (1, 1, 1)}, over=True), filetype="pdf")[0]
    assert drop_hidden_text(page) == 0
    assert fold(NOTICE[:34], True) in fold(page.get_text(), True)


def test_the_report_says_what_was_left_out_page_by_page():
    from ragkit.ingestion.pdf_hidden import painted_over

    warnings: list[str] = []
    painted_over(pymupdf.open(stream=_page({"fill": (1, 1, 1)}), filetype="pdf")[0], 0, warnings)
    painted_over(pymupdf.open(stream=_page(None), filetype="pdf")[0], 1, warnings)
    assert len(warnings) == 1 and warnings[0].startswith("page 1: ")
    assert warnings[0].endswith(" characters painted over by a filled box left out")


def _ruled_grants() -> bytes:
    """A ruled table (pdfplumber reads it cell by cell) whose Utah grant, 97, is painted over by a white
    box with "withdrawn" written on the box below it."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Table 1. Grants by state, in thousands of dollars.", fontsize=10)
    xs, ys = [72, 222, 372, 522], [100, 140, 180, 220, 260]
    for x in xs:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((xs[0], y), (xs[-1], y))
    rows = [
        ["State", "Grants", "Loans"],
        ["Ohio", "1,204", "388"],
        ["Utah", "97", "12"],
        ["Iowa", "455", "70"],
    ]
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            page.insert_text((xs[c] + 5, ys[r] + 17), cell, fontsize=10)
    page.draw_rect(pymupdf.Rect(xs[1] + 2, ys[2] + 2, xs[2] - 2, ys[3] - 2), color=None, fill=(1, 1, 1))
    page.insert_text((xs[1] + 5, ys[2] + 34), "withdrawn", fontsize=10)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_ruled_table_does_not_read_a_cell_painted_over(parser):
    """pdfplumber reads ruled tables from the file's bytes: before, it was handed the original file and
    read "97 withdrawn" while the report said the 97 was left out."""
    doc = parse_bytes("grants.pdf", _ruled_grants(), settings=ParseSettings(pdf_parser=parser))
    text = "\n".join(p.text for p in doc.pages)
    assert "| Utah | withdrawn | 12 |" in text
    assert "| Ohio | 1,204 | 388 |" in text
    assert any("painted over" in w for w in doc.warnings)
