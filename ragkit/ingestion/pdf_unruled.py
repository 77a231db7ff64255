"""What a ruled table's rules leave unparted: two columns set in one ruled column, and rows stacked in one
ruled row beside a cell that spans them.

A datasheet's ratings table rules "Specification" and "Unit" as one column, the value set left and its
unit right with a wide gap between ("2500 mAh"); and it rules two ratings as one row ("Normal Capacity"
over "Minimum Capacity", "2500" over "2450"), their number and their note set once, level with the middle
of the two. Read cell by cell, the header was "Specification Unit" and the two ratings one row of joined
lines ("Normal Capacity Minimum Capacity | 2500 mAh 2450 mAh"), a row no one reading the page would write.
"""

from __future__ import annotations

from functools import partial
from itertools import pairwise
from typing import Any

from ragkit.ingestion.pdf_cells import SLACK, Lines, centred
from ragkit.ingestion.pdf_headers import figures
from ragkit.ingestion.pdf_spans import WORD_GAP
from ragkit.ingestion.wrapped_rows import goes_on

Rows = list[list[str | None]]
Box = tuple[float, float, float, float]

#: a gap no word of the column crosses, this many font sizes wide at least, parts two columns (a word
#: space, or the room between centred values of different widths, is narrower)
CHANNEL = 1.0
#: of a column's rows with words, this share at least must have words on both sides of the gap
BOTH_SIDES = 0.75


def stacked(lines: list[Lines]) -> list[tuple[list[str | None], tuple[float, float]]] | None:
    """The rows stacked in one ruled row, each with its top and bottom, or None when the row is not such
    a stack. ``lines``: each cell's lines (top, text). A stack has two cells or more of the same number of
    lines, level line by line, one of them a line of figures each ("2500" over "2450"), no line of them
    the wrapped rest of the line above; and beside them cells of one line each set between the first and
    the last line (a number, a note spanning the stack), written with the first row only, as one writes a
    spanning cell."""
    tall = [ls for ls in lines if len(ls) > 1]
    single = [ls for ls in lines if len(ls) == 1]
    if len(tall) < 2 or not single or len({len(ls) for ls in tall}) > 1:
        return None
    tops = [t for t, _ in tall[0]]
    if any(abs(t - u) > SLACK for ls in tall[1:] for (t, _), u in zip(ls, tops, strict=True)):
        return None  # not level line by line
    if not all(tops[0] + SLACK < ls[0][0] < tops[-1] - SLACK for ls in single):
        return None  # a cell of one line at the top: wrapped cells beside it, not a stack
    if not any(all(figures(t) for _, t in ls) for ls in tall):
        return None
    if any(goes_on(a, b) for ls in tall for (_, a), (_, b) in pairwise(ls)):
        return None
    ends = [*tops[1:], float("inf")]
    out: list[tuple[list[str | None], tuple[float, float]]] = []
    for k, (top, end) in enumerate(zip(tops, ends, strict=True)):
        cells: list[str | None] = []
        for ls in lines:
            if len(ls) > 1:
                cells.append(ls[k][1])
            else:
                cells.append(ls[0][1] if ls and k == 0 else None)
        out.append((cells, (float("-inf") if k == 0 else top, end)))
    return out


def _column_words(page: Any, box: Box) -> list[dict[str, Any]]:
    """The words whose characters' middles lie in ``box``."""
    return (
        page.filter(partial(centred, box))
        .crop(box, strict=False)
        .extract_words(x_tolerance_ratio=WORD_GAP, extra_attrs=["size"])
    )


def _channel(words_by_row: list[list[dict[str, Any]]], x0: float, x1: float) -> float | None:
    """The middle of a gap across a column that no word crosses, at least :data:`CHANNEL` font sizes
    wide, with words on both sides in the first row (a head over each part) and in most rows that hold
    any; None when there is none."""
    words = [w for ws in words_by_row for w in ws]
    if not words or not words_by_row[0]:
        return None
    size = sorted(w["size"] for w in words)[len(words) // 2]
    covered = sorted((w["x0"], w["x1"]) for w in words)
    best: tuple[float, float] | None = None
    reach = covered[0][1]
    for a, b in covered[1:]:
        if a - reach >= CHANNEL * size and (best is None or a - reach > best[1] - best[0]):
            best = (reach, a)
        reach = max(reach, b)
    if best is None or not x0 < best[0] < best[1] < x1:
        return None
    left, right = best

    def both(ws: list[dict[str, Any]]) -> bool:
        return any(w["x1"] <= left for w in ws) and any(w["x0"] >= right for w in ws)

    held = [ws for ws in words_by_row if ws]
    if not both(words_by_row[0]) or sum(map(both, held)) < BOTH_SIDES * len(held) or len(held) < 3:
        return None
    return (left + right) / 2


def _text(words: list[dict[str, Any]]) -> str | None:
    """Words as lines, top to bottom; on a line a space between two words only where they stand a word
    space apart (a raised ring and its "C" are words of two sizes, set as one: "°C")."""
    lines: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if lines and abs(lines[-1][0]["top"] - w["top"]) <= SLACK:
            lines[-1].append(w)
        else:
            lines.append([w])
    out = []
    for line in lines:
        line.sort(key=lambda w: w["x0"])
        text = line[0]["text"]
        for a, b in pairwise(line):
            text += ("" if b["x0"] - a["x1"] < WORD_GAP * min(a["size"], b["size"]) else " ") + b["text"]
        out.append(text)
    return "\n".join(out) or None


def two_columns(page: Any, table: Any, rows: Rows, spans: list[tuple[float, float]]) -> Rows:
    """``rows`` (with their tops and bottoms, ``spans``) with each ruled column that holds two columns
    (:func:`_channel`) read as two; a column is looked at only where every ruled row has its own cell
    there (no cell spanning it)."""
    grid = [list(r.cells) for r in table.rows]
    if not grid or any(len(r) != len(grid[0]) for r in [*grid, *rows]):
        return rows
    top, bottom = table.bbox[1], table.bbox[3]
    columns = []  # (index, left, right) of each column no cell spans
    for j, cells in enumerate(zip(*grid, strict=True)):
        if all(c is not None for c in cells):
            x0, x1 = cells[0][0], cells[0][2]
            if all(abs(c[0] - x0) <= SLACK and abs(c[2] - x1) <= SLACK for c in cells):
                columns.append((j, x0, x1))
    if not columns:
        return rows
    words = _column_words(page, table.bbox)  # read once for every column
    for j, x0, x1 in reversed(columns):
        mine = [w for w in words if x0 <= (w["x0"] + w["x1"]) / 2 < x1]
        by_row = [
            [w for w in mine if max(a, top) <= (w["top"] + w["bottom"]) / 2 < min(b, bottom)]
            for a, b in spans
        ]
        cut = _channel(by_row, x0, x1)
        if cut is None:
            continue
        parts = [([w for w in ws if w["x1"] <= cut], [w for w in ws if w["x0"] >= cut]) for ws in by_row]
        rows = [[*r[:j], _text(a), _text(b), *r[j + 1 :]] for r, (a, b) in zip(rows, parts, strict=True)]
    return rows
