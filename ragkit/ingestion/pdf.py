"""PDF -> pages: PyMuPDF text blocks in a column-aware reading order, tables from pdfplumber as Markdown in
place of the text they cover, diagnostics for pages without text."""

from __future__ import annotations

import io
from dataclasses import dataclass

from ragkit.core.errors import DocumentError
from ragkit.core.optional import require
from ragkit.core.types import Page
from ragkit.ingestion.hyphenation import _Hyphenation
from ragkit.ingestion.reading import PageProgress, page_ranges
from ragkit.ingestion.tables import table_to_markdown


@dataclass(frozen=True)
class _Block:
    """A positioned piece of page text (a PyMuPDF text block or a whole table)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def _parse_pdf(name: str, data: bytes, progress: PageProgress | None = None) -> tuple[list[Page], list[str]]:
    import pymupdf

    warnings: list[str] = []
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:  # pymupdf raises FileDataError / RuntimeError / ValueError
        raise DocumentError(name, f"not a readable PDF — corrupt or truncated ({e})") from None
    with doc:
        if doc.needs_pass:
            raise DocumentError(
                name, "the PDF is password-protected; remove the password and ingest it again"
            )
        if doc.page_count == 0:
            raise DocumentError(name, "the PDF has no pages — corrupt or truncated")
        if doc.is_repaired:
            if b"%%EOF" not in data[-2048:]:
                # Repair "succeeds" on a cut-off file by dropping what is missing: refuse, don't guess.
                raise DocumentError(
                    name,
                    "the PDF is truncated (it stops before its %%EOF end marker, so pages or text "
                    "are missing) — copy or download the file again",
                )
            warnings.append("the PDF was damaged and had to be repaired; some text may be missing")
        raw_pages: list[tuple[list[tuple[float, float, float, float, str]], list[_Block], float]] = []
        with _Plumber(data, warnings) as plumber:
            for i in range(doc.page_count):
                try:
                    page = doc.load_page(i)
                    # expand ligatures (ﬁ -> fi) so "classification" matches what users type
                    raw = page.get_text(
                        "blocks", flags=pymupdf.TEXTFLAGS_BLOCKS & ~pymupdf.TEXT_PRESERVE_LIGATURES
                    )
                    width = page.rect.width
                except Exception as e:
                    raise DocumentError(
                        name, f"page {i + 1} cannot be read — corrupt or truncated PDF ({e})"
                    ) from None
                blocks = [(b[0], b[1], b[2], b[3], b[4]) for b in raw if b[6] == 0 and b[4].strip()]
                raw_pages.append((blocks, plumber.tables(i), width))
                if progress:
                    progress(i + 1, doc.page_count)
    words = _Hyphenation(b[4] for blocks, _, _ in raw_pages for b in blocks)
    pages: list[Page] = []
    for i, (raw_blocks, page_tables, width) in enumerate(raw_pages):
        blocks = [_Block(b[0], b[1], b[2], b[3], words.join_lines(b[4])) for b in raw_blocks]
        blocks = _replace_table_regions(blocks, page_tables)
        text = "\n\n".join(b.text for b in reading_order(blocks, width))
        pages.append(Page(number=i + 1, text=text, tables=len(page_tables)))
    empty = [p.number for p in pages if not p.text.strip()]
    if len(empty) == 1:
        warnings.append(f"page {empty[0]} has no extractable text — scanned image?")
    elif empty:
        warnings.append(f"pages {page_ranges(empty)} have no extractable text — scanned images?")
    if empty and len(empty) == len(pages):
        warnings.append("no page has a text layer: nothing will be indexed (run OCR on it first)")
    return pages, warnings


class _Plumber:
    """pdfplumber opened once per PDF; ``tables(i)`` finds page i's tables (as Markdown blocks) and turns
    any failure into a warning, so one bad page never loses the others' tables or text."""

    def __init__(self, data: bytes, warnings: list[str]) -> None:
        self.data, self.warnings, self.pdf = data, warnings, None

    def __enter__(self) -> _Plumber:
        try:
            pdfplumber = require("pdfplumber", "table detection in PDFs")
            self.pdf = pdfplumber.open(io.BytesIO(self.data))
        except Exception as e:
            self.warnings.append(f"table detection skipped ({e})")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pdf is not None:
            self.pdf.close()

    def tables(self, i: int) -> list[_Block]:
        found: list[_Block] = []
        if self.pdf is None or i >= len(self.pdf.pages):
            return found
        try:
            for table in self.pdf.pages[i].find_tables():
                md = table_to_markdown(table.extract())
                if md:
                    x0, top, x1, bottom = table.bbox
                    found.append(_Block(x0, top, x1, bottom, md))
        except Exception as e:  # one bad page must not lose the others' tables
            self.warnings.append(f"page {i + 1}: table detection failed ({e})")
        return found


def _replace_table_regions(blocks: list[_Block], tables: list[_Block]) -> list[_Block]:
    """Drop text blocks whose centre lies inside a table; the table block stands in their place."""
    if not tables:
        return blocks

    def inside(b: _Block, t: _Block) -> bool:
        cx, cy = (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
        return t.x0 - 1 <= cx <= t.x1 + 1 and t.y0 - 1 <= cy <= t.y1 + 1

    kept = [b for b in blocks if not any(inside(b, t) for t in tables)]
    return kept + tables


def reading_order(blocks: list[_Block], page_width: float) -> list[_Block]:
    """Order blocks as a person reads: top to bottom, and in two-column bands left column first.

    A block that spans the middle of the page (a title, a full-width figure) closes a band; inside a
    band, every left-column block comes before every right-column block.
    """
    mid = page_width / 2
    tol = 0.02 * page_width
    out: list[_Block] = []
    left: list[_Block] = []
    right: list[_Block] = []

    def flush() -> None:
        out.extend(sorted(left, key=lambda b: (b.y0, b.x0)))
        out.extend(sorted(right, key=lambda b: (b.y0, b.x0)))
        left.clear()
        right.clear()

    for b in sorted(blocks, key=lambda b: (b.y0, b.x0)):
        if b.x1 <= mid + tol:
            left.append(b)
        elif b.x0 >= mid - tol:
            right.append(b)
        else:
            flush()
            out.append(b)
    flush()
    return out
