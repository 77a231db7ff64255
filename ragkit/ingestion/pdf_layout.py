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
from ragkit.ingestion import pdf_spans
from ragkit.ingestion.hyphenation import _Hyphenation
from ragkit.ingestion.limits import Budget, check_page_streams, too_big_to_render
from ragkit.ingestion.numbered_lines import numbered_page_text
from ragkit.ingestion.ocr_boxes import inside, share_inside
from ragkit.ingestion.pdf_apart import read_apart
from ragkit.ingestion.pdf_columns import across_pages, column_order, continues, reorder, sentence_first
from ragkit.ingestion.pdf_footnotes import NOTE_MARK, footnotes_found
from ragkit.ingestion.pdf_glyphs import RAISED
from ragkit.ingestion.pdf_levels import on_page
from ragkit.ingestion.pdf_tables import Block, Plumber, page_errors
from ragkit.ingestion.pdf_turned import upright
from ragkit.ingestion.tables import count_markdown_tables
from ragkit.ingestion.wrapped_rows import join_wrapped_markdown

_MARGINS = ("page-header", "page-footer")
_PICTURE = re.compile(r"^\*\*==> picture \[[^\]]*\] intentionally omitted <==\*\*\s*$", re.M)
_BLANKS = re.compile(r"\n{3,}")
#: the engine's HTML for raised and lowered text (footnote marks, exponents, chemical formulas)
_SCRIPT = re.compile(r"<(sup|sub)>([^<>\n]{0,24})</\1>")
_SCRIPT_DIGITS = re.compile(r"[\d+\-=(),\s]+")
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
    classes: tuple[str, ...] = ()  # each box's class ("text", "footnote", "table", …), as ``boxes``


def layout_page(page: Any) -> LayoutPage:
    """One page as Markdown by PyMuPDF's layout engine, with its header and footer boxes located."""
    from pymupdf4llm.helpers.document_layout import parse_document
    from pymupdf4llm.ocr import OCRMode

    pdf_spans.install()
    with on_page(page):  # a two-level table header's rules (:mod:`ragkit.ingestion.pdf_levels`)
        parsed = parse_document(page.parent, pages=[page.number], use_ocr=OCRMode.NEVER, force_text=True)
        chunks = parsed.to_markdown(header=True, footer=True, page_chunks=True)
    if not chunks:
        return LayoutPage("", ())
    boxes = chunks[0].get("page_boxes") or []
    placed = [(*b["pos"], tuple(b["bbox"])) for b in boxes]
    classes = [str(b["class"]) for b in boxes]
    order = column_order(placed, classes)  # type: ignore[arg-type]
    order = sentence_first(chunks[0]["text"], placed, classes, order)  # type: ignore[arg-type]
    text, placed, applied = reorder(chunks[0]["text"], placed, order)  # type: ignore[arg-type]
    classes = [classes[i] for i in applied]  # the classes follow the boxes as they were placed
    margins = tuple((a, b) for (a, b, _), c in zip(placed, classes, strict=True) if c in _MARGINS)
    return LayoutPage(text, margins, tuple(placed), tuple(classes))  # type: ignore[arg-type]


def _raise_mark(m: re.Match[str]) -> str:
    """A footnote's number raised, as on the page ("> ⁸ The papers …"): a mark, not a number the text
    states (the reader would quote "8The papers …" to "how many …?")."""
    return f"{m.group(1) or ''}{m.group(2).translate(RAISED)} "


def reflow(pg: LayoutPage, skip: set[int]) -> tuple[list[tuple[int, int, str]], str]:
    """Edits that take the footnotes out of the running text (they are returned, to go at the page's end)
    and join a paragraph the engine split — at a column break, or around the footnotes the engine put
    between its halves ("citation recommendation (He" … "> 15https://…" … "et al., 2010)"), or a caption
    set across two columns ("… The numbers on the left give the" | "orientation of the nucleotides …":
    the engine takes its rest for text, and the next column's text was glued onto it). Boxes whose
    start is in ``skip`` (dropped margins, tables from ruling lines) are left alone and end a paragraph."""
    edits: list[tuple[int, int, str]] = []
    notes: list[str] = []
    between: list[tuple[int, int]] = []  # footnotes since the last text box
    last: tuple[int, str, str, tuple[float, ...]] | None = None  # the last text or caption box: where its
    # text ends, that text, its class and its bbox
    texts: list[tuple[int, str, tuple[float, ...]]] = []  # every text box so far: its end, text and bbox
    joined: set[int] = set()  # the ends of text boxes something was joined on to
    for (a, b, box), cls in footnotes_found(pg.text, pg.boxes, pg.classes):
        if a in skip:
            last = None
            continue
        if cls == "footnote":
            note = pg.text[a:b].strip()
            if notes and not NOTE_MARK.match(note) and continues(notes[-1], note):  # a note's rest
                notes[-1] = f"{notes[-1]} {note}"
            else:
                notes.append(NOTE_MARK.sub(_raise_mark, note))
            between.append((a, b))
            continue
        if cls == "text" and last is not None and last[2] == "caption" and _beside(box, last[3]):
            cls = "caption"  # the rest of a caption, right of it at its top
        if cls in _FLOWING and last is not None and last[2] == cls and continues(last[1], pg.text[a:b]):
            lead = len(pg.text[a:b]) - len(pg.text[a:b].lstrip())
            hyphen = re.search(r"[a-z]-$", last[1]) is not None  # "ta-" | "bles": one word again
            end = last[0] - 1 if hyphen else last[0]
            edits.append((end, a + lead, "" if hyphen else " "))  # the break and the notes in it go
            joined.add(last[0])
        else:
            edits += [(x, y, "") for x, y in between]
            if cls == "text" and (foot := _column_foot(pg.text[a:b], box, texts, joined)) is not None:
                edits += [(foot, foot, " " + pg.text[a:b].strip()), (a, b, "")]  # past the figure between
                joined.add(foot)
                between, last = [], None
                continue
        between = []
        seg = pg.text[a:b].rstrip()
        last = (a + len(seg), seg, cls, box) if cls in _FLOWING else None
        if cls == "text":
            texts.append((a + len(seg), seg, box))
    edits += [(x, y, "") for x, y in between]
    return edits, "\n\n".join(n for n in notes if n)


#: the boxes whose text a column break can cut
_FLOWING = ("text", "caption")


def _column_foot(
    text: str, box: tuple[float, ...], texts: list[tuple[int, str, tuple[float, ...]]], joined: set[int]
) -> int | None:
    """Where the sentence that ``text`` (a text box starting in lower case) goes on with ends: the last
    text box of an earlier column, left of ``box`` and reaching lower than its top, whose sentence is
    open — a column's foot cut it, and the next column opens with a figure before its rest (TableFormer's
    "… by serializing" | Figure 1's tables and caption | "tables or rows into word sequences …")."""
    if not text.lstrip()[:1].islower():
        return None
    for end, seg, prior in reversed(texts):
        below = any(
            o[1] >= prior[3] - 1 and o[0] < prior[2] and o[2] > prior[0]
            for _, _, o in texts
            if o is not prior
        )
        if prior[2] <= box[0] + 2 and prior[3] > box[1] and not below:
            return end if end not in joined and continues(seg, text) else None
    return None


def _beside(box: tuple[float, ...], caption: tuple[float, ...]) -> bool:
    """Whether ``box`` starts at ``caption``'s top (within 2 pt), right of it: the caption's next column."""
    return abs(box[1] - caption[1]) <= 2.0 and box[0] >= caption[2] - 2.0


def ruled_tables(
    pg: LayoutPage, found: list[Block], page: Any = None
) -> tuple[list[tuple[int, int, str]], set[int]]:
    """Edits that put each table pdfplumber found by its ruling lines in place of the layout boxes it
    covers (more than half of a box inside the table): the first such box becomes the table, the others
    go. Given the PyMuPDF ``page``, a covered box's lines of words outside the table stay, before it or
    after it (a report's title line the engine read into its own table over the ruled one, a caption),
    unless the table or another box reads them. Returns the edits and the start offsets of the boxes
    they replace."""
    edits: list[tuple[int, int, str]] = []
    used: set[int] = set()
    tables = _squash("".join(x.text for x in found))  # what the page's tables read
    for t in found:
        region = t.ruled or (t.x0, t.y0, t.x1, t.y1)  # its ruled part: the engine's reading beside it stays
        covered = [
            (a, b, bbox) for a, b, bbox in pg.boxes if a not in used and share_inside(bbox, region) > 0.5
        ]
        starts = {a for a, _, _ in covered}
        others = [(a, b, bbox) for a, b, bbox in pg.boxes if a not in used and a not in starts]
        whole = (t.x0, t.y0, t.x1, t.y1)  # the table's text holds the columns beside its ruled part too
        *outside, within = _outside(
            page, [bbox for _, _, bbox in covered], whole, [bbox for *_, bbox in others]
        )
        # a line another box stands over is read there (``_outside``); one a table reads, in the table
        above, below = (
            [x for x in side if _WORDS.search(x) and _squash(x) not in tables] for side in outside
        )
        # words inside the table's box that no cell read (a drawing's labels where its grid made a table)
        below += [x for x in within if _LETTERS.search(x) and not _read_any(x, tables)]
        for n, (a, b, _) in enumerate(sorted(covered)):
            text = "".join(f"{x}\n\n" for x in [*above, t.text, *below]) if n == 0 else ""
            edits.append((a, b, text))
            used.add(a)
    return edits, used


#: a line worth keeping beside a table: words, not a chart's tick labels ("20,000", "47.31%")
_WORDS = re.compile(r"[^\W\d_]{2,}.*\s.*[^\W\d_]{2,}")
_LETTERS = re.compile(r"[^\W\d_]{2,}")


def _read_any(line: str, tables: str) -> bool:
    """Whether any word of ``line`` (two letters or more) is in ``tables`` (the page's tables, squashed):
    a line inside a table's box with none of them is text its cells left out."""
    return any(_squash(w) in tables for w in _LETTERS.findall(line))


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _outside(
    page: Any, boxes: list[tuple[float, ...]], region: tuple[float, ...], others: list[tuple[float, ...]]
) -> tuple[list[str], list[str], list[str]]:
    """The level lines of text in ``boxes`` that stand in none of the ``others`` (the page's other boxes,
    read where they are): those above ``region``, those below or beside it, and those inside it. A turned
    line (a chart's axis title) is no line of the page's text."""
    above, below, within, seen = [], [], [], set()
    for box in boxes:
        kept: list[_Line] = []  # each line's top, bottom, left, right and text
        for block in page.get_text("dict", clip=box, sort=True)["blocks"]:
            for line in block.get("lines", []):
                x0, y0, x1, y1 = line["bbox"]
                x, y = (x0 + x1) / 2, (y0 + y1) / 2
                if abs(line["dir"][1]) > 0.01 or (x, y) in seen or not inside(box, x, y):
                    continue
                if any(inside(r, x, y) for r in others):
                    continue
                seen.add((x, y))
                kept.append((y0, y1, x0, x1, " ".join("".join(s["text"] for s in line["spans"]).split())))
        for y0, y1, x0, x1, text in _level(kept):
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            (within if inside(region, x, y) else above if y1 <= region[1] + 2 else below).append(text)
    return above, below, within


_Line = tuple[float, float, float, float, str]


def _level(lines: list[_Line]) -> list[_Line]:
    """A box's lines, those that stand level joined left to right (a row under a table: its label, then
    each figure a line of its own to the engine), top to bottom."""
    rows: list[list[_Line]] = []
    for line in sorted(lines):
        row = next((r for r in rows if r[0][0] <= (line[0] + line[1]) / 2 <= r[0][1]), None)
        rows.append([line]) if row is None else row.append(line)
    return [(r[0][0], r[0][1], min(z[2] for z in r), max(z[3] for z in r),
             " ".join(z[4] for z in sorted(r, key=lambda z: z[2]))) for r in rows]  # fmt: skip


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
            return inner.replace(" ", "").translate(RAISED if m.group(1) == "sup" else _LOWERED)
        return inner

    return _SCRIPT.sub(one, text)


def drop_running_margins(
    pages: list[LayoutPage], edits: list[tuple[list[tuple[int, int, str]], set[int]]] | None = None
) -> list[str]:
    """Each page's Markdown without its running headers and footers (and with ``edits`` applied): a page
    number is dropped, and a header/footer whose text (numbers aside) recurs on another page is read
    once, at the top or foot of the page where it first stands (a rate sheet's "Effective as at 9 April
    2019", a paper's proceedings line: text the document says, not to be read again on every page); a
    one-off line the engine put in the margin (a title at the top of a short page, a journal's citation
    line at the first page's foot) stays where it is, apart from the running text: a sentence the page
    break cuts joins past it ("edges to the query" | "motif should have similar shapes")."""
    seen: dict[str, int] = {}
    for pg in pages:
        for key in {_running(pg.text[a:b]) for a, b in pg.margins}:
            seen[key] = seen.get(key, 0) + 1
    bodies, notes, once = [], [], []
    read: set[str] = set()  # the running lines read once already
    for n, pg in enumerate(pages):
        mine, replaced = edits[n] if edits else ([], set())
        margins = {a for a, _ in pg.margins}
        body = [a for a, _, _ in pg.boxes if a not in margins]  # where the running text's boxes start
        start, end = min(body, default=len(pg.text)), max(body, default=-1)
        drop, first = [], []  # first: the margin lines this page reads apart, each with "at the top?"
        for a, b in pg.margins:
            line, key = pg.text[a:b].strip(), _running(pg.text[a:b])
            numbered = _page_number(line)
            if a in replaced:
                continue  # a table's box
            if not (not line or numbered or seen[key] > 1):  # a one-off line in the margin stays there,
                if a < start or a > end:  # but above or below the running text it is no part of it
                    drop.append((a, b))
                    first.append((a < start, line))
                continue
            drop.append((a, b))
            if line and not numbered and key not in read:
                read.add(key)
                first.append((a < start, line))
        text = pg.text
        flowed, found = reflow(pg, replaced | {a for a, _ in drop})
        changes = [(a, b, "") for a, b in drop] + mine + flowed
        for a, b, new in sorted(changes, reverse=True):
            text = text[:a] + new + text[b:]
        # "picture intentionally omitted" placeholders are not text
        bodies.append(_BLANKS.sub("\n\n", scripts(_PICTURE.sub("", text))).strip())
        notes.append(scripts(found))
        once.append(first)
    # a sentence a page break cut, whole; the running lines read once at the top or foot of their page;
    # the footnotes after the running text, as on the page
    out = []
    for body, note, lines in zip(across_pages(bodies), notes, once, strict=True):
        top = [x for up, x in lines if up]
        foot = [x for up, x in lines if not up]
        out.append("\n\n".join(x for x in (*top, body, *foot, note) if x))
    return out


def _layout_text(page: Any) -> str:
    return layout_page(page).text


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
                turned = upright(page)  # a table printed turned: read as the reader turns the paper
                page = turned[1] if turned else page
                numbered = numbered_page_text(page)  # a transcript's page: read row by row
                if numbered is None and too_big_to_render(page, budget.limits):  # the engine draws it
                    numbered = page.get_text()
                    warnings.append(f"page {i + 1} is too large for the layout engine: its text layer read")
                laid.append(layout_page(page) if numbered is None else LayoutPage(numbered, ()))
                typed.append(numbered is None and typewritten(page))
                found = plumber.tables(i, page) if numbered is None and not turned else []
                edits.append(ruled_tables(laid[-1], found, page))
                read_apart([*laid[-1].boxes], [*laid[-1].classes], page, *edits[-1], _layout_text)
            budget.add_text(len(laid[-1].text))
            if progress:
                progress(i + 1, doc.page_count)
    texts = [
        join_wrapped_markdown(unmark_code(t) if mono else t)  # a cell's second line is no row of its own
        for t, mono in zip(drop_running_margins(laid, edits), typed, strict=True)
    ]
    texts = _Hyphenation(texts).resolve(texts)
    return [Page(number=i + 1, text=t, tables=count_markdown_tables(t)) for i, t in enumerate(texts)]


__all__ = [
    "TYPEWRITTEN",
    "LayoutPage",
    "drop_running_margins",
    "layout_page",
    "parse_layout_pages",
    "reflow",
    "scripts",
    "typewritten",
    "unmark_code",
]
