"""How a ruled table's cells are parted when its rules do not part them: rows that share one ruled row
(told apart by where their lines start), and a cell pdfplumber reads across several columns because a
rule is missing from the page (the unshaded rows of a table whose shaded rows alone draw their column
rules; a block of rows ruled only at its edges; a table body boxed as one cell)."""

from __future__ import annotations

import re
from functools import partial
from itertools import pairwise
from typing import Any

from ragkit.ingestion.ocr_boxes import inside
from ragkit.ingestion.pdf_spans import WORD_GAP

#: how far (pt) a rule may stop short of, or run past, a table's edge and still be one of its own; how
#: far apart two lines' tops may be and still be one line
SLACK = 2.0
#: besides a capital, how a line that begins a row may start: a digit, a currency sign, a sign
_ROW_START = "0123456789$€£¥+-–"
#: a gap between words of two columns on one line wider than this many font sizes: more than a space
_CROSS_GAP = 0.6
#: text that starts within this share of its column's width from the column's left is set from the left
_LEFT = 0.25

#: a value of a table's body: a figure ("0.00", "12.5%", "-3", "1,204"), no words
_FIGURE = re.compile(r"[^A-Za-z]*\d[^A-Za-z]*")
_WORD = re.compile(r"[A-Za-z]")

Box = tuple[float, float, float, float]
Lines = list[tuple[float, str]]


def cell_lines(page: Any, bbox: Box | None) -> Lines:
    """A cell's lines of text as (top, text)."""
    if bbox is None:
        return []
    rows = page.crop(bbox, strict=False).extract_text_lines(x_tolerance_ratio=WORD_GAP, return_chars=False)
    return [(r["top"], r["text"]) for r in rows if r["text"].strip()]


def row_starts(cells: list[Lines]) -> list[float]:
    """Where the rows sharing one ruled row begin after the first: at each line of the first cell that
    starts as a row does, every other cell starting a line too; none when the first cell has such a line
    the others do not start (a list in each column, not rows) or the cells do not all start together."""
    key = cells[0]
    if len(cells) < 2 or not all(any(abs(t - key[0][0]) <= SLACK for t, _ in c) for c in cells[1:]):
        return []
    starts = [top for top, text in key[1:] if _begins(text)]
    return starts if all(_starts(c, top) for top in starts for c in cells) else []


def _begins(text: str) -> bool:
    first = text.lstrip()[:1]
    return bool(first) and (first.isupper() or first in _ROW_START)


def _starts(lines: Lines, top: float) -> bool:
    """Whether a cell has a line starting at ``top`` that begins a row."""
    return any(abs(t - top) <= SLACK and _begins(text) for t, text in lines)


def unmerge(table: Any, page: Any, texts: list[list[str | None]]) -> dict[int, dict[int, Lines]]:
    """Give the grid's cells the words of a cell that spans them but is no merged cell ("Bihar
    21,016,708 4,332,141 …" in a cell as wide as the table). Such a cell is parted where each of its
    words lies inside one of the columns and rows it covers, in two columns or more, with a gap wider
    than a space between words that stand in different columns on a line; a heading spread over its
    columns keeps its span (a word of it lies across a column's edge, or only spaces part its words).
    ``texts`` is changed in place (a part of several lines, a wrapped cell, on one line). A cell of one
    ruled row whose parts hold several lines (a boxed body of many rows) is not: its columns' lines are
    returned by row, for :func:`part_rows`."""
    grid = [list(row.cells) for row in table.rows]
    if not grid or any(len(r) != len(grid[0]) for r in grid):
        return {}
    x1, bottom = table.bbox[2], table.bbox[3]
    lefts = [min((r[j][0] for r in grid if r[j]), default=None) for j in range(len(grid[0]))]
    tops = [min((c[1] for c in r if c), default=None) for r in grid]
    if None in lefts or None in tops:
        return {}
    cols = list(zip(lefts, [*lefts[1:], x1], strict=True))
    rows = list(zip(tops, [*tops[1:], bottom], strict=True))
    several: dict[int, dict[int, Lines]] = {}
    for i, j in ((i, j) for i, r in enumerate(grid) for j, c in enumerate(r) if c and texts[i][j]):
        box = grid[i][j]
        span_c = [k for k in range(j, len(cols)) if cols[k][0] < box[2] - SLACK]
        span_r = [k for k in range(i, len(rows)) if rows[k][0] < box[3] - SLACK]
        parts = (
            _parts(page, box, [cols[k] for k in span_c], [rows[k] for k in span_r])
            if len(span_c) > 1
            else None
        )
        if parts is None:
            for r, line in _level_lines(page, grid, i, j, span_r, texts[i][j]).items():
                texts[r][j] = line  # a column's cells of one fill, merged: each value in its row again
            continue
        if (
            len(span_r) == 1
            and any(len(lines) > 1 for lines in parts.values())
            and not _centred_beside(parts)
        ):
            several[i] = {span_c[b]: lines for (_, b), lines in parts.items()}
            continue  # rows that share the ruled row: parted by part_rows, or not at all
        for (a, b), lines in parts.items():
            if (span_r[a], span_c[b]) == (i, j) or grid[span_r[a]][span_c[b]] is None:
                texts[span_r[a]][span_c[b]] = " ".join(t for _, t in lines)  # a wrapped cell on one line
    return several


def _level_lines(
    page: Any, grid: list[list[Any]], i: int, j: int, span_r: list[int], read: str
) -> dict[int, str]:
    """The lines of cell (i, j), one column tall and spanning the rows ``span_r`` whose cells under it
    are none, by the row each stands level with (a heat map's run of equal values, "0.00" over "0.00", is
    one fill and so one cell to pdfplumber); empty unless each line is a figure level with a line of
    another cell of a row of its own (a head set in lines down a tall cell, "Principal and Interest" over
    "Reference Rate", is one cell). ``read``: the cell's text as pdfplumber read it, whose words rule it out
    before its lines are read again."""
    if len(span_r) < 2 or _WORD.search(read) or any(grid[r][j] is not None for r in span_r[1:]):
        return {}
    lines = cell_lines(page, grid[i][j])
    if len(lines) < 2 or not all(_FIGURE.fullmatch(text.strip()) for _, text in lines):
        return {}
    tops = {
        r: [t for k, c in enumerate(grid[r]) if k != j and c for t, _ in cell_lines(page, c)] for r in span_r
    }
    out: dict[int, str] = {}
    for top, text in lines:
        row = next((r for r in span_r if r not in out and any(abs(t - top) <= SLACK for t in tops[r])), None)
        if row is None:
            return {}
        out[row] = text
    return out


def part_rows(page: Any, row: Any, cells: list[str | None], parted: dict[int, Lines]) -> list | None:
    """The rows in one ruled row whose merged cell :func:`unmerge` parted by columns, each with its top
    and bottom, split where they begin (:func:`row_starts`); the lines above the first row's start (a
    block of other rows the box holds) are a row of their own. None when no row starts: then the cell
    stays as it was (a label under a row, "CALEDONIA TOWNSHIP", is no row this can tell)."""
    lines = [parted[c] if c in parted else (cell_lines(page, box) if text and box else []) for c, (box, text)
             in enumerate(zip(row.cells, cells, strict=True))]  # fmt: skip
    filled = [ls for ls in lines if ls]
    starts = row_starts(filled) if filled else []
    if not starts:
        return None
    first = filled[0][0][0]
    if any(t < first - SLACK for ls in filled for t, _ in ls):
        starts = [first, *starts]
    return cut_rows(lines, starts)


def cut_rows(lines: list[Lines], starts: list[float]) -> list[tuple[list[str | None], tuple[float, float]]]:
    """Each row of the cells' ``lines`` that ``starts`` part (the first from the top, the last to the
    bottom), as its cells' text and its top and bottom cut."""
    cuts = [float("-inf"), *starts, float("inf")]
    return [
        (["\n".join(t for y, t in ls if a - SLACK <= y < b - SLACK) if ls else None for ls in lines], (a, b))
        for a, b in pairwise(cuts)
    ]


def _parts(
    page: Any, box: Box, cols: list[tuple[float, float]], rows: list[tuple[float, float]]
) -> dict | None:
    """The lines of the words in ``box`` by the (row, column) of ``rows`` × ``cols`` they stand in, or
    None when they fill one column only or a run of words lies across a column's edge. A run is a line's
    words that only spaces part (a gap of ``_CROSS_GAP`` font sizes or more ends it); one that starts at
    its column's left and runs on past its edge is text longer than its column ("AIRFARE FOR … SAINT
    LOUIS TO"), read in that column; one centred across an edge is a heading over both."""
    words = (
        page.filter(partial(centred, box))  # a character is a cell's by its middle, as pdfplumber's cells
        .crop(box, strict=False)
        .extract_words(x_tolerance_ratio=WORD_GAP, extra_attrs=["size"])
    )
    if not all(w.get("upright", True) for w in words):
        return None
    lines: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: w["top"]):
        if lines and abs(w["top"] - lines[-1][0]["top"]) <= SLACK:
            lines[-1].append(w)
        else:
            lines.append([w])
    where: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for line in lines:
        line.sort(key=lambda w: w["x0"])
        runs = [[line[0]]]
        for a, b in pairwise(line):
            if b["x0"] - a["x1"] > _CROSS_GAP * a["size"]:
                runs.append([])
            runs[-1].append(b)
        last = -1
        for run in runs:
            x0, x1, mid = run[0]["x0"], run[-1]["x1"], (run[0]["top"] + run[0]["bottom"]) / 2
            c = max((k for k, (a, _) in enumerate(cols) if a - SLACK <= x0 < cols[-1][1]), default=None)
            r = next((k for k, (a, b) in enumerate(rows) if a <= mid < b), None)
            if c is None or r is None or c <= last:
                return None
            a, b = cols[c]
            if x1 > b + SLACK and x0 - a > _LEFT * (b - a):
                return None  # across an edge, not from its column's left: a heading over both
            where.setdefault((r, c), []).extend(run)
            last = c
    if len({c for _, c in where}) < 2:
        return None
    line_of = {id(w): n for n, line in enumerate(lines) for w in line}
    blank = {(r, c): [] for r in range(len(rows)) for c in range(len(cols))}
    return blank | {k: _joined(ws, line_of) for k, ws in where.items()}


def _centred_beside(parts: dict[tuple[int, int], Lines]) -> bool:
    """Whether one part's lines are a label wrapped beside values set one line each, level with its
    middle ("Defendants" over "Sentenced", "287 | 242 | …" between them): one row, not rows to part."""
    tall = [ls for ls in parts.values() if len(ls) > 1]
    level = [ls[0][0] for ls in parts.values() if len(ls) == 1]
    return len(tall) == 1 and bool(level) and all(tall[0][0][0] < y < tall[0][-1][0] for y in level)


def centred(box: Box, obj: dict[str, Any]) -> bool:
    """Whether ``obj`` is no character, or one whose middle lies in ``box``: a line that the cell's box
    only grazes (the row above's last line, its glyphs' tops on the rule) is not the cell's."""
    if obj.get("object_type") != "char":
        return True
    return inside(box, (obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2)


def _joined(words: list[dict[str, Any]], line_of: dict[int, int]) -> Lines:
    """A part's words as lines (top, text): a space between words on a line, none before one that
    touches the word before (a footnote mark, "breastfed⁹")."""
    out: Lines = []
    for n in sorted({line_of[id(w)] for w in words}):
        line = sorted((w for w in words if line_of[id(w)] == n), key=lambda w: w["x0"])
        text = line[0]["text"]
        for a, b in pairwise(line):
            text += ("" if b["x0"] - a["x1"] < WORD_GAP * a["size"] else " ") + b["text"]
        out.append((min(w["top"] for w in line), text))
    return out
