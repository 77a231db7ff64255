"""A font whose descriptor misstates its glyphs' height (an ISO standard's subset Cambria) made pdfminer
put every glyph box 20 pt below its line, and pdfplumber read a ruled table's "QM" cells into no cell:
"S1 | E1 | QM | QM | QM" came out "S1 | E1". A box that does not hold its own baseline is set again from
it; well-formed and turned glyphs stay as they are."""

from __future__ import annotations

import io

import pdfplumber
import pymupdf

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_glyphs import on_baseline, subscripts_inline
from ragkit.ingestion.pdf_rules import table_rows


def _char(text: str, x: float, baseline: float, y0: float, page_height: float = 842.0) -> dict:
    """pdfminer's view of a 10-pt glyph at ``baseline`` (PDF space, up the page) with its box from
    ``y0``."""
    y1 = y0 + 10
    return {"text": text, "x0": x, "x1": x + 6, "y0": y0, "y1": y1, "top": page_height - y1,
            "bottom": page_height - y0, "doctop": page_height - y1, "height": 10.0, "size": 10.0,
            "matrix": (10.0, 0.0, 0.0, 10.0, x, baseline)}  # fmt: skip


def test_a_glyph_box_off_its_baseline_is_set_again_from_it():
    low = _char("Q", 273.4, 696.87, 672.24)  # 24 pt under its line, as the ISO page's Cambria
    fine = _char("E", 177.6, 696.87, 693.9)
    turned = {**_char("A", 50, 600, 500), "matrix": (0.0, 10.0, -10.0, 0.0, 50, 600)}
    assert on_baseline([low, fine, turned]) == 1
    assert low["y0"] <= 696.87 <= low["y1"] and abs(low["top"] - fine["top"]) < 2
    assert fine["y0"] == 693.9 and turned["y0"] == 500


def test_a_ruled_table_reads_its_cells_once_its_glyphs_sit_on_their_lines(monkeypatch):
    """The same table read through pdfplumber with every glyph box pushed under its line, as the broken
    font made them: each row keeps its cells."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    rows = [("Severity", "Exposure", "C1"), ("S1", "E1", "QM"), ("S2", "E2", "A")]
    for n, row in enumerate(rows):
        for k, cell in enumerate(row):
            page.insert_text((24 + 100 * k, 40 + 20 * n + 14), cell, fontsize=10)
    for n in range(len(rows) + 1):
        page.draw_line((20, 40 + 20 * n), (320, 40 + 20 * n))
    for k in range(4):
        page.draw_line((20 + 100 * k, 40), (20 + 100 * k, 40 + 20 * len(rows)))
    pl = pdfplumber.open(io.BytesIO(doc.tobytes())).pages[0]
    for c in pl.chars:  # the broken descriptor: every box 24 pt under its baseline
        c["y0"], c["y1"] = c["y0"] - 24, c["y1"] - 24
        c["top"], c["bottom"], c["doctop"] = c["top"] + 24, c["bottom"] + 24, c["doctop"] + 24
    ((_, read, _),) = table_rows(pl)
    assert [[c for c in r if c] for r in read] == [list(r) for r in rows]


def _coded_table() -> bytes:
    """T.4's two-dimensional code table in small: the elements' indices are subscripts (7 pt, 1.5 pt
    under the 11-pt line), and a procedure cell wraps with a word broken by a hyphen."""
    doc = pymupdf.open()
    page = doc.new_page(width=500, height=240)
    heads = ("Mode", "Elements to be coded", "Procedure")
    for k, head in enumerate(heads):
        page.insert_text((24 + 150 * k, 54), head, fontsize=11)
    x = 174.0
    for part, sub in (("a", "0"), ("a", "1"), (", a", "1"), ("a", "2")):
        page.insert_text((x, 84), part, fontsize=11)
        x += pymupdf.get_text_length(part, fontsize=11)
        page.insert_text((x, 85.5), sub, fontsize=7)
        x += pymupdf.get_text_length(sub, fontsize=7)
    page.insert_text((24, 84), "Horizontal", fontsize=11)
    page.insert_text((324, 84), "charge with a con-", fontsize=11)
    page.insert_text((324, 98), "stant current", fontsize=11)
    for y in (40, 64, 110):
        page.draw_line((20, y), (480, y))
    for x0 in (20, 170, 320, 480):
        page.draw_line((x0, 40), (x0, 110))
    return doc.tobytes()


def test_a_subscript_is_read_where_it_is_printed():
    """Before, pdfplumber read the indices as a line of their own under the cell: "a a , a a" over
    "0 1 1 2"."""
    pl = pdfplumber.open(io.BytesIO(_coded_table())).pages[0]
    ((_, read, _),) = table_rows(pl)
    assert read[1][:2] == ["Horizontal", "a0a1, a1a2"]


def test_a_word_a_cells_lines_break_is_joined_and_the_cells_subscripts_stay_inline():
    """Before, the cell read "a con- stant current" (its lines put on one with a space)."""
    for parser in ("layout", "plain"):
        text = parse_bytes("t4.pdf", _coded_table(), settings=ParseSettings(pdf_parser=parser)).text
        assert "| Horizontal | a0a1, a1a2 | charge with a constant current |" in text, parser


def test_a_raised_or_same_size_glyph_is_left_where_it_is():
    base = _char("C", 100, 700, 698)
    sup = {**_char("2", 106, 704, 703), "size": 6.0, "matrix": (6.0, 0, 0, 6.0, 106, 704)}
    same = _char("5", 106, 698.5, 696.5)
    assert subscripts_inline([base, sup, same]) == 0
