"""pdfplumber's ruled-table finder, shared by both PDF parsers: the plain reader puts its tables in place
of the text they cover; the layout parser prefers them to its own for tables drawn with ruling lines
(pdfplumber reads those cell by cell, where the layout engine can split a number across columns)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass

from ragkit.core.errors import DocumentError
from ragkit.core.optional import require
from ragkit.ingestion.pdf_spans import WORD_GAP
from ragkit.ingestion.tables import table_to_markdown


@dataclass(frozen=True)
class Block:
    """A positioned piece of page text (a PyMuPDF text block or a whole table)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str


class Plumber:
    """pdfplumber opened once per PDF; ``tables(i)`` finds page i's tables (as Markdown blocks) and turns
    any failure into a warning, so one bad page never loses the others' tables or text."""

    def __init__(self, data: bytes, warnings: list[str]) -> None:
        self.data, self.warnings, self.pdf = data, warnings, None

    def __enter__(self) -> Plumber:
        try:
            pdfplumber = require("pdfplumber", "table detection in PDFs")
            self.pdf = pdfplumber.open(io.BytesIO(self.data))
        except Exception as e:
            self.warnings.append(f"table detection skipped ({e})")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pdf is not None:
            self.pdf.close()

    def tables(self, i: int) -> list[Block]:
        found: list[Block] = []
        if self.pdf is None or i >= len(self.pdf.pages):
            return found
        try:
            for table in self.pdf.pages[i].find_tables():
                # words spaced by their gaps relative to the font size (pdfplumber's fixed 3 pt glued a
                # small table's words: "Sourcearticles")
                md = table_to_markdown(table.extract(x_tolerance_ratio=WORD_GAP))
                if md:
                    x0, top, x1, bottom = table.bbox
                    found.append(Block(x0, top, x1, bottom, md))
        except Exception as e:  # one bad page must not lose the others' tables
            self.warnings.append(f"page {i + 1}: table detection failed ({e})")
        return found


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
