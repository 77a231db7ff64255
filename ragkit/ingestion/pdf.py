"""PDF -> pages, by the chosen parser: ``layout`` (:mod:`ragkit.ingestion.pdf_layout`) or ``plain`` (here:
PyMuPDF text blocks in a column-aware reading order, tables from pdfplumber as Markdown in place of the
text they cover); then OCR where the text layer is not usable, accents re-joined, diagnostics for pages
without text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import replace

from ragkit.core.errors import DocumentError
from ragkit.core.types import Page
from ragkit.ingestion.figures import ocr_pictures
from ragkit.ingestion.hyphenation import _Hyphenation
from ragkit.ingestion.limits import Budget, check_page_streams, check_pdf
from ragkit.ingestion.numbered_lines import numbered_page_text
from ragkit.ingestion.ocr import DPI as OCR_DPI
from ragkit.ingestion.ocr import needs_ocr, ocr_pages, tesseract_path
from ragkit.ingestion.ocr_boxes import inside
from ragkit.ingestion.pdf_glyphs import RAISED, fractions
from ragkit.ingestion.pdf_hidden import painted_over
from ragkit.ingestion.pdf_layout import parse_layout_pages
from ragkit.ingestion.pdf_ligatures import mend_ligatures
from ragkit.ingestion.pdf_picture import picture_spans
from ragkit.ingestion.pdf_spacing import install as read_squeezed_spaces
from ragkit.ingestion.pdf_tables import Block, Plumber, page_errors
from ragkit.ingestion.pdf_turned import upright
from ragkit.ingestion.reading import PageProgress, page_ranges

#: spacing accents that TeX-made PDFs put before a letter ("F¨arber", "na¨ıve"), and the combining mark
#: each stands for
_SPACING = {"\u00a8": "\u0308", "\u00b4": "\u0301", "\u02c6": "\u0302", "\u02dc": "\u0303",
            "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307", "\u02da": "\u030a",
            "\u00af": "\u0304", "\u02dd": "\u030b"}  # fmt: skip
_DIGITS = re.compile(r"\d+")
_ACCENTED = re.compile("([" + "".join(_SPACING) + "])([A-Za-z\u0131])")


#: a ring set raised as a degree sign between a figure and "C" or "F" (TeX's ``^\circ``, read as U+2218
#: or U+25E6; a datasheet's text layer stores its rings so too): "25◦C" is "25°C"
_RING = re.compile(r"(?<=\d)(\s?)[\u2218\u25e6](?=\s?[CF](?![A-Za-z]))")
#: a datasheet's ring (U+25E6, not TeX's ring operator) set before "C" or "F" with no figure before it:
#: a unit of its own ("◦C" in a Unit column, "in ◦F")
_RING_ALONE = re.compile(r"(?:^|(?<=[\s(/|]))\u25e6(?=[CF](?![A-Za-z]))", re.M)


def join_accents(text: str) -> str:
    """ "F¨arber" -> "Färber": a spacing accent right before a letter joined onto it (so the word is
    searchable as typed); a ring raised as a degree sign read as one ("20-45◦C" -> "20-45°C", a unit
    "◦C" -> "°C")."""

    def compose(m: re.Match[str]) -> str:
        letter = "i" if m.group(2) == "\u0131" else m.group(2)  # TeX accents a dotless i
        return unicodedata.normalize("NFC", letter + _SPACING[m.group(1)])

    text = _RING.sub(lambda m: f"{m.group(1)}\u00b0", _ACCENTED.sub(compose, text))
    return _RING_ALONE.sub("\u00b0", text)


def _pictures_marked(page: Page) -> Page:
    """The page with the marks around its picture text taken out and recorded as ``pictures``."""
    text, spans = picture_spans(page.text)
    return replace(page, text=text, pictures=tuple(spans)) if spans or text != page.text else page


#: the resolution an image is enlarged to for OCR when it holds fewer pixels per inch of page
MIN_IMAGE_DPI = 200

#: how a PDF becomes text: ``layout`` (PyMuPDF's layout engine through pymupdf4llm: Markdown headings,
#: lists and tables, headers and footers dropped) or ``plain`` (text blocks in a column-aware order, tables
#: from pdfplumber's ruling lines)
PDF_PARSERS = ("layout", "plain")
OCR_MODES = ("auto", "always", "never")


def _parse_pdf(
    name: str,
    data: bytes,
    progress: PageProgress | None = None,
    parser: str = "layout",
    ocr: str = "auto",
    ocr_language: str = "eng",
) -> tuple[list[Page], list[str]]:
    import pymupdf

    read_squeezed_spaces()  # a page set tight shows word spaces it does not write
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
        budget = Budget(name)
        check_pdf(name, doc, budget)  # pages, and every stream's filter chain, before anything is read
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
        mended = mend_ligatures(doc)  # fonts that read ligatures short ("he" for "The") mended
        if _unpainted(name, doc, budget, warnings) or mended:
            data = doc.tobytes()  # pdfplumber reads the mended copy, without the painted-over text
        if parser == "layout":
            pages = parse_layout_pages(name, doc, data, budget, progress, warnings)
        elif parser == "plain":
            pages = _plain_pages(name, doc, data, budget, warnings, progress)
        else:
            raise DocumentError(name, f"unknown PDF parser {parser!r} (one of {', '.join(PDF_PARSERS)})")
        layered = {p.number for p in pages if not needs_ocr(p.text)}  # the others are OCR'd whole
        pages, more = ocr_pages(doc, pages, ocr, ocr_language, budget)
        if ocr == "auto" and tesseract_path() is not None:  # pictures of text on pages with a text layer
            pages, pictured = ocr_pictures(doc, pages, layered, ocr_language, budget)
            more += pictured
        pages = [_pictures_marked(replace(p, text=join_accents(p.text))) for p in pages]
        warnings += more
    empty = [p.number for p in pages if not p.text.strip()]  # OCR, where it ran, read nothing either
    if len(empty) == 1:
        warnings.append(f"page {empty[0]} has no extractable text — scanned image?")
    elif empty:
        warnings.append(f"pages {page_ranges(empty)} have no extractable text — scanned images?")
    if len(empty) == len(pages):
        warnings.append("no page has text: nothing will be indexed")
    return pages, warnings


def _unpainted(name: str, doc: object, budget: Budget, warnings: list[str]) -> bool:
    """Take text each page paints over out of it (:mod:`ragkit.ingestion.pdf_hidden`) before any parser
    reads the page, pdfplumber's ruled tables included; whether any page changed."""
    said = len(warnings)
    for i in range(doc.page_count):  # type: ignore[attr-defined]
        budget.check_time(f"page {i + 1} of {doc.page_count}")  # type: ignore[attr-defined]
        with page_errors(name, i):
            page = doc.load_page(i)  # type: ignore[attr-defined]
            check_page_streams(name, doc, page, i, budget)
            painted_over(page, i, warnings)
    return len(warnings) > said


def parse_image(
    name: str, data: bytes, progress: PageProgress | None = None, ocr_language: str = "eng"
) -> tuple[list[Page], list[str]]:
    """A scanned page given as an image (PNG, JPEG, TIFF: one page per frame), read by OCR at the
    image's own resolution (a low-resolution scan is enlarged to ``MIN_IMAGE_DPI`` for Tesseract)."""
    import pymupdf

    try:
        img = pymupdf.open(stream=data, filetype=name.rsplit(".", 1)[-1].lower())
        pdf = pymupdf.open("pdf", img.convert_to_pdf())
    except Exception as e:  # PyMuPDF raises FileDataError / RuntimeError / ValueError
        raise DocumentError(name, f"not a readable image — corrupt or truncated ({e})") from None
    with pdf:
        pages = [Page(number=i + 1, text="") for i in range(pdf.page_count)]
        budget = Budget(name)
        warnings: list[str] = []
        out: list[Page] = []
        for i, page in enumerate(pages):
            width_px = max((im[2] for im in pdf.load_page(i).get_images(full=True)), default=0)
            points = pdf.load_page(i).rect.width or 1.0
            dpi = max(MIN_IMAGE_DPI, min(OCR_DPI, round(width_px * 72 / points)))
            # the image itself is rendered (enlarged smoothly), not its PDF copy: MuPDF draws a PDF's image
            # enlarged in blocks, and Tesseract misreads blocky letters (a 96-dpi scan: confidence 79 -> 87)
            read, more = ocr_pages(img, [page], "always", ocr_language, budget, dpi=dpi, only=i + 1)
            out += read
            warnings += more
            if progress:
                progress(i + 1, pdf.page_count)
    if not any(p.text.strip() for p in out):
        warnings.append("OCR read no text in the image: nothing will be indexed")
    return out, warnings


def _plain_pages(
    name: str, doc: object, data: bytes, budget: Budget, warnings: list[str], progress: PageProgress | None
) -> list[Page]:
    """Text blocks in a column-aware order, tables from pdfplumber in place of the text they cover."""

    raw_pages: list[tuple[list[RawBlock], list[Block], float]] = []
    with Plumber(data, warnings) as plumber:
        for i in range(doc.page_count):  # type: ignore[attr-defined]
            budget.check_time(f"page {i + 1} of {doc.page_count}")  # type: ignore[attr-defined]
            with page_errors(name, i):
                page = doc.load_page(i)  # type: ignore[attr-defined]
                check_page_streams(name, doc, page, i, budget)
                turned = upright(page)  # a table printed turned: read as the reader turns the paper
                page = turned[1] if turned else page
                width = page.rect.width
                numbered = numbered_page_text(page)  # a transcript's page: read row by row
                if numbered is None:
                    blocks = plain_blocks(page)
                else:  # its paragraphs, top to bottom, in the page's width
                    paras = [t for t in numbered.split("\n\n") if t.strip()]
                    blocks = [(0.0, float(k), width, k + 1.0, t, ()) for k, t in enumerate(paras)]
            budget.add_text(sum(len(b[4]) for b in blocks))
            found = plumber.tables(i, page) if numbered is None and not turned else []
            raw_pages.append((blocks, found, width))
            if progress:
                progress(i + 1, doc.page_count)  # type: ignore[attr-defined]
    words = _Hyphenation(b[4] for blocks, _, _ in raw_pages for b in blocks)
    pages: list[Page] = []
    for i, (raw_blocks, page_tables, width) in enumerate(raw_pages):
        blocks = [Block(b[0], b[1], b[2], b[3], words.join_lines(b[4])) for b in raw_blocks]
        blocks = _replace_table_regions(blocks, page_tables, [b[5] for b in raw_blocks], words.join_lines)
        text = "\n\n".join(b.text for b in reading_order(stacked(blocks), width))
        pages.append(Page(number=i + 1, text=text, tables=len(page_tables)))
    return pages


#: a line of a text block: its box and text
Line = tuple[float, float, float, float, str]
#: a text block: its box, its text and its lines
RawBlock = tuple[float, float, float, float, str, tuple[Line, ...]]


def plain_blocks(page: object) -> list[RawBlock]:
    """A page's text blocks as PyMuPDF reads them (ligatures expanded, so "classification" matches what
    users type), with raised digits as Unicode superscripts and a fraction set from raised and lowered
    digits as its character ("48¹/2" -> "48½", not the number 481/2); each with its lines."""
    import pymupdf

    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_LIGATURES & ~pymupdf.TEXT_PRESERVE_IMAGES
    out = []
    for b in page.get_text("dict", flags=flags).get("blocks", []):  # type: ignore[attr-defined]
        if b.get("type") != 0:
            continue
        lines = []
        for line in b["lines"]:
            text = ""
            for s in line["spans"]:
                raised = s["flags"] & pymupdf.TEXT_FONT_SUPERSCRIPT and _DIGITS.fullmatch(s["text"].strip())
                text += s["text"].strip().translate(RAISED) if raised else s["text"]
            lines.append((*line["bbox"], text))
        text = fractions("\n".join(t for *_, t in lines))
        if text.strip():
            out.append((*b["bbox"], text, tuple(lines)))
    return out


def _replace_table_regions(
    blocks: list[Block],
    tables: list[Block],
    lines: Sequence[Sequence[Line]] = (),
    join: Callable[[str], str] = str,
) -> list[Block]:
    """Drop text blocks whose centre lies inside a table; the table block stands in their place. The
    lines of a dropped block set beside the table stay, a block of their own (PyMuPDF read a one-row
    table's label and its last figure as one block, and the label went with the table's figures)."""
    if not tables:
        return blocks

    def covers(t: Block, x0: float, y0: float, x1: float, y1: float) -> bool:  # 1 pt of slack round it
        return inside((t.x0 - 1, t.y0 - 1, t.x1 + 1, t.y1 + 1), (x0 + x1) / 2, (y0 + y1) / 2)

    kept = []
    for k, b in enumerate(blocks):
        if not any(covers(t, b.x0, b.y0, b.x1, b.y1) for t in tables):
            kept.append(b)
            continue
        own = lines[k] if k < len(lines) else ()
        out = [ln for ln in own if not any(covers(t, *ln[:4]) for t in tables)]
        if out and (text := join("\n".join(ln[4] for ln in out))).strip():
            box = (min(ln[0] for ln in out), min(ln[1] for ln in out), max(ln[2] for ln in out))
            kept.append(Block(*box, max(ln[3] for ln in out), text))
    return kept + tables


#: a short block (a line of a few words) set under another this much into its box is the same head's
#: next line, not the next row (a table head's lines are set closer than its rows)
STACKED = 0.25
_HEAD_WORDS = 3


def stacked(blocks: list[Block]) -> list[Block]:
    """Join each short one-line block set right under another (its top this share of the upper's height
    inside the upper's box, their widths overlapping by half the narrower) to it: a statement's column
    head "April 1," over "2023" was read in the page's row order, the dates' row before the years', and
    "March 26," ran on into "2023", a date the page does not print."""

    def short(b: Block) -> bool:
        return "\n" not in b.text.strip() and len(b.text.split()) <= _HEAD_WORDS

    out = sorted(blocks, key=lambda b: (b.y0, b.x0))
    k = 0
    while k < len(out):
        a = out[k]
        under = [
            j for j, b in enumerate(out) if j != k and short(b) and a.y0 < b.y0
            and b.y0 <= a.y1 - STACKED * (a.y1 - a.y0)
            and min(a.x1, b.x1) - max(a.x0, b.x0) >= 0.5 * min(a.x1 - a.x0, b.x1 - b.x0)
        ] if short(a) else []  # fmt: skip
        if len(under) != 1:
            k += 1
            continue
        b = out.pop(under[0])  # below this one, so sorted after it: this one keeps its place
        text = f"{a.text.strip()}\n{b.text.strip()}"
        out[k] = Block(min(a.x0, b.x0), a.y0, max(a.x1, b.x1), max(a.y1, b.y1), text)
    return out


def reading_order(blocks: list[Block], page_width: float) -> list[Block]:
    """Order blocks as a person reads: top to bottom, and in two-column bands left column first.

    A block that spans the middle of the page (a title, a full-width figure) closes a band; inside a
    band, every left-column block comes before every right-column block.
    """
    mid = page_width / 2
    tol = 0.02 * page_width
    out: list[Block] = []
    left: list[Block] = []
    right: list[Block] = []

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
