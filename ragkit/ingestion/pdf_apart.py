"""Boxes the layout engine misread, read apart: a grid of check-box items (:mod:`pdf_checkboxes`), a
table set sideways in one part of the page (:mod:`pdf_turned`), a text box drawn across two columns'
short strips, read one column after the other, and a paragraph with an icon's label beside it.

The 1040NR booklet's page 14 opens with the ends of two columns' paragraphs, three lines on the left and
two on the right, set side by side. The engine took them for one text box and wrote its lines across
the gutter, row by row: "July 1, 1986, and you used this method November 18, 1996, and both of the
last year to figure the taxable part, or following apply." Where every line of a text box stands wholly
on one side of one gutter (white, at least :data:`GUTTER` font sizes wide, that no line crosses), with
lines of prose on both sides in :data:`ROWS` rows or more, the box is read as the reader reads it: the
left strip, then the right one. An icon's label beside a paragraph (the booklet's caution sign) goes
before the paragraph, not into its lines (:func:`side_label`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragkit.ingestion.pdf_checkboxes import grid_edits
from ragkit.ingestion.pdf_spans import line_end_hyphen
from ragkit.ingestion.pdf_turned import turned_part_edits

#: the white between the strips, in font sizes (a word space is about a quarter of one)
GUTTER = 1.5
#: rows with a line on each side of the gutter, at least
ROWS = 2
#: words a line has on average on each side: prose, not a table's label and value
PROSE_WORDS = 4.0
#: a side label's text is set at most this share of the paragraph's size (the icon's "CAUTION")
LABEL_SIZE = 0.7

Lines = list[tuple[tuple[float, ...], float, str]]


def text_lines(page: Any, box: tuple[float, float, float, float]) -> Lines:
    """The horizontal text lines of ``page`` inside ``box``: (bbox, font size, text)."""
    import pymupdf

    out = []
    for block in page.get_text("dict", clip=pymupdf.Rect(box), flags=pymupdf.TEXTFLAGS_TEXT)["blocks"]:
        for line in block.get("lines", []):
            text = "".join(s["text"] for s in line["spans"]).strip()
            if text and tuple(line["dir"]) == (1.0, 0.0):
                out.append((tuple(line["bbox"]), max(s["size"] for s in line["spans"]), text))
    return out


def strips(lines: Lines) -> str | None:
    """The text of a box's ``lines`` (:func:`text_lines`) as its left strip then its right one, when it
    is two strips side by side (see the module's rule); None for any other box."""
    if len(lines) < 2 * ROWS:
        return None
    size = sorted(s for _, s, _ in lines)[len(lines) // 2]
    edges = sorted((b[0], b[2]) for b, _, _ in lines)
    reach, gutter = edges[0][1], None
    for x0, x1 in edges[1:]:
        if x0 - reach >= GUTTER * size:
            gutter = (reach + x0) / 2
            break
        reach = max(reach, x1)
    if gutter is None:
        return None
    left = sorted((b[1], t) for b, _, t in lines if b[2] <= gutter)
    right = sorted((b[1], t) for b, _, t in lines if b[0] >= gutter)
    rows = sum(any(abs(y - yr) < 0.5 * size for yr, _ in right) for y, _ in left)
    words = [sum(len(t.split()) for _, t in side) / len(side) for side in (left, right) if side]
    if rows < ROWS or len(words) < 2 or min(words) < PROSE_WORDS:
        return None
    return _run_together([t for _, t in [*left, *right]])


def _run_together(lines: list[str]) -> str:
    text = ""
    for t in lines:
        text += ("\n" if line_end_hyphen(text) else " " if text else "") + t
    return text


def side_label(lines: Lines) -> str | None:
    """The text of a paragraph (its box's ``lines``, :func:`text_lines`) whose box holds an icon's label
    beside its lines (the 1040NR booklet's caution sign: a "!" and "CAUTION" in 4.8-pt type, left of the
    indented lines), the label first, then the paragraph's lines whole; None for any other box. The
    engine wrote the label's words into the lines beside them ("At the time these instructions ! went to
    print, Congress was CAUTION considering …"). A label's lines are short (two words at most), beside a
    line of the paragraph, and small type (at most :data:`LABEL_SIZE` of the paragraph's) or a lone
    sign, one of them small; one of them stands beside a line after the paragraph's first (a footnote's
    mark before its first line is written first already)."""
    if len(lines) < 2:
        return None
    body = sorted(s for _, s, _ in lines)[len(lines) // 2]
    top = min(b[1] for b, s, _ in lines if s == body)

    def beside(b: tuple[float, ...], below: float = float("-inf")) -> bool:  # a paragraph line to its right
        middle = (b[1] + b[3]) / 2
        return any(
            m[0] >= b[2] + 2 and m[1] <= middle <= m[3] and m[1] > below for m, s, _ in lines if s == body
        )

    def label(b: tuple[float, ...], size: float, text: str) -> bool:
        small = size <= LABEL_SIZE * body or (len(text) == 1 and not text.isalnum())
        return small and beside(b) and len(text.split()) <= 2

    side = [k for k, line in enumerate(lines) if label(*line)]
    # beside a line after the paragraph's first: else the engine wrote it first already
    if not any(beside(lines[k][0], top + 0.5 * body) for k in side):
        return None
    if not any(lines[k][1] <= LABEL_SIZE * body for k in side):
        return None
    rest = sorted((b[1], b[0], t) for k, (b, _, t) in enumerate(lines) if k not in side)
    icon = " ".join(t for _, _, t in sorted((lines[k][0][1], lines[k][0][0], lines[k][2]) for k in side))
    return f"{icon}\n\n{_run_together([t for *_, t in rest])}"


def read_apart(
    boxes: list[tuple[int, int, tuple[float, float, float, float]]],
    classes: list[str],
    page: Any,
    edits: list[tuple[int, int, str]],
    replaced: set[int],
    read: Callable[[Any], str],
) -> None:
    """Add to ``edits`` (and ``replaced``) the layout ``boxes`` (start, stop, bbox; ``classes``: each one's
    class) read apart: each grid of check-box items (the engine reads one as a table, or as a paragraph
    of its lines run together) as list items; the boxes of a table set sideways in one part of the page,
    from an upright copy of that part that ``read`` reads; each text box of two strips, strip by strip,
    and each with an icon's label beside it, the label first."""
    kinds = ("table", "text", "list-item")
    listed = zip(boxes, classes, strict=True)
    mine = [(a, b, box) for (a, b, box), c in listed if c in kinds and a not in replaced]
    grids = grid_edits(page, [x[2] for x in mine])
    found = [(*mine[k][:2], f"{items}\n\n" if items else "") for k, items in grids]
    taken = replaced | {a for a, _, _ in found}
    found += turned_part_edits([x for x in boxes if x[0] not in taken], page, read)
    taken |= {a for a, _, _ in found}
    for (a, b, box), kind in zip(boxes, classes, strict=True):
        if kind != "text" or b <= a or a in taken:
            continue
        lines = text_lines(page, box)
        if (text := strips(lines) or side_label(lines)) is not None:
            found.append((a, b, f"{text}\n\n"))
    for a, b, text in found:
        edits.append((a, b, text))
        replaced.add(a)


__all__ = ["GUTTER", "LABEL_SIZE", "PROSE_WORDS", "ROWS", "read_apart", "side_label", "strips", "text_lines"]
