"""The ruled-table pre-check (:func:`ragkit.ingestion.pdf_tables.may_rule`): a page it lets pass without
pdfplumber must be one where pdfplumber finds no table, so skipping it never loses a table."""

from __future__ import annotations

import io

import pdfplumber
import pymupdf
import pytest

from ragkit.ingestion.pdf_tables import Plumber, may_rule
from tests.conftest import PDFS


def _page_with(lines: list[tuple[float, float, float, float]], rects: tuple = ()) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=300)
    page.insert_text((40, 40), "Name Value", fontsize=10)
    for x0, y0, x1, y1 in lines:
        page.draw_line((x0, y0), (x1, y1))
    for r in rects:
        page.draw_rect(pymupdf.Rect(*r))
    page.insert_text((60, 75), "alpha 1", fontsize=10)
    page.insert_text((60, 95), "beta 2", fontsize=10)
    return doc.tobytes()


def _verdicts(data: bytes) -> tuple[bool, int]:
    doc = pymupdf.open(stream=data)
    with pdfplumber.open(io.BytesIO(data)) as pl:
        return may_rule(doc[0]), len(pl.pages[0].find_tables())


GRID = [(50, 60, 250, 60), (50, 80, 250, 80), (50, 100, 250, 100), (50, 60, 50, 100), (150, 60, 150, 100),
        (250, 60, 250, 100)]  # fmt: skip
BOOKTABS = [(50, 60, 250, 60), (50, 80, 250, 80), (50, 100, 250, 100)]


def test_a_grid_of_lines_is_handed_to_pdfplumber_and_it_finds_the_table():
    assert _verdicts(_page_with(GRID)) == (True, 1)


def test_rectangles_alone_can_make_cells():
    cells = ((50, 60, 150, 80), (150, 60, 250, 80), (50, 80, 150, 100), (150, 80, 250, 100))
    data = _page_with([], rects=cells)
    rules, found = _verdicts(data)
    assert rules and found == 1


def test_horizontal_rules_alone_are_not_a_ruled_table():
    assert _verdicts(_page_with(BOOKTABS)) == (False, 0)


def test_skipped_page_gives_no_tables_without_asking_pdfplumber(monkeypatch):
    data = _page_with(BOOKTABS)
    doc = pymupdf.open(stream=data)
    with Plumber(data, []) as plumber:
        monkeypatch.setattr(type(plumber.pdf.pages[0]), "find_tables", lambda *a, **k: pytest.fail("asked"))
        assert plumber.tables(0, doc[0]) == []


@pytest.mark.skipif(not PDFS.is_dir(), reason="../shared/evaldata is not beside this checkout")
def test_no_page_of_the_evaluation_pdfs_that_is_skipped_has_a_table_pdfplumber_would_find():
    skipped = 0
    for path in sorted(PDFS.glob("*.pdf")):
        data = path.read_bytes()
        doc = pymupdf.open(stream=data)
        with pdfplumber.open(io.BytesIO(data)) as pl:
            for i, page in enumerate(pl.pages):
                if not may_rule(doc[i]):
                    skipped += 1
                    assert not page.find_tables(), f"{path.name} page {i + 1}"
    assert skipped >= 10  # the check does skip: a paper's prose pages
