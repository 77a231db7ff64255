"""What a ruled table's rules leave unparted (issue 39, a battery datasheet's ratings table): a value and
its unit set as two columns in one ruled column ("Specification   Unit"), and two ratings stacked in one
ruled row beside their number and note, each set once, level with the middle of the two. Read cell by
cell, the header was "Specification Unit" and the ratings one row of joined lines; now each reads as the
page shows it. Cells that only wrap, and one column of values, stay as they were."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings

RULES = (60, 100, 260, 380, 540)  # the ruled columns' edges: No. | Item | Specification Unit | Notes
UNIT_AT = 345  # where the unit stands in the third ruled column
SIZE = 9
LINE = 14


def _centre(page: pymupdf.Page, text: str, x0: float, x1: float, y: float) -> None:
    page.insert_text(((x0 + x1 - pymupdf.get_text_length(text, fontsize=SIZE)) / 2, y), text, fontsize=SIZE)


def _datasheet(single_top: bool = False, words: bool = False) -> bytes:
    """A ratings table: a header, one plain row, then a ruled row holding two ratings stacked (number and
    note set once, level with their middle, or, ``single_top``, on the first line). ``words``: the
    stacked cells hold a wrapped phrase in place of values."""
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=400)
    top, y = 60.0, 60.0
    cuts = [top]

    def row(cells: list[list[str]]) -> None:
        nonlocal y
        lines = max(len(c) for c in cells)
        height = lines * LINE + 6
        for k, cell in enumerate(cells):
            x0, x1 = {0: (RULES[0], RULES[1]), 1: (RULES[1], RULES[2]), 2: (RULES[2], UNIT_AT - 10),
                      3: (UNIT_AT - 10, RULES[3]), 4: (RULES[3], RULES[4])}[k]  # fmt: skip
            first = y + 3 + (height - 6 - len(cell) * LINE) / 2 if not single_top else y + 3
            for n, text in enumerate(cell):
                baseline = first + n * LINE + 10
                if k == 3:
                    page.insert_text((UNIT_AT, baseline), text, fontsize=SIZE)
                elif k == 4:
                    page.insert_text((x0 + 4, baseline), text, fontsize=SIZE)
                else:
                    _centre(page, text, x0, x1, baseline)
        y += height
        cuts.append(y)

    row([["No."], ["Item"], ["Specification"], ["Unit"], ["Notes"]])
    row([["2.2"], ["Nominal voltage"], ["3.70"], ["V"], [""]])
    if words:
        row([["2.5"], ["Charge held", "after storage"], ["kept in", "a cool place"], ["h"], ["See 4.1"]])
    else:
        row(
            [
                ["2.1"],
                ["Normal Capacity", "Minimum Capacity"],
                ["2500", "2450"],
                ["mAh", "mAh"],
                ["0.2C Discharge"],
            ]
        )
    row([["2.3"], ["Internal Impedance"], ["60"], ["mOhm"], ["(with PCB)"]])
    row([["2.4"], ["Weight"], ["50"], ["g"], [""]])
    for c in cuts:
        page.draw_line((RULES[0], c), (RULES[-1], c))
    for x in RULES:
        page.draw_line((x, top), (x, y))
    return doc.tobytes()


def _lines(data: bytes, parser: str) -> list[str]:
    return parse_bytes("ratings.pdf", data, settings=ParseSettings(pdf_parser=parser)).text.splitlines()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_value_and_its_unit_in_one_ruled_column_read_as_two_columns(parser):
    lines = _lines(_datasheet(), parser)
    assert "| No. | Item | Specification | Unit | Notes |" in lines, lines
    assert "| 2.3 | Internal Impedance | 60 | mOhm | (with PCB) |" in lines, lines


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_ratings_stacked_in_one_ruled_row_read_as_rows(parser):
    lines = _lines(_datasheet(), parser)
    assert "| 2.1 | Normal Capacity | 2500 | mAh | 0.2C Discharge |" in lines, lines
    assert any("| Minimum Capacity | 2450 | mAh |" in line for line in lines), lines
    assert not any("Normal Capacity Minimum Capacity" in line for line in lines), lines


def test_a_number_set_on_the_first_line_beside_two_lines_is_no_stack():
    lines = _lines(_datasheet(single_top=True), "layout")
    assert any("Normal Capacity Minimum Capacity" in line for line in lines), lines


def test_cells_that_wrap_stay_one_row():
    lines = _lines(_datasheet(words=True), "layout")
    assert any("| Charge held after storage | kept in a cool place | h |" in line for line in lines), lines


def _one_column() -> bytes:
    """A ruled column of centred values of different widths under a one-word head: one column."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    cols, top = (60, 180, 300), 60.0
    rows = [
        ("Item", "Amount"),
        ("Rent", "1"),
        ("Salaries of staff", "1,250,000"),
        ("Fees", "75"),
        ("Tax", "9"),
    ]
    for n, (a, b) in enumerate(rows):
        base = top + n * 18 + 13
        page.insert_text((cols[0] + 4, base), a, fontsize=SIZE)
        _centre(page, b, cols[1], cols[2], base)
    for n in range(len(rows) + 1):
        page.draw_line((cols[0], top + n * 18), (cols[-1], top + n * 18))
    for x in cols:
        page.draw_line((x, top), (x, top + len(rows) * 18))
    return doc.tobytes()


def test_one_column_of_centred_values_stays_one_column():
    lines = _lines(_one_column(), "layout")
    assert "| Item | Amount |" in lines, lines
    assert "| Salaries of staff | 1,250,000 |" in lines, lines
