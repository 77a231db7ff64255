"""A table header's wrapped cells read as one row.

The layout engine cuts a table into rows at every text line of its header when the header's cells wrap
(a results sheet's "Total" over "Segment" over "Score", "Starting" over "Number"), so the header reads as
two or three rows of fragments and no row holds its labels. A cut between two header rows goes when the
rows are one cell's lines: two lines or more of the lower row, and every line of one of the rows, stand
right under or over a line of the other, in step with it (the same left or right edge), one line's
spacing apart. A group's label centred over its columns ("Dec-2015" over "Pax | y.o.y(%)", "Total" over
"Under 18" in the middle of its three) is in step with no line below it, so a header of two levels
keeps its cut. Only the header is looked at: the rows above the first row of figures.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import NamedTuple

#: how many rows from the top the first row of figures may be for the rows above it to be a header
HEADER_ROWS = 4
#: two lines are in step when the left or the right edge of one is this share of the font size from the
#: other's (not the middle: a group's label is centred over its middle column, "Total" over "Under 18")
IN_STEP = 0.2
#: the most one line's foot may stand below the other's, in font sizes, for them to be one cell's lines
SPACING = 1.6

_DIGIT = re.compile(r"\d")
_ALNUM = re.compile(r"\w")


class Line(NamedTuple):
    """A text line of the table: its box, font size and text."""

    x0: float
    y0: float
    x1: float
    y1: float
    size: float
    text: str


def figures(text: str) -> bool:
    """Whether a line is a figure: at least half of its letters and digits are digits."""
    return 2 * len(_DIGIT.findall(text)) >= max(len(_ALNUM.findall(text)), 1)


def _figures(lines: list[Line]) -> bool:
    """Whether a row holds a figure (:func:`figures`)."""
    return any(figures(ln.text) for ln in lines)


def _next_line(upper: Line, lower: Line) -> bool:
    """Whether ``lower`` is the line after ``upper`` in one cell: in step with it and one line down."""
    size = max(upper.size, lower.size, 1.0)
    step = IN_STEP * size
    in_step = abs(upper.x0 - lower.x0) <= step or abs(upper.x1 - lower.x1) <= step
    down = lower.y1 - upper.y1
    return in_step and 0 < down <= SPACING * size and lower.y0 >= upper.y1 - 0.25 * size


def _one_row(upper: list[Line], lower: list[Line]) -> bool:
    """Whether two header rows are one row's lines: two lines or more of ``lower`` go on from lines of
    ``upper``, and every line of one of them does (a category's label under the header's first label,
    alone in its row, is a row of its own)."""
    goes_on = [lo for lo in lower if any(_next_line(u, lo) for u in upper)]
    if len(goes_on) < 2:
        return False
    return len(goes_on) == len(lower) or all(any(_next_line(u, lo) for lo in lower) for u in upper)


def header_cuts(cuts: list[float], lines: list[Line]) -> list[float]:
    """``cuts`` (the y of each cut between the table's rows, top to bottom) without those that split a
    header's wrapped cells; ``lines`` are the table's text lines. Returns ``cuts`` itself when none goes."""
    if not cuts or not lines:
        return cuts
    bounds = [float("-inf"), *cuts, float("inf")]
    rows = [[ln for ln in lines if lo <= (ln.y0 + ln.y1) / 2 < hi] for lo, hi in pairwise(bounds)]
    first = next((n for n, row in enumerate(rows[: HEADER_ROWS + 1]) if n and _figures(row)), 0)
    kept, upper = [], rows[0]
    for n in range(first):
        lower = rows[n + 1]
        if n + 1 < first and _one_row(upper, lower):
            upper = upper + lower  # one row of the header: its cut goes
            continue
        kept.append(cuts[n])
        upper = lower
    out = kept + cuts[first:]
    return cuts if len(out) == len(cuts) else out


__all__ = ["HEADER_ROWS", "IN_STEP", "SPACING", "Line", "figures", "header_cuts"]
