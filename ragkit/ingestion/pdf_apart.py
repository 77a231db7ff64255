"""Boxes the layout engine misread, read apart: a grid of check-box items (:mod:`pdf_checkboxes`), a
table set sideways in one part of the page (:mod:`pdf_turned`), and a text box drawn across two
columns' short strips, read one column after the other.

The 1040NR booklet's page 14 opens with the ends of two columns' paragraphs, three lines on the left and
two on the right, set side by side. The engine took them for one text box and wrote its lines across
the gutter, row by row: "July 1, 1986, and you used this method November 18, 1996, and both of the
last year to figure the taxable part, or following apply." Where every line of a text box stands wholly
on one side of one gutter (white, at least :data:`GUTTER` font sizes wide, that no line crosses), with
lines of prose on both sides in :data:`ROWS` rows or more, the box is read as the reader reads it: the
left strip, then the right one.
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


def _lines(page: Any, box: tuple[float, float, float, float]) -> list[tuple[tuple[float, ...], float, str]]:
    """The horizontal text lines of ``page`` inside ``box``: (bbox, font size, text)."""
    import pymupdf

    out = []
    for block in page.get_text("dict", clip=pymupdf.Rect(box), flags=pymupdf.TEXTFLAGS_TEXT)["blocks"]:
        for line in block.get("lines", []):
            text = "".join(s["text"] for s in line["spans"]).strip()
            if text and tuple(line["dir"]) == (1.0, 0.0):
                out.append((tuple(line["bbox"]), max(s["size"] for s in line["spans"]), text))
    return out


def strips(page: Any, box: tuple[float, float, float, float]) -> str | None:
    """The text of the box as its left strip then its right one, when it is two strips side by side (see
    the module's rule); None for any other box."""
    lines = _lines(page, box)
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
    text = ""
    for _, t in [*left, *right]:
        text += ("\n" if line_end_hyphen(text) else " " if text else "") + t
    return text


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
    from an upright copy of that part that ``read`` reads; each text box of two strips, strip by strip."""
    kinds = ("table", "text", "list-item")
    listed = zip(boxes, classes, strict=True)
    mine = [(a, b, box) for (a, b, box), c in listed if c in kinds and a not in replaced]
    grids = grid_edits(page, [x[2] for x in mine])
    found = [(*mine[k][:2], f"{items}\n\n" if items else "") for k, items in grids]
    taken = replaced | {a for a, _, _ in found}
    found += turned_part_edits([x for x in boxes if x[0] not in taken], page, read)
    taken |= {a for a, _, _ in found}
    for (a, b, box), kind in zip(boxes, classes, strict=True):
        if kind == "text" and b > a and a not in taken and (text := strips(page, box)) is not None:
            found.append((a, b, f"{text}\n\n"))
    for a, b, text in found:
        edits.append((a, b, text))
        replaced.add(a)


__all__ = ["GUTTER", "PROSE_WORDS", "ROWS", "read_apart", "strips"]
