"""The layout engine's words joined as the page shows them.

pymupdf4llm writes each span with Markdown emphasis and a space after it, and strips the spaces inside
table cells: a TeX decimal set in two fonts became "0 _._ 65", a table cell "Sourcearticles", a cell's
second line "<br>", picture text "<!-- Start of picture text -->". These replacements of its text writers
(and of PyMuPDF's table-cell reader, which it calls) join spans by the gap between them (a space where the
page leaves one), write no markup of their own, and mark picture text with two private-use characters that
:func:`picture_spans` turns into page metadata. They are installed once, on the pinned pymupdf4llm the
layout parser uses.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from ragkit.ingestion.bidi import has_rtl
from ragkit.ingestion.pdf_bounds import uncut_columns
from ragkit.ingestion.pdf_glyphs import RAISED, fractions
from ragkit.ingestion.pdf_headers import Line, header_cuts
from ragkit.ingestion.pdf_levels import page_rules, two_levels
from ragkit.ingestion.pdf_picture import picture_text
from ragkit.ingestion.pdf_spanning import (
    Label,
    cut_under,
    join_prose,
    place_labels,
    prose_across,
    spanning_labels,
)

#: a gap wider than this share of the font size is a word space (TeX's narrowest is ~0.2 em; kerning
#: and a change of font inside a word, "0" "." "65", stay well under 0.1 em)
WORD_GAP = 0.15
_SCRIPT_DIGITS = re.compile(r"[\d+\-=()]+")


def line_end_hyphen(text: str) -> bool:
    """Whether ``text`` ends with a hyphen attached to a word (a break to resolve, not a dash)."""
    return len(text) > 1 and text.endswith("-") and text[-2].isalnum()


def horizontal(span: dict[str, Any]) -> bool:
    """Whether a span (or line) of a PyMuPDF text page runs left to right along the page."""
    return tuple(span.get("dir", (1.0, 0.0))) in ((1.0, 0.0), (1, 0))


def _separator(prev: dict[str, Any] | None, span: dict[str, Any], so_far: str, first: str) -> str:
    """What goes between the previous span and this one: nothing inside a word, a space between words,
    a line break after a hyphen that ends a line before a lower-case word (resolved later, with the
    document's own words as evidence, by :mod:`ragkit.ingestion.hyphenation`)."""
    if prev is None or not so_far:
        return ""
    if (prev.get("block"), prev.get("line")) != (span.get("block"), span.get("line")):
        return "\n" if line_end_hyphen(so_far) else " "
    if not (horizontal(prev) and horizontal(span)) or so_far[-1:].isspace():
        return " " if not so_far[-1:].isspace() else ""
    if span["text"][:1].isspace() or prev["text"][-1:].isspace():
        return " "  # the page's own space, at either span's edge
    gap = span["bbox"][0] - prev["bbox"][2]
    return " " if gap > WORD_GAP * min(span["size"], prev["size"]) else ""


def styled_text(spans: list[dict[str, Any]]) -> tuple[str, str]:
    """The spans of a text box as one paragraph: words spaced as on the page, raised digits as Unicode
    superscripts, no emphasis marks. Returns ``(text + " ", "")`` as the engine's writer does."""
    import pymupdf

    out = ""
    prev: dict[str, Any] | None = None
    for s in spans:
        text = s["text"].strip()
        if not text:
            continue
        if s["flags"] & pymupdf.TEXT_FONT_SUPERSCRIPT and _SCRIPT_DIGITS.fullmatch(text):
            text = text.translate(RAISED)
        out += _separator(prev, s, out, text) + text
        prev = s
    return fractions(out) + " ", ""


def _cell_chars(
    span: dict[str, Any], cell: Any, ocrpage: bool, words: list[tuple[float, float]]
) -> list[tuple[str, float, float]]:
    """A span's characters inside ``cell`` as (char, x0, x1); an OCR span (no characters) as one. A glyph is
    placed by its line's height, not its ink (a comma's ink hangs under the baseline, and in rows set
    close it fell into the row below: "3 031" over ", 131,418"), and with its whole word, by the word's
    middle (a heading over two columns is not cut in two)."""
    if ocrpage or "chars" not in span:
        from pymupdf4llm.helpers import utils

        whole = [(span["text"], span["bbox"][0], span["bbox"][2])]
        return [] if utils.are_disjoint(span["bbox"], cell) else whole
    out: list[tuple[str, float, float]] = []
    top, bottom = span["bbox"][1], span["bbox"][3]  # a glyph's row is its line's, not its ink's
    level = min(bottom, cell[3]) - max(top, cell[1]) >= 0.5 * (bottom - top)
    for ch, (wx0, wx1) in zip(span["chars"], words, strict=True):
        x0, x1 = ch["bbox"][0], ch["bbox"][2]
        if out and out[-1][0] in ".," and out[-1][1] == out[-1][2] and ch["c"].isspace():
            continue  # a point set with no advance ("11,062" "." " " "6"): the space is not the page's
        if x0 == x1 and ch["c"] in ".," and len(out) > 1 and out[-1][0] == " " and out[-2][0].isdigit():
            out.pop()  # the same, the space written before the point ("11,062" " " "." "6")
        if (level and cell[0] <= (wx0 + wx1) / 2 < cell[2]) or (x0 == x1 and ch["c"] in ".,"):
            out.append((ch["c"], x0, x1))
        elif ch["c"].isspace():
            out.append((" ", x0, x1))
    return out


def word_extents(line: dict[str, Any]) -> list[list[tuple[float, float]]]:
    """For each character of each span of ``line``, the left and right edges of the word it belongs to (a
    run of characters without a space or a word gap, across spans: "Pro" "j" "ected" is one word); a space
    stands for itself."""
    chars = [(c, s["size"]) for s in line["spans"] for c in s.get("chars", ())]
    flat: list[tuple[float, float]] = []
    start = 0
    for k in range(len(chars) + 1):
        end = k == len(chars) or chars[k][0]["c"].isspace()
        if not end and k > start:
            gap = chars[k][0]["bbox"][0] - chars[k - 1][0]["bbox"][2]
            end = gap > WORD_GAP * min(chars[k][1], chars[k - 1][1])
        if end:
            if k > start:
                box = (chars[start][0]["bbox"][0], max(c["bbox"][2] for c, _ in chars[start:k]))
                flat += [box] * (k - start)
            if k < len(chars) and chars[k][0]["c"].isspace():
                flat.append((chars[k][0]["bbox"][0], chars[k][0]["bbox"][2]))
                start = k + 1
            else:
                start = k
    out, at = [], 0
    for s in line["spans"]:
        n = len(s.get("chars", ()))
        out.append(flat[at : at + n])
        at += n
    return out


def cell_text(
    table_blocks: list[dict[str, Any]], cell: Any, markdown: bool = False, ocrpage: bool = False
) -> str:
    """A table cell's text: its lines joined by a space, words spaced by their gaps, no markup (the
    engine's ``extract_cells`` glued spans and broke lines with ``<br>``)."""
    lines: list[str] = []
    for line in left_to_right(_lines_meeting(table_blocks, cell)):
        text, last_x1, point = "", None, False  # point: the last character had no advance
        for span, words in zip(line["spans"], _line_facts(line)[1], strict=True):
            # a span outside the cell may end a word that is the cell's ("Coronar" "y")
            for c, x0, x1 in _cell_chars(span, cell, ocrpage, words):
                gap = last_x1 is not None and x0 - last_x1 > WORD_GAP * span["size"]
                # a point set with no advance sits inside its number ("11,062.6"), whatever the gaps say
                gap = (
                    gap and not (x0 == x1 and c in ".,") and not (c.isdigit() and text[-1:] in ".," and point)
                )
                text += (" " if gap and not c.isspace() and not text.endswith(" ") else "") + c
                last_x1, point = x1, x0 == x1
        lines.append(" ".join(text.split()))
    joined = ""
    for x in (x for x in lines if x):
        joined += ("\n" if line_end_hyphen(joined) else " " if joined else "") + x
    return fractions(joined).replace("|", "\\|") if markdown else fractions(joined)


def left_to_right(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A cell's lines in the page's order, except that lines which follow one another on one row (which
    the page may draw right first: a score sheet's "24.28" before the "49.88" left of it, "0.57" before
    the element's name) read left to right. Lines that are not horizontal, or hold right-to-left
    letters, keep the page's order."""
    if len(lines) < 2 or any(_line_facts(ln)[2] for ln in lines):
        return lines
    runs: list[list[dict[str, Any]]] = []
    for ln in lines:
        if runs and _one_row(runs[-1][0]["bbox"], ln["bbox"]):
            runs[-1].append(ln)
        else:
            runs.append([ln])
    return [ln for run in runs for ln in sorted(run, key=lambda ln: ln["bbox"][0])]


def _one_row(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """Whether two line boxes stand on one row: they share half the height of the lower one."""
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return shared >= 0.5 * min(a[3] - a[1], b[3] - b[1])


def _line_text(line: dict[str, Any]) -> str:
    return "".join(s.get("text") or "".join(c["c"] for c in s.get("chars", ())) for s in line["spans"])


_LINES: dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]], Any]] = {}
#: what is known of each line, found once per table (a line meets every cell of its row): its word
#: extents, and whether it keeps the page's order (not horizontal, or holding right-to-left letters)
_FACTS: dict[int, tuple[dict[str, Any], list[list[tuple[float, float]]], bool]] = {}


def _line_facts(line: dict[str, Any]) -> tuple[dict[str, Any], list[list[tuple[float, float]]], bool]:
    held = _FACTS.get(id(line))
    if held is None or held[0] is not line:
        fixed = not horizontal(line) or has_rtl(_line_text(line))
        held = (line, word_extents(line), fixed)
        _FACTS[id(line)] = held
    return held


def _lines_meeting(table_blocks: list[dict[str, Any]], cell: Any) -> list[dict[str, Any]]:
    """The lines of ``table_blocks`` that meet ``cell`` (neither their block nor they lie outside it, common
    edges counting as outside), in reading order; the boxes are indexed once per list of blocks, so a
    table of thousands of cells does not test every line for every cell."""
    import numpy as np

    held = _LINES.get(id(table_blocks))
    if (
        held is None
        or held[0] is not table_blocks
        or len(held[1]) != sum(len(b["lines"]) for b in table_blocks)
    ):
        _LINES.clear()  # one table at a time
        _FACTS.clear()
        lines = [(b["bbox"], ln) for b in table_blocks for ln in b["lines"]]
        boxes = np.array([(*bb, *ln["bbox"]) for bb, ln in lines], dtype=float).reshape(-1, 8)
        held = (table_blocks, [ln for _, ln in lines], boxes)
        _LINES[id(table_blocks)] = held
    _, lines, b = held
    x0, y0, x1, y1 = (float(cell[k]) for k in range(4))
    meets = np.ones(len(lines), dtype=bool)
    for k in (0, 4):  # the block's box, then the line's
        meets &= (b[:, k] < x1) & (b[:, k + 2] > x0) & (b[:, k + 1] < y1) & (b[:, k + 3] > y0)
    return [lines[i] for i in np.flatnonzero(meets)]


def _words_in(table_blocks: list[dict[str, Any]], box: tuple[float, ...]) -> list[tuple[float, float]]:
    """(x0, x1) of every word inside ``box``: runs of characters without a space or a word gap."""
    words: list[tuple[float, float]] = []
    for block in table_blocks:
        for line in block.get("lines", []):
            x0 = x1 = None
            for span in line["spans"]:
                for ch in span.get("chars", ()):
                    cx0, cy0, cx1, cy1 = ch["bbox"]
                    inside = box[0] <= cx0 and cx1 <= box[2] and box[1] <= (cy0 + cy1) / 2 <= box[3]
                    gap = x1 is not None and cx0 - x1 > WORD_GAP * span["size"]
                    if not inside or ch["c"].isspace() or gap:
                        if x0 is not None:
                            words.append((x0, x1))
                        x0 = x1 = None
                    if inside and not ch["c"].isspace():
                        x0 = cx0 if x0 is None else x0
                        x1 = cx1
            if x0 is not None:
                words.append((x0, x1))
    return words


def _inside(box: tuple[float, ...], table: tuple[float, ...]) -> bool:
    """Whether a line's box stands in the table's: within its sides, its middle between top and bottom."""
    return table[0] <= box[0] and box[2] <= table[2] and table[1] <= (box[1] + box[3]) / 2 <= table[3]


def table_details(tab_dict: dict[str, Any], table_blocks: list[dict[str, Any]]) -> Any:
    """The layout engine's table, its column boundaries first moved off the words they would cut, its
    header's wrapped cells made one row (:mod:`ragkit.ingestion.pdf_headers`) and a label spanning
    columns written once, on its own row (:mod:`ragkit.ingestion.pdf_spanning`)."""
    import copy

    grid = tab_dict.get("table_grid")
    labels: list[Label] = []
    prose: list[tuple[float, int, int]] = []
    lines: list[Line] = []
    if grid is not None and table_blocks:
        x0, y0, x1, y1 = tab_dict["group_bbox"]
        fixed = uncut_columns(list(grid.v_lines), x0, _words_in(table_blocks, (x0, y0, x1, y1)))
        held = [
            (Line(*ln["bbox"], ln["spans"][0]["size"], text), ln)
            for b in table_blocks
            for ln in b["lines"]
            if ln["spans"]
            and horizontal(ln)
            and _inside(ln["bbox"], (x0, y0, x1, y1))
            and (text := _line_text(ln)).strip()
        ]
        lines = [line for line, _ in held]
        cuts = [y0 + h for h in grid.h_lines]
        rows = header_cuts(cuts, lines)
        bounds = [x0, *(x0 + v for v in fixed), x1]
        labels = spanning_labels(bounds, rows, lines, lambda k: _words(held[k][1]))
        prose = prose_across(bounds, lines, lambda k: _words(held[k][1]))
        rows = cut_under(rows, labels, lines) if labels else rows
        if fixed != list(grid.v_lines) or rows != cuts:
            grid = copy.copy(grid)
            grid.v_lines = fixed
            grid.h_lines = [c - y0 for c in rows]
            tab_dict = {**tab_dict, "table_grid": grid}
    details = _ENGINE_TABLE_DETAILS(tab_dict, table_blocks)  # type: ignore[misc]
    if lines and details.extract:
        tops = [tab_dict["group_bbox"][1], *(tab_dict["group_bbox"][1] + h for h in grid.h_lines)]
        row_of = [*tops, tab_dict["group_bbox"][3]]
        placed = bool(labels) and place_labels(details.extract, row_of, labels)
        placed = (
            join_prose(details.extract, row_of, bounds, prose, partial(cell_text, table_blocks)) or placed
        )
        if two_levels(details.extract, row_of, bounds, lines, page_rules()) or placed:
            from pymupdf4llm.helpers import utils

            # a row the cut under a label left empty (the label's row held nothing else) is no row
            escaped = [[(c or "").replace("|", "\\|") for c in row] for row in details.extract if any(row)]
            details.markdown = utils.table_to_markdown(escaped)
    return details


def _words(line: dict[str, Any]) -> list[tuple[float, float]]:
    """(x0, x1) of each word of ``line``."""
    chars = (c for s in line["spans"] for c in s.get("chars", ()))
    extents = (e for per_span in word_extents(line) for e in per_span)
    return sorted({e for c, e in zip(chars, extents, strict=True) if not c["c"].isspace()})


_ENGINE_TABLE_DETAILS = None
_BLOCKS: dict[int, tuple[Any, list[dict[str, Any]]]] = {}


def textpage_cell_text(textpage: Any, cell: Any, markdown: bool = False) -> str:
    """:func:`cell_text` for PyMuPDF's own table reader (``Table.to_markdown``, which the layout engine
    uses for the tables ``find_tables`` proposes), over the text page's characters (read once per page)."""
    held = _BLOCKS.get(id(textpage))
    if held is None or held[0] is not textpage:
        _BLOCKS.clear()  # one page at a time: the last page's characters only
        held = (textpage, [b for b in textpage.extractRAWDICT()["blocks"] if b["type"] == 0])
        _BLOCKS[id(textpage)] = held
    return cell_text(held[1], cell, markdown)


_INSTALLED = False


def install() -> None:
    """Put these writers in place of pymupdf4llm's (once per process)."""
    global _INSTALLED
    if _INSTALLED:
        return
    import pymupdf.table
    from pymupdf4llm.helpers import document_layout, utils

    global _ENGINE_TABLE_DETAILS
    _ENGINE_TABLE_DETAILS = document_layout.get_table_details
    document_layout.get_table_details = table_details
    document_layout.get_styled_text = styled_text
    document_layout.picture_text_to_md = picture_text
    utils.extract_cells = cell_text
    pymupdf.table.extract_cells = textpage_cell_text
    _INSTALLED = True
