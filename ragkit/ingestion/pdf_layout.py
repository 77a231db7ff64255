"""PDF -> Markdown pages with PyMuPDF's layout engine (through pymupdf4llm): headings, lists and tables
(ruled or not) as Markdown, reading order across columns, page headers and footers dropped.

Each page is parsed on its own, so progress, the time cap and the expansion caps apply per page and a
page's text is exactly what its number says. OCR of pages without a usable text layer follows, for either
parser (:mod:`ragkit.ingestion.ocr`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ragkit.core.types import Page
from ragkit.ingestion.limits import Budget, check_page_streams
from ragkit.ingestion.numbered_lines import numbered_page_text
from ragkit.ingestion.pdf_tables import Block, Plumber, page_errors
from ragkit.ingestion.tables import count_markdown_tables

_PICTURE = re.compile(r"^\*\*==> picture \[[^\]]*\] intentionally omitted <==\*\*\s*$", re.M)
_BLANKS = re.compile(r"\n{3,}")
#: the engine's HTML for raised and lowered text (footnote marks, exponents, chemical formulas)
_SCRIPT = re.compile(r"<(sup|sub)>([^<>\n]{0,24})</\1>")
_SCRIPT_DIGITS = re.compile(r"[\d+\-=(),\s]+")
_RAISED = str.maketrans("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")
_LOWERED = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
_FENCE = re.compile(r"^```[^\n`]*\n?", re.M)
_INLINE_CODE = re.compile(r"`([^`\n]*)`")
#: the share of a page's characters in monospaced fonts above which it is typewritten, not code
TYPEWRITTEN = 0.8


def typewritten(page: Any) -> bool:
    """Whether most of a page's text is set in a monospaced font (a court transcript, an RFC, a typed
    letter): the layout engine marks monospaced text as code, which on such a page it is not."""
    import pymupdf

    mono = total = 0
    for block in page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT).get("blocks", []):  # images not read
        for line in block.get("lines", []):
            for span in line["spans"]:
                n = len(span["text"].strip())
                total += n
                mono += n if span["flags"] & pymupdf.TEXT_FONT_MONOSPACED else 0
    return total > 0 and mono / total >= TYPEWRITTEN


def unmark_code(text: str) -> str:
    """A typewritten page's Markdown without the code marks the layout engine put on its text (inline
    backticks and fences)."""
    return _INLINE_CODE.sub(r"\1", _FENCE.sub("", text))


@dataclass(frozen=True)
class LayoutPage:
    """One page's Markdown and the page-header/footer boxes the layout engine found in it."""

    text: str
    margins: tuple[tuple[int, int], ...]  # (start, stop) of each header/footer box in ``text``
    boxes: tuple[tuple[int, int, tuple[float, float, float, float]], ...] = ()  # every box: start, stop, bbox


def layout_page(page: Any) -> LayoutPage:
    """One page as Markdown by PyMuPDF's layout engine, with its header and footer boxes located."""
    from pymupdf4llm.helpers.document_layout import parse_document
    from pymupdf4llm.ocr import OCRMode

    parsed = parse_document(page.parent, pages=[page.number], use_ocr=OCRMode.NEVER, force_text=True)
    chunks = parsed.to_markdown(header=True, footer=True, page_chunks=True)
    if not chunks:
        return LayoutPage("", ())
    boxes = chunks[0].get("page_boxes") or []
    margins = tuple(tuple(b["pos"]) for b in boxes if b["class"] in ("page-header", "page-footer"))
    placed = tuple((*b["pos"], tuple(b["bbox"])) for b in boxes)
    return LayoutPage(chunks[0]["text"], margins, placed)  # type: ignore[arg-type]


def _inside(box: tuple[float, ...], region: tuple[float, ...]) -> float:
    """The share of ``box``'s area that lies inside ``region`` (both ``x0, y0, x1, y1``)."""
    w = min(box[2], region[2]) - max(box[0], region[0])
    h = min(box[3], region[3]) - max(box[1], region[1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    return w * h / area if w > 0 and h > 0 and area > 0 else 0.0


def ruled_tables(pg: LayoutPage, found: list[Block]) -> tuple[list[tuple[int, int, str]], set[int]]:
    """Edits that put each table pdfplumber found by its ruling lines in place of the layout boxes it
    covers (more than half of a box inside the table): the first such box becomes the table, the others
    go. Returns the edits and the start offsets of the boxes they replace."""
    edits: list[tuple[int, int, str]] = []
    used: set[int] = set()
    for t in found:
        region = (t.x0, t.y0, t.x1, t.y1)
        covered = [(a, b) for a, b, bbox in pg.boxes if a not in used and _inside(bbox, region) > 0.5]
        for n, (a, b) in enumerate(sorted(covered)):
            edits.append((a, b, t.text + "\n\n" if n == 0 else ""))
            used.add(a)
    return edits, used


def _running(text: str) -> str:
    """A header/footer's text with its numbers left out: what repeats from page to page."""
    return re.sub(r"\d+", "#", " ".join(text.split()).lower())


def _page_number(text: str) -> bool:
    return bool(re.fullmatch(r"(page\s*)?[\divxlc]+(\s*(of|/)\s*\d+)?", " ".join(text.split()).lower()))


def scripts(text: str) -> str:
    """The engine's ``<sup>``/``<sub>`` as text: digits as Unicode super-/subscripts ("S2ORC,¹",
    "10⁶", "H₂O"), anything else (a "†" mark, "st") as it is, the emphasis marks inside dropped. Quotes
    and the page view show no HTML tags, and the analyzer reads a raised digit as no part of a word."""

    def one(m: re.Match[str]) -> str:
        inner = m.group(2).strip("_* ")
        if inner and _SCRIPT_DIGITS.fullmatch(inner):
            return inner.replace(" ", "").translate(_RAISED if m.group(1) == "sup" else _LOWERED)
        return inner

    return _SCRIPT.sub(one, text)


def drop_running_margins(
    pages: list[LayoutPage], edits: list[tuple[list[tuple[int, int, str]], set[int]]] | None = None
) -> list[str]:
    """Each page's Markdown without its running headers and footers (and with ``edits`` applied): a
    header/footer box is dropped when its text (numbers aside) recurs on another page or is a page
    number; a one-off line the engine put in the margin (a title at the top of a short page) is kept."""
    seen: dict[str, int] = {}
    for pg in pages:
        for key in {_running(pg.text[a:b]) for a, b in pg.margins}:
            seen[key] = seen.get(key, 0) + 1
    out = []
    for n, pg in enumerate(pages):
        mine, replaced = edits[n] if edits else ([], set())
        drop = [
            (a, b) for a, b in pg.margins if a not in replaced
            if not pg.text[a:b].strip() or _page_number(pg.text[a:b]) or seen[_running(pg.text[a:b])] > 1
        ]  # fmt: skip
        text = pg.text
        changes = [(a, b, "") for a, b in drop] + mine
        for a, b, new in sorted(changes, reverse=True):
            text = text[:a] + new + text[b:]
        text = scripts(_PICTURE.sub("", text))  # "picture intentionally omitted" placeholders are not text
        out.append(_BLANKS.sub("\n\n", text).strip())
    return out


def parse_layout_pages(
    name: str, doc: Any, data: bytes, budget: Budget, progress: Any, warnings: list[str]
) -> list[Page]:
    """Every page of an opened PDF as layout Markdown, running headers and footers dropped, ruled tables
    read by pdfplumber."""
    laid: list[LayoutPage] = []
    typed: list[bool] = []
    edits: list[tuple[list[tuple[int, int, str]], set[int]]] = []
    with Plumber(data, warnings) as plumber:
        for i in range(doc.page_count):
            budget.check_time(f"page {i + 1} of {doc.page_count}")
            with page_errors(name, i):
                page = doc.load_page(i)
                check_page_streams(name, doc, page, i, budget)
                numbered = numbered_page_text(page)  # a transcript's page: read row by row
                laid.append(layout_page(page) if numbered is None else LayoutPage(numbered, ()))
                typed.append(numbered is None and typewritten(page))
                found = plumber.tables(i) if numbered is None else []
                edits.append(ruled_tables(laid[-1], found))
            budget.add_text(len(laid[-1].text))
            if progress:
                progress(i + 1, doc.page_count)
    texts = [
        unmark_code(t) if mono else t
        for t, mono in zip(drop_running_margins(laid, edits), typed, strict=True)
    ]
    return [Page(number=i + 1, text=t, tables=count_markdown_tables(t)) for i, t in enumerate(texts)]


__all__ = [
    "TYPEWRITTEN",
    "LayoutPage",
    "drop_running_margins",
    "layout_page",
    "parse_layout_pages",
    "scripts",
    "typewritten",
    "unmark_code",
]
