"""A statement's column heads in the plain reader (issue 39, Apple's condensed statements): "April 1,"
over "2023" were two text blocks, read in the page's row order, so the dates' row came before the
years' and "March 26," ran on into "2023", a date the page does not print."""

from __future__ import annotations

from ragkit.ingestion.fidelity import invented_dates
from ragkit.ingestion.pdf import reading_order, stacked
from ragkit.ingestion.pdf_tables import Block

HEADS = [  # boxes as MuPDF gives them: each year's box starts 5 pt into its date's
    Block(320, 100, 349, 115, "April 1,"), Block(323, 110, 368, 125, "2023"),
    Block(380, 100, 421, 115, "March 26,"), Block(389, 110, 434, 125, "2022"),
]  # fmt: skip
ROWS = [  # a table's rows, each a block: their boxes touch by 2 pt
    Block(52, 137, 200, 153, "Products"), Block(52, 151, 200, 168, "Services"),
    Block(380, 137, 421, 153, "73,929"), Block(380, 151, 421, 168, "20,907"),
]  # fmt: skip


def _read(blocks: list[Block]) -> str:
    return "\n\n".join(b.text for b in reading_order(blocks, 612))


def test_a_heads_lines_stacked_in_two_blocks_read_together():
    text = _read(stacked(HEADS))
    assert text == "April 1,\n2023\n\nMarch 26,\n2022"
    assert invented_dates(text, "April 1, 2023 March 26, 2022") == []
    assert invented_dates(_read(HEADS), "April 1, 2023 March 26, 2022") == ["March 26,\n\n2023"]


def test_rows_and_long_lines_are_not_stacked():
    assert stacked(ROWS) == sorted(ROWS, key=lambda b: (b.y0, b.x0))
    prose = [Block(52, 100, 300, 115, "Net sales by category and by reportable segment"),
             Block(52, 110, 300, 125, "were as follows")]  # fmt: skip
    assert stacked(prose) == prose
