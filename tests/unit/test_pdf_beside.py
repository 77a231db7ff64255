"""A ruled grid of figures whose row labels stand beside it with no rule around them (the federal
indirect-cost form, a statistics table whose years sit left of the grid): before, the ruled grid stood
in for the whole table and the labels were lost from the reading ("Salaries" with its row's figures)."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_tables import Plumber

GRID = (190, 250, 310, 370)  # the x of each column rule of the ruled part
HEADER = ("Cost Category", "Total Costs", "Indirect Costs", "Direct Costs")
ROWS = (
    ("Salaries (a)", "1,314,000", "373,250", "940,750"),
    ("Fringe Benefits", "352,000", "99,988", "252,012"),
    ("Staff Travel", "94,000", "20,000", "74,000"),
    ("Office Rent", "170,000", "", "170,000"),
)


def _labelled_grid(right_notes: bool = False) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_text(
        (72, 40), "Sample indirect cost rate proposal, simplified allocation method.", fontsize=9
    )
    ys = [60 + 16 * k for k in range(len(ROWS) + 2)]
    for x in GRID:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for y in ys:
        page.draw_line((GRID[0], y), (GRID[-1], y))
    for k, row in enumerate((HEADER, *ROWS)):
        page.insert_text((72, ys[k] + 12), row[0], fontsize=8)  # the label: beside the grid, unruled
        for x, cell in zip(GRID, row[1:], strict=False):
            if cell:
                page.insert_text((x + 4, ys[k] + 12), cell, fontsize=8)
        if right_notes:
            page.insert_text((GRID[-1] + 10, ys[k] + 12), f"note {k}", fontsize=8)
    page.insert_text((72, ys[-1] + 30), "Unallowable costs are excluded from the base.", fontsize=9)
    return doc.tobytes()


def _row(*cells: str) -> str:
    return "| " + " | ".join(cells) + " |"


@pytest.mark.parametrize("parser", ["layout", "plain"])
@pytest.mark.parametrize("right_notes", [False, True], ids=["labels-left", "labels-and-notes"])
def test_labels_beside_a_ruled_grid_stay_on_their_rows(parser, right_notes):
    text = parse_bytes(
        "grid.pdf", _labelled_grid(right_notes), settings=ParseSettings(pdf_parser=parser)
    ).text
    for k, row in enumerate((HEADER, *ROWS)):
        cells = [c for c in row if c] + ([f"note {k}"] if right_notes else [])
        line = next((x for x in text.splitlines() if row[1] in x or row[0] in x), "")
        assert all(c in line for c in cells), (cells, line)
    assert "Unallowable costs are excluded" in text


def test_prose_beside_underlined_lines_stays_prose():
    """Rules under each line of a paragraph make a one-column "table" that is no table: the paragraph
    beside it is not taken as a column of it (it stays prose, not Markdown rows)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    left = (
        "Launched new communities, sections",
        "of the website dedicated to bringing",
        "together suppliers and consumers.",
    )
    right = ("Communities are able to", "aggregate content across", "agencies in a few months.")
    for k, (a, b) in enumerate(zip(left, right, strict=True)):
        y = 60 + 16 * k
        page.insert_text((108, y + 12), a, fontsize=9)
        page.insert_text((380, y + 12), b, fontsize=9)
        page.draw_line((108, y), (330, y))
    page.draw_line((108, 108), (330, 108))
    for x in (108, 330):
        page.draw_line((x, 60), (x, 108))
    data = doc.tobytes()
    with Plumber(data, []) as plumber, pymupdf.open(stream=data) as pdf:
        assert plumber.tables(0, pdf.load_page(0)) == []  # the ruled lines alone are no table either
    text = parse_bytes("prose.pdf", data, settings=ParseSettings(pdf_parser="plain")).text
    assert "|" not in text and "Communities are able to" in text


YEARS = {"1991": ("11.0", "6.6", "8.9"), "1996": ("9.5", "5.3", "7.5"), "2001": ("7.5", "3.7", "5.7")}


def _years_grid(group_rules: bool = True) -> bytes:
    """Statistics Finland's table: each year set left of a ruled grid, centred beside its Men, Women and
    Total rows; rules cross the years' side only round each group (``group_rules``)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    page.insert_text((72, 40), "Table 2: Persons employed in agriculture by gender (in %)", fontsize=9)
    ys = [60 + 16 * k for k in range(3 * len(YEARS) + 2)]
    cols = (120, 220, 320)
    for x in cols:
        page.draw_line((x, ys[0]), (x, ys[-1]))
    for k, y in enumerate(ys):
        grouped = group_rules and (k - 1) % 3 == 0
        page.draw_line((60 if grouped else cols[0], y), (cols[-1], y))
    page.insert_text((cols[1] + 4, ys[0] + 12), "Agriculture", fontsize=8)
    for g, (year, values) in enumerate(YEARS.items()):
        page.insert_text((72, ys[1 + 3 * g + 1] + 12), year, fontsize=8)  # beside the group's middle row
        for j, (who, value) in enumerate(zip(("Men", "Women", "Total"), values, strict=True)):
            page.insert_text((cols[0] + 4, ys[1 + 3 * g + j] + 12), who, fontsize=8)
            page.insert_text((cols[1] + 4, ys[1 + 3 * g + j] + 12), value, fontsize=8)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_label_beside_a_ruled_group_of_rows_names_each_row_of_the_group(parser):
    text = parse_bytes("years.pdf", _years_grid(), settings=ParseSettings(pdf_parser=parser)).text
    for year, values in YEARS.items():
        for who, value in zip(("Men", "Women", "Total"), values, strict=True):
            assert _row(year, who, value) in text, (year, who, text)


def test_without_rules_round_the_group_a_side_label_stays_on_its_own_row():
    text = parse_bytes("years.pdf", _years_grid(group_rules=False)).text
    assert _row("1991", "Women", "6.6") in text
    assert _row("", "Men", "11.0") in text


def _one_row(rule_under_label: bool) -> bytes:
    """Table 8 of the Finnish report: one ruled row of five years' figures, its label left of the grid,
    the row's bottom rule running on under the label (``rule_under_label``)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=300)
    page.insert_text((72, 40), "Table 8: Number of persons attending labour market training", fontsize=9)
    xs = [200 + 60 * k for k in range(6)]
    for x in xs:
        page.draw_line((x, 60), (x, 92))
    page.draw_line((xs[0], 60), (xs[-1], 60))
    page.draw_line((xs[0], 76), (xs[-1], 76))
    page.draw_line((72 if rule_under_label else xs[0], 92), (xs[-1], 92))
    years = (
        ("2001", "29 300"),
        ("2002", "25 800"),
        ("2003", "33 300"),
        ("2004", "33 500"),
        ("2005", "33 000"),
    )
    for x, (year, value) in zip(xs, years, strict=False):  # six rules, five columns
        page.insert_text((x + 4, 72), year, fontsize=8)
        page.insert_text((x + 4, 88), value, fontsize=8)
    page.insert_text((76, 88), "On labour market training", fontsize=8)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_one_row_tables_label_beside_it_is_its_first_cell(parser):
    text = parse_bytes("t8.pdf", _one_row(True), settings=ParseSettings(pdf_parser=parser)).text
    assert _row("On labour market training", "29 300", "25 800", "33 300", "33 500", "33 000") in text


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_lone_line_beside_a_one_row_table_with_no_rule_reaching_it_is_not_its_cell(parser):
    """Nor is it lost: PyMuPDF reads the label and the row's last figure as one block, whose middle lies
    in the table; the plain parser dropped the block whole with the table's text."""
    settings = ParseSettings(pdf_parser=parser)
    lines = [x.strip() for x in parse_bytes("t8.pdf", _one_row(False), settings=settings).text.splitlines()]
    assert _row("2001", "2002", "2003", "2004", "2005") in lines
    assert _row("29 300", "25 800", "33 300", "33 500", "33 000") in lines
    assert "On labour market training" in lines
