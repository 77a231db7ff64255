"""pdfplumber's ruled-table finder, shared by both PDF parsers: the plain reader puts its tables in place
of the text they cover; the layout parser prefers them to its own for tables drawn with ruling lines
(pdfplumber reads those cell by cell, where the layout engine can split a number across columns)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.ingestion.pdf_rules import table_rows
from ragkit.ingestion.tables import table_to_markdown


@dataclass(frozen=True)
class Block:
    """A positioned piece of page text (a PyMuPDF text block or a whole table)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    #: a table's ruled part, when cells beside it widen the box (the layout parser replaces the boxes
    #: this covers: the engine's own reading of what stands beside it is kept)
    ruled: tuple[float, float, float, float] | None = None


class Plumber:
    """pdfplumber opened once per PDF; ``tables(i)`` finds page i's tables (as Markdown blocks) and turns
    any failure into a warning, so one bad page never loses the others' tables or text."""

    def __init__(self, data: bytes, warnings: list[str]) -> None:
        self.data, self.warnings, self.pdf = data, warnings, None

    def __enter__(self) -> Plumber:
        try:
            import pdfplumber  # a core dependency: a PDF it cannot open is a warning, never lost text

            self.pdf = pdfplumber.open(io.BytesIO(self.data))
        except Exception as e:
            self.warnings.append(f"table detection skipped ({e})")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pdf is not None:
            self.pdf.close()

    def tables(self, i: int, page: Any = None) -> list[Block]:
        """Page ``i``'s ruled tables; given its PyMuPDF ``page``, a page whose drawings cannot make one
        cell is not handed to pdfplumber (which parses every character to find its lines)."""
        found: list[Block] = []
        if self.pdf is None or i >= len(self.pdf.pages):
            return found
        try:
            if page is not None and not may_rule(page):
                return found
            for (x0, top, x1, bottom), rows, ruled in table_rows(self.pdf.pages[i]):
                md = table_to_markdown(rows)
                if md:
                    found.append(Block(x0, top, x1, bottom, md, ruled))
        except Exception as e:  # one bad page must not lose the others' tables
            self.warnings.append(f"page {i + 1}: table detection failed ({e})")
        return found


#: a segment this much off the horizontal is one of pdfplumber's vertical edges (it calls every line
#: that is not exactly level vertical, then keeps those at least 1 pt tall)
_LEVEL = 0.5


def may_rule(page: Any) -> bool:
    """Whether a PyMuPDF page's drawings could give pdfplumber's "lines" strategy one table cell: at least
    two horizontal and two vertical edges among its lines, rectangles and curves (counted generously:
    a rectangle or quad gives two of each, a curve one of each). A page that cannot is most pages of
    prose (a paper's booktabs rules are all horizontal), and pdfplumber's parse of it is ~0.1 s wasted."""
    across = down = 0
    for path in page.get_cdrawings():
        for item in path.get("items", ()):
            kind = item[0]
            if kind == "l":
                if abs(item[2][1] - item[1][1]) < _LEVEL:
                    across += 1
                else:
                    down += 1
            elif kind in ("re", "qu"):
                across, down = across + 2, down + 2
            else:  # a curve: its control polygon may hold either
                across, down = across + 1, down + 1
            if across >= 2 and down >= 2:
                return True
    return False


@contextlib.contextmanager
def page_errors(name: str, i: int) -> Iterator[None]:
    """Any failure reading page ``i`` (0-based) is that file's error naming the page; a ``DocumentError``
    (a cap, a refusal) passes as it is."""
    try:
        yield
    except DocumentError:
        raise
    except Exception as e:  # PyMuPDF raises RuntimeError, ValueError, its own FileDataError...
        raise DocumentError(name, f"page {i + 1} cannot be read — corrupt or truncated PDF ({e})") from None
