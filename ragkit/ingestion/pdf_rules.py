"""Tables drawn with some of their rules missing, read whole by pdfplumber: a government table's open
sides (rules across its top and bottom that run on past its outer column rules) and a table broken by a
page (its column rules running on past its last rule across), and rows that share one ruled cell, told
apart by where their lines start. A closed table is kept only when each strip it adds is one column and
it reads as rows (no cell of more than a few lines) or holds words the open one left out; otherwise the
table stays as pdfplumber found it."""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

from ragkit.ingestion.bidi import logical_order, visual_glyphs
from ragkit.ingestion.pdf_beside import beside
from ragkit.ingestion.pdf_cells import SLACK, cell_lines, cut_rows, part_rows, row_starts, unmerge
from ragkit.ingestion.pdf_fills import drawn
from ragkit.ingestion.pdf_glyphs import on_baseline, raised_inline, roomless_spaces, subscripts_inline
from ragkit.ingestion.pdf_spans import WORD_GAP
from ragkit.ingestion.pdf_unruled import stacked, two_columns
from ragkit.ingestion.wrapped_rows import goes_on, join_cell

#: how far (pt) a rule may stop short of, or run past, a table's edge and still be one of its own
_SLACK = SLACK
#: a cell of more lines than this, once rows are split, is several rows run together: not a table read
_MOST_LINES = 4
#: a gap between words wider than this many font sizes splits a strip into two columns
_COLUMN_GAP = 1.5

#: a word: two letters or more
_WORD = re.compile(r"[^\W\d_]{2}")

Rows = list[list[str | None]]
Box = tuple[float, float, float, float]


def _rule(x0: float, top: float, x1: float, bottom: float) -> dict[str, Any]:
    return {"x0": x0, "x1": x1, "top": top, "bottom": bottom, "width": x1 - x0, "height": bottom - top,
            "orientation": "v" if x0 == x1 else "h", "object_type": "line"}  # fmt: skip


def _reach(edges: list[dict[str, Any]], at: float, start: float, key: str, low: str, high: str) -> float:
    """How far a chain of touching rules runs on from ``start`` (to higher ``high``) along the line
    ``key == at``."""
    end, grew = start, True
    while grew:
        grew = False
        for e in edges:
            if abs(e[key] - at) <= _SLACK and e[low] <= end + _SLACK < e[high] + _SLACK and e[high] > end:
                end, grew = e[high], True
    return end


def closing(bbox: Box, edges: list[dict[str, Any]]) -> Box:
    """The box a table's own rules reach: left and right as far as both its top and its bottom rule run
    on (an open side), down as far as both its outer column rules run on (an open end)."""
    x0, top, x1, bottom = bbox
    across = [e for e in edges if e["orientation"] == "h"]
    down_ = [e for e in edges if e["orientation"] == "v"]

    def side(y: float, sign: int) -> float:  # how far the rule across at y runs beyond the table
        hits = [e for e in across if abs(e["top"] - y) <= _SLACK]
        if sign < 0:
            return -_reach([{**e, "x0": -e["x1"], "x1": -e["x0"]} for e in hits], y, -x0, "top", "x0", "x1")
        return _reach(hits, y, x1, "top", "x0", "x1")

    lo = max(side(top, -1), side(bottom, -1))
    hi = min(side(top, 1), side(bottom, 1))
    own = [e for e in down_ if e["top"] >= top - _SLACK]  # a page's column rule starts above the table
    down = min(_reach(own, x, bottom, "x0", "top", "bottom") for x in (x0, x1))
    return min(lo, x0), top, max(hi, x1), max(down, bottom)


def _one_column(page: Any, strip: Box) -> bool:
    """Whether the words in a strip added beside a table stand in one column (no wide gap on any line):
    one more column, not a block of several that no rule separates."""
    if strip[2] - strip[0] <= _SLACK or strip[3] - strip[1] <= _SLACK:
        return True
    words = page.crop(strip, strict=False).extract_words(x_tolerance_ratio=WORD_GAP, extra_attrs=["size"])
    for a, b in pairwise(words):
        same_line = abs(a["top"] - b["top"]) <= _SLACK
        if same_line and b["x0"] - a["x1"] > _COLUMN_GAP * min(a["size"], b["size"]):
            return False
    return True


def table_rows(page: Any) -> list[tuple[Box, Rows, Box]]:
    """A pdfplumber page's ruled tables as (box, rows of cell text, ruled box: the box without the unruled
    columns :func:`beside` adds), each closed where its rules leave
    it open when the closed table still reads as rows, or reads words the open one left in no cell."""
    out: list[tuple[Box, Rows, list[tuple[float, float]]]] = []  # box, rows, each row's top and bottom
    on_baseline(page.chars)  # a font that misstates its glyphs' height misplaces them
    subscripts_inline(page.chars)  # read on their line ("a0a1"), not under it
    raised_inline(page.chars)  # a footnote's raised number read as one ("Level¹⁴"), not "Level14"
    if roomless := roomless_spaces(page.chars):  # a space the page shows no room for ("15 a" for "15a")
        page = page.filter(lambda obj: id(obj) not in roomless)
    page = drawn(page)  # fills that show no edge make none
    edges = page.edges
    visual_glyphs(page.chars)  # right-to-left cells are read in visual order, then put back
    turned = _turned(page)
    found = page.find_tables()
    for table in (t for t in found if not any(u is not t and _holds(t, u.bbox) for u in found)):
        box = closing(table.bbox, edges)
        out.append((table.bbox, *split_rows(table, page, turned)))
        lost = _lost(table, page)
        if max(abs(a - b) for a, b in zip(box, table.bbox, strict=True)) <= _SLACK and not lost:
            continue
        x0, x1 = table.bbox[0], table.bbox[2]
        if not (
            _one_column(page, (box[0], box[1], x0, box[3]))
            and _one_column(page, (x1, box[1], box[2], box[3]))
        ):
            continue
        lo, up, hi, down = box
        sides = [_rule(lo, up, lo, down), _rule(hi, up, hi, down), _rule(lo, down, hi, down)]
        again = [t for t in page.find_tables({
            "explicit_vertical_lines": sides[:2], "explicit_horizontal_lines": sides[2:],
        }) if abs(t.bbox[0] - lo) <= _SLACK and abs(t.bbox[1] - up) <= _SLACK]  # fmt: skip
        rows, across = split_rows(again[0], page, turned) if again else ([], [])
        if rows and (max(_height(c) for r in rows for c in r) <= _MOST_LINES or _lost(again[0], page) < lost):
            out[-1] = (again[0].bbox, rows, across)
    boxes = [b for b, _, _ in out]
    return [
        (*beside(page, b, rows, across, boxes[:k] + boxes[k + 1 :]), b)
        for k, (b, rows, across) in enumerate(out)
    ]


def _holds(frame: Any, box: Box) -> bool:
    """Whether one cell of ``frame`` (a pdfplumber table) holds all of ``box``, another table: the frame
    round a page (a title band, a side strip, the table within) is no table of its own; read as one, the
    whole inner table was one cell of it, its text twice on the page."""
    x0, y0, x1, y1 = box
    s = _SLACK
    return any(c[0] - s <= x0 and c[1] - s <= y0 and x1 <= c[2] + s and y1 <= c[3] + s for c in frame.cells)


def _lost(table: Any, page: Any) -> int:
    """How many words inside the table's box stand in none of its cells (an outer column whose side
    has no rule: pdfplumber finds the header cell a filled band closes, and none below it)."""
    cells = table.cells

    def held(w: dict[str, Any]) -> bool:
        x, y = (w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2
        return any(c[0] <= x <= c[2] and c[1] <= y <= c[3] for c in cells)

    return sum(
        not held(w) for w in page.crop(table.bbox, strict=False).extract_words(x_tolerance_ratio=WORD_GAP)
    )


def _height(cell: str | None) -> int:
    return len(cell.splitlines()) if cell else 0


def split_rows(table: Any, page: Any, turned: dict[str, str]) -> tuple[Rows, list[tuple[float, float]]]:
    """The table's rows of cell text (words spaced by their gaps relative to the font size: pdfplumber's
    fixed 3 pt glued a small table's words, "Sourcearticles"), a ruled row that holds several rows split
    where they begin (:mod:`~ragkit.ingestion.pdf_cells`); never the first, a header of stacked words;
    with each row's top and bottom on the page. ``turned``: how the page's turned text reads
    (:func:`_turned`, found once a page)."""
    texts = table.extract(x_tolerance_ratio=WORD_GAP, **turned)
    if turned:
        texts = [[_upwards(page, b, t, turned) for b, t in zip(r.cells, ts, strict=True)]
                 for r, ts in zip(table.rows, texts, strict=True)]  # fmt: skip
    texts = [[logical_order(t) if t else t for t in row] for row in texts]
    parted = unmerge(table, page, texts)
    out: Rows = []
    spans: list[tuple[float, float]] = []
    bands = _bands(table.rows, texts)
    inside = {j for a, (_, _, b) in bands.items() for j in range(a + 1, b + 1)}
    for k, (row, cells) in enumerate(zip(table.rows, texts, strict=True)):
        up, down = row.bbox[1], row.bbox[3]
        if k in bands:  # a row of cells the other columns' rules cut in pieces: one row again
            out.append(bands[k][0])
            spans.append((up, bands[k][1]))
            continue
        if k in inside:
            continue
        if k in parted and (rows := part_rows(page, row, cells, parted[k])):
            out += [r for r, _ in rows]  # a merged cell of several rows, parted by its columns' lines
            spans += [(max(a, up), min(b, down)) for _, (a, b) in rows]
            continue
        if k == 0 or not any(c and "\n" in c for c in cells):  # the first row: a header set in lines
            out.append(cells)
            spans.append((up, down))
            continue
        lines = [cell_lines(page, bbox) if text else [] for bbox, text in zip(row.cells, cells, strict=True)]
        filled = [ls for ls in lines if ls]
        starts = row_starts(filled)
        # rows where their lines start, or else rows stacked beside a cell spanning them
        rows = cut_rows(lines, starts) if starts else stacked(lines)
        if not rows:
            out.append(cells)
            spans.append((up, down))
            continue
        out += [r for r, _ in rows]
        spans += [(max(a, up), min(b, down)) for _, (a, b) in rows]
    return two_columns(page, table, out, spans), spans


def _turned(page: Any) -> dict[str, str]:
    """How to read the page's turned text: pdfplumber reads it top to bottom, but a tall header cell's
    words turned anticlockwise ("*JOBCTL" up the cell) read bottom to top, else "LTCBOJ*"."""
    turned = [c["matrix"][1] for c in page.chars if not c["upright"]]
    if 2 * sum(b > 0 for b in turned) > len(turned):
        return {"char_dir_rotated": "btt", "line_dir_rotated": "ltr"}
    return {}


def _upwards(page: Any, bbox: Box | None, text: str | None, turned: dict[str, str]) -> str | None:
    """A cell of turned words only, as its words in reading order (pdfplumber's text of it stacks them
    top first: "Authority\nNo" for "No Authority" read up the cell)."""
    if not text or bbox is None:
        return text
    chars = [c for c in page.chars if bbox[0] <= (c["x0"] + c["x1"]) / 2 < bbox[2]
             and bbox[1] <= (c["top"] + c["bottom"]) / 2 < bbox[3]]  # fmt: skip
    if not chars or any(c["upright"] for c in chars):
        return text
    from pdfplumber.utils import extract_words

    return " ".join(w["text"] for w in extract_words(chars, x_tolerance_ratio=WORD_GAP, **turned))


def _bands(rows: list[Any], texts: Rows) -> dict[int, tuple[list[str | None], float, int]]:
    """Runs of pdfplumber rows that are one row of the page: a header whose columns are ruled at different
    heights (a label centred in a tall cell beside a cell of two ruled lines, "Read &" over "Write") is
    cut by pdfplumber at every rule of any column, each label left in a row of its own. Rows run together
    while a cell of the run reaches down past the next row's top, and are taken as one when each column's
    pieces read as one text (:func:`goes_on`: a single piece, or a line that wraps onto the next), not as
    rows a tall label spans ("Count" over "Percentage", "104" over "21.1%"), and when a column holds a
    word wrapped onto a later row: a tall label beside values in rows of their own is no wrapped row. By
    first row: the joined cells, the run's bottom and its last row."""
    out: dict[int, tuple[list[str | None], float, int]] = {}
    k = 0
    while k < len(rows):
        last, bottom = k, max((c[3] for c in rows[k].cells if c), default=rows[k].bbox[3])
        while last + 1 < len(rows) and bottom > rows[last + 1].bbox[1] + _SLACK:
            last += 1
            bottom = max([bottom, *(c[3] for c in rows[last].cells if c)])
        if last > k:
            joined: list[str | None] = []
            wraps = False  # a cell's text the rules cut: without one, the rows are the page's own
            for col in zip(*texts[k : last + 1], strict=True):
                pieces = [" ".join(t.split()) for t in col if t and t.strip()]
                if any(not goes_on(a, b) for a, b in pairwise(pieces)):
                    break
                wraps = wraps or any(_WORD.search(p) for p in pieces[1:])
                text = pieces[0] if pieces else next((t for t in col if t is not None), None)
                for piece in pieces[1:]:
                    text = join_cell(text or "", piece)
                joined.append(text)
            else:
                if wraps:
                    out[k] = (joined, bottom, last)
        k = last + 1
    return out
