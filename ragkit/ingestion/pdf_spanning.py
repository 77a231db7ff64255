"""A table header's label set over several columns read as one cell, a level of its own.

A financial statement heads its figures "Three Months Ended" over "June 30," over the years "2025 |
2024": the label spans the two year columns. The layout engine cuts every header line at the column
boundaries, so the label came out in pieces, each glued to a year ("Three 2025 | Months Ended June 30,
2024"), and no row held it. A header line with words on both sides of a column boundary is such a label;
the lines under it, inside its width and before a line of figures, are its rest. The label gets a row of
its own (a cut under it) and is written once, in the first column it spans, the others left empty, as
one writes a spanning cell in Markdown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ragkit.ingestion.pdf_headers import HEADER_ROWS, Line, figures
from ragkit.ingestion.wrapped_rows import goes_on, join_cell

#: the rest of a label stands this many font sizes under the line above it at most
UNDER = 0.6
#: a label's line has this many words at most ("Mitsubishi Electric Corp. stockholders’ equity"); a longer
#: line a boundary cuts is a cell of prose the engine split, not a label
LABEL_WORDS = 6


class Label(NamedTuple):
    """A spanning label: its box, its text (its lines joined) and the columns it spans (first, last)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    first: int
    last: int


def _spans(line: Line, words: list[tuple[float, float]], bounds: list[float]) -> bool:
    """Whether ``line`` has whole words on both sides of one of the inner column ``bounds``."""
    mine = [(a, b) for a, b in words if line.x0 - 0.5 <= a and b <= line.x1 + 0.5]
    return any(any(b <= x for _, b in mine) and any(a >= x for a, _ in mine) for x in bounds)


def _spanned(bounds: list[float], x0: float, x1: float) -> tuple[int, int]:
    """The first and last column (between ``bounds``) that a line from ``x0`` to ``x1`` reaches into."""
    cols = [c for c in range(len(bounds) - 1) if bounds[c] < x1 - 1 and bounds[c + 1] > x0 + 1]
    return cols[0], cols[-1]


def _row_at(row_of: list[float], rows: int, y: float) -> int | None:
    """The row, of the first ``rows``, that holds ``y`` (``row_of``: each row's top, then the foot)."""
    return next((n for n in range(rows) if row_of[n] <= y < row_of[n + 1]), None)


def spanning_labels(
    bounds: list[float],
    cuts: list[float],
    lines: list[Line],
    words_of: Callable[[int], list[tuple[float, float]]],
) -> list[Label]:
    """The header's spanning labels. ``bounds``: the table's column edges, left to right (its sides
    first and last); ``cuts``: the y of the cuts between its rows; ``lines``: its text lines;
    ``words_of(k)``: the extents of line ``k``'s words, asked only of a short header line. Only the
    header is looked at: the lines above the first row of figures within :data:`HEADER_ROWS` rows."""
    rows = [float("-inf"), *cuts, float("inf")]
    first = None
    for n in range(min(len(rows) - 1, HEADER_ROWS + 1)):
        held = [ln for ln in lines if rows[n] <= (ln.y0 + ln.y1) / 2 < rows[n + 1]]
        if n and any(figures(ln.text) for ln in held):
            first = rows[n]
            break
    if first is None:
        return []
    inner = bounds[1:-1]
    order = sorted(range(len(lines)), key=lambda k: (lines[k].y0, lines[k].x0))
    out: list[Label] = []
    used: set[int] = set()
    for k in order:
        top = lines[k]
        short = len(top.text.split()) <= LABEL_WORDS  # a label, not a cell of prose a boundary cuts
        if k in used or top.y1 > first or figures(top.text) or not short:
            continue
        if not _spans(top, words_of(k), inner):
            continue
        mine, last = [top], top
        for j in order:
            ln = lines[j]
            reach = 0.5 * ln.size  # a right-aligned rest may stand out by a comma ("June 30,")
            inside = top.x0 - reach <= ln.x0 and ln.x1 <= top.x1 + reach
            under = -0.25 * ln.size <= ln.y0 - last.y1 <= UNDER * ln.size  # the next line down
            short = len(ln.text.split()) <= LABEL_WORDS
            if (
                j != k
                and j not in used
                and inside
                and under
                and short
                and ln.y1 <= first
                and not figures(ln.text)
            ):
                mine.append(ln)
                used.add(j)
                last = ln
        used.add(k)
        text = " ".join(" ".join(ln.text.split()) for ln in mine)
        out.append(Label(top.x0, top.y0, top.x1, last.y1, text, *_spanned(bounds, top.x0, top.x1)))
    return out


def cut_under(cuts: list[float], labels: list[Label], lines: list[Line]) -> list[float]:
    """``cuts`` with one under each label's last line where a line below it shares its row (the years under
    "June 30,"), and none through a label's lines."""
    out = list(cuts)
    for lab in labels:
        out = [c for c in out if not lab.y0 < c < lab.y1]
        below = [ln.y0 for ln in lines if ln.y0 >= lab.y1 - 0.5 and ln.x1 > lab.x0 and ln.x0 < lab.x1]
        if not below:
            continue
        y = (lab.y1 + min(below)) / 2
        if not any(lab.y1 - 0.5 <= c <= min(below) + 0.5 for c in out):
            out.append(y)
    return sorted(out)


def place_labels(extract: list[list[str]], row_of: list[float], labels: list[Label]) -> bool:
    """Write each label once, in the first column it spans of the row holding it (``row_of``: the y of
    each row's top and, last, the table's foot), its other columns empty, and keep whole the heads beside
    it that the cut under it split (:func:`keep_whole`). Returns whether any row changed."""
    placed = False
    for lab in labels:
        n = _row_at(row_of, len(extract), (lab.y0 + lab.y1) / 2)
        if n is None or lab.last >= len(extract[n]):
            continue
        row = extract[n]
        row[lab.first : lab.last + 1] = [lab.text] + [""] * (lab.last - lab.first)
        placed = True
    return keep_whole(extract, row_of, labels) or placed


def keep_whole(extract: list[list[str]], row_of: list[float], labels: list[Label]) -> bool:
    """Put back together a cell the cut under a label split (:func:`cut_under`): a head in another column
    that spans both levels and wraps across the cut ("IF the age at" | "annuity starting date (see page
    13) was . . ." beside "AND your annuity starting date was—" over its two years' heads) is written
    whole in the label's row, as a spanning head is, its lower part left empty; only where it is the one
    head beside the label's columns in the lower row (several there are a level of heads of their own,
    "dev | test" beside "After Perturb"). Returns whether any was."""
    changed = False
    for lab in labels:
        n = _row_at(row_of, len(extract) - 1, (lab.y0 + lab.y1) / 2)
        if n is None:
            continue
        up, down = extract[n], extract[n + 1]
        beside = [c for c in range(min(len(up), len(down))) if not lab.first <= c <= lab.last and down[c]]
        # one head beside the label's columns: several are a level of heads of their own ("dev | test")
        if len(beside) == 1 and up[c := beside[0]] and goes_on(up[c], down[c]):
            up[c], down[c] = join_cell(up[c], down[c]), ""
            changed = True
    return changed


#: a line of prose a boundary cuts has its words there at most this many font sizes apart (a word space,
#: stretched in a justified line; a column's gutter is wider)
PROSE_GAP = 0.8


def prose_across(
    bounds: list[float], lines: list[Line], words_of: Callable[[int], list[tuple[float, float]]]
) -> list[tuple[float, int, int]]:
    """The lines of prose that inner column ``bounds`` cut between two words of one phrase (a form's
    declaration "Under | penalties of perjury, I declare …" under a rule drawn for the boxes below it):
    each line's middle y and the first and last column it spans. A line of prose has more than
    :data:`LABEL_WORDS` words, and the words each side of the cut stand a word space apart."""
    out = []
    for k, line in enumerate(lines):
        if len(line.text.split()) <= LABEL_WORDS:
            continue
        words = [(a, b) for a, b in words_of(k) if line.x0 - 0.5 <= a and b <= line.x1 + 0.5]
        cut = False
        for x in bounds[1:-1]:
            left = [b for _, b in words if b <= x]
            right = [a for a, _ in words if a >= x]
            if left and right and min(right) - max(left) <= PROSE_GAP * line.size:
                cut = True
        if cut:
            out.append(((line.y0 + line.y1) / 2, *_spanned(bounds, line.x0, line.x1)))
    return out


def join_prose(
    extract: list[list[str]],
    row_of: list[float],
    bounds: list[float],
    prose: list[tuple[float, int, int]],
    read: Callable[[tuple[float, float, float, float]], str],
) -> bool:
    """Make the cells each line of ``prose`` (:func:`prose_across`) spans in its row one cell, read again
    whole by ``read`` (a box's text) and written in the first of them, the others empty. Returns whether
    any row changed."""
    spans: dict[int, tuple[int, int]] = {}
    for middle, first, last in prose:
        n = _row_at(row_of, len(extract), middle)
        if n is not None and last < len(extract[n]):
            a, b = spans.get(n, (first, last))
            spans[n] = (min(a, first), max(b, last))
    for n, (first, last) in spans.items():
        text = read((bounds[first], row_of[n], bounds[last + 1], row_of[n + 1]))
        extract[n][first : last + 1] = [text] + [""] * (last - first)
    return bool(spans)


__all__ = [
    "LABEL_WORDS",
    "PROSE_GAP",
    "Label",
    "cut_under",
    "join_prose",
    "keep_whole",
    "place_labels",
    "prose_across",
    "spanning_labels",
]
