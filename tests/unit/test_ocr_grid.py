"""A fully ruled table on a scan (issue 39, a device manual's immunity table, ruled in blue, its cells
wrapping over two to four lines): read as one block it came out a line at a time across each row, so no
line held a row; each ruled row is now one Markdown row, each cell's lines joined."""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest

from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.ocr_grid import ruled_grids, unruled
from ragkit.ingestion.ocr_tsv import read_once
from ragkit.ingestion.parse import parse_bytes

needs_tesseract = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")

HEADER = ("Immunity Test", "Test Level", "Compliance Level")
ROWS = (
    (("Electrostatic discharge", "IEC 61000-4-2"), ("8 kV contact", "15 kV air"), ("30 kV air",)),
    (("Electrical fast", "transient burst"), ("2 kV for power", "supply lines"), ("Not applicable",)),
    (("Surge", "IEC 61000-4-5"), ("1 kV line to line",), ("Not applicable",)),
)
BLUE = (0.1, 0.45, 0.75)


def _scan(colour: tuple[float, float, float] = BLUE, shaded: bool = False) -> bytes:
    """A PNG (150 dpi) of a page holding a title and a table ruled in ``colour``: a header row (``shaded``:
    on a light-blue band, grey 175 as the ballot table's), then three rows whose cells hold one or two
    lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 70), "Guidance and Manufacturer's Declaration", fontsize=13, fontname="hebo")
    xs, tops = [72, 250, 400, 540], [90, 120, 170, 220, 260]
    if shaded:
        page.draw_rect(pymupdf.Rect(xs[0], tops[0], xs[-1], tops[1]), color=None, fill=(0.55, 0.68, 0.88))
    for k, cells in enumerate((h,) for h in HEADER):
        page.insert_text((xs[k] + 6, 108), cells[0], fontsize=10)
    for r, row in enumerate(ROWS):
        for k, lines in enumerate(row):
            for n, line in enumerate(lines):
                page.insert_text((xs[k] + 6, tops[r + 1] + 16 + 14 * n), line, fontsize=10)
    for y in tops:
        page.draw_line((xs[0], y), (xs[-1], y), color=colour, width=1.2)
    for x in xs:
        page.draw_line((x, tops[0]), (x, tops[-1]), color=colour, width=1.2)
    page.insert_text(
        (72, 300), "The device is intended for use in the environment specified above.", fontsize=10
    )
    return page.get_pixmap(dpi=150).tobytes("png")


@needs_tesseract
@pytest.mark.parametrize("shaded", [False, True], ids=["plain", "shaded-header"])
def test_each_ruled_row_is_one_markdown_row(shaded):
    """A shaded header band (grey 175, darker than a light rule's 200) was taken for one thick rule, and
    the header row was read apart from the grid, its words broken."""
    text = parse_bytes("manual.png", _scan(shaded=shaded)).text
    rows = [" ".join(line.split()).lower() for line in text.splitlines()]  # case as quotes are matched
    assert ("| " + " | ".join(HEADER) + " |").lower() in rows, text
    for row in ROWS:
        assert ("| " + " | ".join(" ".join(lines) for lines in row) + " |").lower() in rows, text
    assert "The device is intended for use in the environment specified above." in text


@pytest.mark.parametrize("shaded", [False, True], ids=["plain", "shaded-header"])
def test_the_grid_its_rows_and_cells_and_its_rules_painted_out(shaded):
    pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.Pixmap(_scan(shaded=shaded)))
    grey = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width)
    (grid,) = ruled_grids(grey)
    assert len(grid.rules) == 5 and all(len(d) == 2 for d in grid.downs)  # 4 rows of 3 cells
    x0, y0, x1, y1 = grid.box
    inner = unruled(grey[y0:y1, x0:x1], grid)
    for top, downs in zip(grid.rules, grid.downs, strict=False):
        for x in downs:  # no rule down is left
            assert (inner[top - y0 + 8 : top - y0 + 20, x - x0 - 1 : x - x0 + 3] == 255).all()
    assert (grey[y0 + 5 : y1 - 5, x0:x1] < 200).mean() > (inner[5:-5] < 200).mean()
    blank = np.full((400, 600), 255, np.uint8)
    assert ruled_grids(blank) == []


def test_a_word_tesseract_reads_again_inside_another_is_dropped():
    """Tesseract read the ballot table's header "Participants" and, inside its box, a "P" of its own."""
    rows = [
        ("Participants", 484, 149, 339, 47, 96.5),
        ("P", 667, 162, 29, 46, 72.4),
        ("Ballots", 903, 102, 191, 108, 95.6),
    ]
    words = [
        (
            (x + w / 2, y + h / 2),
            dict(zip(("text", "left", "top", "width", "height", "conf"), map(str, r), strict=True)),
        )
        for r in rows
        for _, x, y, w, h, _ in [r]
    ]
    assert [r["text"] for _, r in read_once(words)] == ["Participants", "Ballots"]
