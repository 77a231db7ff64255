"""A table header of two levels or more: the heads that span the levels written in each row.

A statistics table heads its figures "Race/ethnicity" over "White | Black | …", a short rule under the
group label reaching over the columns it heads; beside the group, "Year" and "Total" stand at the foot
of the header, alone in their columns. The layout engine reads such a header as two rows, the upper one
holding the group label alone, so no row read as the page's upper level does ("Year | Total |
Race/ethnicity"), and a budget's "Total Plan &" over "Non-Plan" was cut in two between the levels. A
head outside every group (no rule under an upper label reaches its column) spans both levels: it is
written in both rows, as a label spanning rows is (a head the cut split is joined, in both); a group
label is written once, in the first column it heads. Only where a rule under an upper label marks a
group: without one, nothing says the header has two levels, and it is left as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import pairwise
from typing import Any

from ragkit.ingestion.pdf_headers import HEADER_ROWS, Line
from ragkit.ingestion.wrapped_rows import goes_on, join_cell

#: a group's rule lies under its label's foot by this many font sizes at most
RULE_UNDER = 1.5
#: a rule is level when its ends differ in height by less than this (pt); a filled bar this thin is a rule
LEVEL = 0.5
THIN = 2.0

Rule = tuple[float, float, float]  # x0, x1, y


def rules_across(page: Any) -> list[Rule]:
    """The page's level rules: drawn lines and thin bars, as (x0, x1, y), pieces that meet end to end at
    one height as one (a rule drawn column by column)."""
    out: list[Rule] = []
    for path in page.get_cdrawings():
        for item in path.get("items", ()):
            if item[0] == "l" and abs(item[1][1] - item[2][1]) < LEVEL:
                a, b = sorted((item[1][0], item[2][0]))
                out.append((a, b, (item[1][1] + item[2][1]) / 2))
            elif item[0] == "re":
                x0, y0, x1, y1 = item[1]
                if abs(y1 - y0) <= THIN and abs(x1 - x0) > THIN:
                    out.append((min(x0, x1), max(x0, x1), (y0 + y1) / 2))
    heights: list[list[Rule]] = []  # the pieces at one height (within LEVEL of the first), by height
    for rule in sorted(out, key=lambda r: r[2]):
        if heights and rule[2] - heights[-1][0][2] < LEVEL:
            heights[-1].append(rule)
        else:
            heights.append([rule])
    joined: list[Rule] = []
    for pieces in heights:
        start = len(joined)
        for a, b, y in sorted(pieces):
            if len(joined) > start and a <= joined[-1][1] + LEVEL:
                joined[-1] = (joined[-1][0], max(b, joined[-1][1]), joined[-1][2])
            else:
                joined.append((a, b, y))
    return joined


#: the page the layout engine is reading, and its rules once a table has asked for them
_PAGE: ContextVar[list[Any] | None] = ContextVar("pdf_levels_page", default=None)


@contextmanager
def on_page(page: Any) -> Iterator[None]:
    """The page the layout engine reads while this is open: :func:`page_rules` draws on it."""
    token = _PAGE.set([page, None])
    try:
        yield
    finally:
        _PAGE.reset(token)


def page_rules() -> list[Rule]:
    """The rules of the page :func:`on_page` holds (found once, when a table first asks), else none."""
    held = _PAGE.get()
    if held is None:
        return []
    if held[1] is None:
        held[1] = rules_across(held[0])
    return held[1]


def _group(cell: list[Line], bounds: list[float], rules: list[Rule], lower: float) -> tuple[int, int] | None:
    """The first and last column a label's lines (``cell``) head: those the rule under it reaches over,
    two or more; None when no rule wider than the label lies just under it, above the foot of the lower
    level's lines (at ``lower``: the rule under the whole header is no group's)."""
    x0, x1 = min(ln.x0 for ln in cell), max(ln.x1 for ln in cell)
    foot, size = max(ln.y1 for ln in cell), max(ln.size for ln in cell)
    middle = (x0 + x1) / 2
    for a, b, y in rules:
        under = foot - LEVEL <= y <= foot + RULE_UNDER * size and y < lower
        if under and a <= middle <= b and b - a > x1 - x0 + size:
            cols = [k for k in range(len(bounds) - 1) if a - 1 <= (bounds[k] + bounds[k + 1]) / 2 <= b + 1]
            if len(cols) >= 2:
                return cols[0], cols[-1]
    return None


def _groups(
    extract: list[list[str]],
    k: int,
    row_of: list[float],
    bounds: list[float],
    lines: list[Line],
    rules: list[Rule],
) -> list[tuple[int, int, int]]:
    """Row ``k``'s group labels, as (first column headed, last, the label's column): a filled cell whose
    lines have a rule under them reaching over two columns or more."""
    out = []
    below = [ln.y1 for ln in lines if row_of[k + 1] <= (ln.y0 + ln.y1) / 2 < row_of[k + 2]]
    lower = max(below, default=row_of[k + 2])
    for c in range(min(len(extract[k]), len(bounds) - 1)):
        if not (extract[k][c] or "").strip():
            continue
        top, foot, left, right = row_of[k], row_of[k + 1], bounds[c], bounds[c + 1]
        cell = [ln for ln in lines if top <= (ln.y0 + ln.y1) / 2 < foot and ln.x1 > left and ln.x0 < right]
        if cell and (span := _group(cell, bounds, rules, lower)) and span[0] <= c <= span[1]:
            out.append((*span, c))
    return out


def _filled(row: list[str]) -> int:
    return sum(1 for c in row if (c or "").strip())


def two_levels(
    extract: list[list[str]], row_of: list[float], bounds: list[float], lines: list[Line], rules: list[Rule]
) -> bool:
    """Write the heads that span the levels of a header of two levels or more in each row they span
    (``extract``: the table's rows of cells, changed in place; ``row_of``: each row's top, then the
    table's foot; ``bounds``: its column edges; ``lines``: its text lines). A level is a row, of the
    first :data:`HEADER_ROWS`, that holds a group label and fewer cells than the row under it (a total's
    rule under a full row of figures marks no group); the levels run on down while the next row is one
    too, and the row under the last is the header's foot. Returns whether any row changed."""
    levels: list[list[tuple[int, int, int]]] = []
    for k in range(min(len(extract) - 1, len(row_of) - 2, HEADER_ROWS)):
        groups = _groups(extract, k, row_of, bounds, lines, rules)
        level = groups and 0 < _filled(extract[k]) < _filled(extract[k + 1])
        if level and (not levels or levels[-1][0][3] == k - 1):  # the levels run on, one under the other
            levels.append([(*g, k) for g in groups])
            continue
        if levels:
            break
    if not levels:
        return False
    top = levels[0][0][3]
    rows = extract[top : top + len(levels) + 1]
    return _write(rows, [[g[:3] for g in level] for level in levels], min(len(bounds) - 1, *map(len, rows)))


def _write(rows: list[list[str]], levels: list[list[tuple[int, int, int]]], width: int) -> bool:
    """Each group label in the first column it heads; each head under no group, in every row of the
    header: its pieces joined when they read as one wrapped head, else left as they are. A column under
    a group at one level is left whole: a label whose own rule went unseen is no head to join with what
    stands under it ("American Indian/Alaska native" over "no.")."""
    before = [list(r) for r in rows]
    for up, groups in zip(rows, levels, strict=False):
        for first, last, c in groups:
            if c != first and not any((up[k] or "").strip() for k in range(first, last + 1) if k != c):
                up[first], up[c] = up[c], ""
    grouped = {k for groups in levels for first, last, _ in groups for k in range(first, last + 1)}
    for c in range(width):
        pieces = [t for r in rows if (t := (r[c] or "").strip())]
        if c in grouped or not pieces or any(not goes_on(a, b) for a, b in pairwise(pieces)):
            continue
        text = pieces[0]
        for piece in pieces[1:]:
            text = join_cell(text, piece)
        for r in rows:
            r[c] = text
    return rows != before


__all__ = ["LEVEL", "RULE_UNDER", "THIN", "Rule", "on_page", "page_rules", "rules_across", "two_levels"]
