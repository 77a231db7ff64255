"""Cells beside a ruled table that no rule encloses: row labels set left of a ruled grid of figures (a
cost form's "Salaries (a)", a statistics table's years) or a column of notes right of it. pdfplumber's
table holds only the ruled part, and that part stands in for the text it covers, so without this the
labels were lost from the reading. A side's words are taken as one more column when every one of them
lies within one ruled row and they stand in one column (prose beside a table runs across rows), and only
beside a ruled part that reads as a table on its own: rules under lines of prose, or round a chart's bars,
make one-column "tables" that are no table, and the text beside them is no column of theirs."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from ragkit.ingestion.ocr_boxes import inside
from ragkit.ingestion.pdf_spans import WORD_GAP

Box = tuple[float, float, float, float]
Rows = list[list[str | None]]

#: how far (pt) a word may stand out of its row, or overlap the table's edge, and still be beside it
_SLACK = 2.0
#: a gap between words wider than this many font sizes is a second column: not one column of labels
_COLUMN_GAP = 1.5
#: a side cell of more lines than this is running text beside the table, not a label
_MOST_LINES = 4


def _side_cells(words: list[dict[str, Any]], spans: list[tuple[float, float]]) -> list[str] | None:
    """The words of one side as one cell per row (lines top to bottom, words left to right), or None
    when they are not one column of row cells: a word outside every row, a wide gap in a line, or a cell
    of too many lines."""
    cells: list[list[dict[str, Any]]] = [[] for _ in spans]
    for w in words:
        row = next(
            (k for k, (a, b) in enumerate(spans) if a - _SLACK <= w["top"] and w["bottom"] <= b + _SLACK),
            None,
        )
        if row is None:
            return None
        cells[row].append(w)
    out: list[str] = []
    for held in cells:
        lines: list[list[dict[str, Any]]] = []
        for w in sorted(held, key=lambda w: (w["top"], w["x0"])):
            if lines and abs(lines[-1][0]["top"] - w["top"]) <= _SLACK:
                gap = w["x0"] - lines[-1][-1]["x1"]
                if gap > _COLUMN_GAP * min(w["size"], lines[-1][-1]["size"]):
                    return None
                lines[-1].append(w)
            else:
                lines.append([w])
        if len(lines) > _MOST_LINES:
            return None
        out.append("\n".join(" ".join(w["text"] for w in line) for line in lines))
    return out


def beside(
    page: Any, box: Box, rows: Rows, spans: list[tuple[float, float]], others: list[Box]
) -> tuple[Box, Rows]:
    """The table with the unruled columns beside it added (``spans``: each row's top and bottom; words in
    ``others``, the page's other tables, are theirs), and its box widened to hold them."""
    filled = {j for r in rows for j, c in enumerate(r) if c and c.strip()}
    if (
        len(rows) != len(spans)
        or len(filled) < 2
        or sum(1 for r in rows if any(c and c.strip() for c in r)) < 2
    ):
        return box, rows
    x0, top, x1, bottom = box

    def free(w: dict[str, Any]) -> bool:
        cx, cy = (w["x0"] + w["x1"]) / 2, (w["top"] + w["bottom"]) / 2
        return top <= cy <= bottom and not any(inside(o, cx, cy) for o in others)

    band = page.crop((0, max(top - _SLACK, 0), page.width, min(bottom + _SLACK, page.height)), strict=False)
    words = [w for w in band.extract_words(x_tolerance_ratio=WORD_GAP, extra_attrs=["size"]) if free(w)]
    left = [w for w in words if w["x1"] <= x0 + _SLACK]
    right = [w for w in words if w["x0"] >= x1 - _SLACK]
    lo, hi = x0, x1
    if left and (cells := _side_cells(left, spans)) is not None:
        rules = _rules_across(page, min(w["x0"] for w in left), x0, top, bottom)
        if _labels(cells, spans, rules):
            lo = min(w["x0"] for w in left)
            cells = _grouped(cells, spans, rules)
            rows = [[c or None, *r] for c, r in zip(cells, rows, strict=True)]
    if right and (cells := _side_cells(right, spans)) is not None:
        rules = _rules_across(page, x1, max(w["x1"] for w in right), top, bottom)
        if _labels(cells, spans, rules):
            hi = max(w["x1"] for w in right)
            cells = _grouped(cells, spans, rules)
            rows = [[*r, c or None] for c, r in zip(cells, rows, strict=True)]
    return (lo, top, hi, bottom), rows


def _labels(cells: list[str], spans: list[tuple[float, float]], rules: list[float]) -> bool:
    """Whether a side's cells are the table's labels: words in two rows or more, or one line beside one
    row whose rule runs on under or over it (a one-row table's label, "On labour market training" beside
    its five years' figures); a lone line beside a table with no rule reaching it may be prose."""
    held = [k for k, c in enumerate(cells) if c]
    if len(held) != 1:
        return len(held) >= 2
    up, down = spans[held[0]]
    return "\n" not in cells[held[0]] and any(abs(r - up) <= _SLACK or abs(r - down) <= _SLACK for r in rules)


def _rules_across(page: Any, left: float, right: float, top: float, bottom: float) -> list[float]:
    """The heights of the rules drawn across a side's whole width (``left`` to ``right``) within the
    table's height: where the side's groups of rows begin and end."""
    return sorted(
        {
            e["top"]
            for e in page.edges
            if e["orientation"] == "h"
            and e["x0"] <= left + _SLACK
            and e["x1"] >= right - _SLACK
            and top - _SLACK <= e["top"] <= bottom + _SLACK
        }
    )


def _grouped(cells: list[str], spans: list[tuple[float, float]], rules: list[float]) -> list[str]:
    """A side's cells with each label that stands alone in a ruled group of rows moved to the group's
    first row: a year centred beside its Men, Women and Total rows, between rules that cross the side
    only round the group, was read as the middle row's, and filled down from there it named the next
    group's first row too (Statistics Finland's "1991 | Men | 9.5", a row of 1996)."""
    out = list(cells)
    for up, down in pairwise(rules):
        group = [k for k, (a, b) in enumerate(spans) if a >= up - _SLACK and b <= down + _SLACK]
        held = [k for k in group if out[k]]
        if len(group) >= 2 and len(held) == 1 and held[0] != group[0]:
            out[group[0]], out[held[0]] = out[held[0]], ""
    return out
