"""A page whose text runs up or down it (a wide table printed turned on a portrait page) read upright.

The layout engine and PyMuPDF's text blocks read lines along the page's x axis: a turned table's
columns come out as its rows ("Total 71.2 | 49.9 | …" down a column, one row's cells in many). Such a
page is read from an upright copy, its content drawn turned a quarter so that its text runs left to
right, as a reader turns the paper. A turned table in one part of an upright page (a journal's table
set sideways in one column, beside the running text) is read the same way, from an upright copy of
that part alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragkit.ingestion.ocr_boxes import share_inside

#: the share of a page's characters on turned lines above which the page is read turned upright
TURNED = 2 / 3

#: the turn that sets text of each direction (on the page as stored) upright
_UPRIGHT = {(1, 0): 0, (0, -1): -90, (0, 1): 90, (-1, 0): 180}


def _text_lines(page: Any) -> list[tuple[tuple[float, float, float, float], tuple[float, float], int]]:
    """Each of the page's text lines: its box, its direction and how many characters it holds."""
    import pymupdf

    return [
        (tuple(line["bbox"]), tuple(line["dir"]), sum(len(s["text"].strip()) for s in line["spans"]))
        for block in page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT).get("blocks", [])
        for line in block.get("lines", [])
    ]


def turn_of(page: Any) -> int | None:
    """The turn (degrees, as :meth:`show_pdf_page` takes it) that sets the page's text upright when most
    of it runs up or down the page as shown (its ``/Rotate`` applied: a landscape page stored turned
    reads across); None for a page whose text runs across."""
    import pymupdf

    shown = pymupdf.Matrix(page.rotation_matrix)
    shown.e = shown.f = 0  # the page's turn only, not where it puts the origin
    ways: dict[tuple[int, int], int] = {}  # the characters of each direction on the page, unturned
    total = turned = 0
    for _, direction, n in _text_lines(page):
        way = (round(direction[0]), round(direction[1]))
        total += n
        if round((pymupdf.Point(direction) * shown).x) == 0:  # runs up or down as shown
            turned += n
            ways[way] = ways.get(way, 0) + n
    if not total or turned <= TURNED * total:
        return None
    return _UPRIGHT.get(max(ways, key=ways.__getitem__))


#: a part of an upright page read turned holds at least this many characters on lines running up or down
PART_CHARS = 100
#: and at most this share of the characters inside its box on lines running across
PART_ACROSS = 0.1
#: and reaches along its lines at least this many times their median length (a table's many cells in
#: a row: the turned heads over an upright table's columns each fill the head row, about 1)
PART_REACH = 3.0
#: where a turned part is drawn on its own page (points from its top left)
_MARGIN = 36


def turned_part(page: Any) -> tuple[tuple[float, float, float, float], int] | None:
    """The box (x0, y0, x1, y1) of an unturned page's text that runs up or down it and the turn that sets
    it upright (:func:`turn_of`'s), when that text is a turned table or passage of its own (see the
    ``PART_`` limits); None otherwise."""
    import pymupdf

    if page.rotation:
        return None
    turned: list[tuple[Any, tuple[int, int], int]] = []
    across: list[tuple[Any, int]] = []
    for bbox, direction, n in _text_lines(page):
        way = (round(direction[0]), round(direction[1]))
        if way[0]:
            across.append((pymupdf.Rect(bbox), n))
        else:
            turned.append((pymupdf.Rect(bbox), way, n))
    ways = {way for _, way, _ in turned}
    if len(ways) != 1 or sum(n for *_, n in turned) < PART_CHARS:
        return None
    part = pymupdf.Rect()
    for box, _, _ in turned:
        part |= box
    inside = sum(n for box, n in across if part.contains(box.tl + (box.br - box.tl) / 2))
    lengths = sorted(box.height for box, _, _ in turned)
    if (
        inside > PART_ACROSS * (inside + sum(n for *_, n in turned))
        or part.height < PART_REACH * lengths[len(lengths) // 2]
    ):
        return None
    return (part.x0, part.y0, part.x1, part.y1), _UPRIGHT[ways.pop()]


def turned_part_edits(
    boxes: list[tuple[int, int, tuple[float, float, float, float]]],
    page: Any,
    read: Callable[[Any], str],
) -> list[tuple[int, int, str]]:
    """Edits that put the reading of the page's turned part (:func:`turned_part`), made by ``read`` from
    an upright copy of that part alone, in place of the layout ``boxes`` (start, stop, bbox) lying mostly
    inside it: the first becomes the reading, the others go."""
    found = turned_part(page)
    if found is None:
        return []
    covered = sorted((a, b) for a, b, box in boxes if b > a and share_inside(box, found[0]) > 0.5)
    if not covered:
        return []
    import pymupdf

    (x0, y0, x1, y1), turn = found
    wide, tall = y1 - y0, x1 - x0  # the part turned upright
    doc = pymupdf.open()  # on a page of its own, at the size it is printed: the engine reads a small
    new = doc.new_page(  # page as a picture
        width=max(page.rect.height, wide + 2 * _MARGIN), height=max(page.rect.width, tall + 2 * _MARGIN)
    )
    try:
        at = pymupdf.Rect(_MARGIN, _MARGIN, _MARGIN + wide, _MARGIN + tall)
        new.show_pdf_page(at, page.parent, page.number, clip=pymupdf.Rect(x0, y0, x1, y1), rotate=turn)
    except (RuntimeError, ValueError):  # a page PyMuPDF cannot draw elsewhere: read as it stands
        return []
    text = read(new).strip()
    return [(a, b, f"{text}\n\n" if k == 0 else "") for k, (a, b) in enumerate(covered)]


def upright(page: Any) -> tuple[Any, Any] | None:
    """A one-page document holding the page's content turned upright, and its page; None when the page
    reads as it stands."""
    import pymupdf

    turn = turn_of(page)
    if turn is None:
        return None
    doc = pymupdf.open()
    box = page.cropbox  # the page as stored, its /Rotate not applied: as show_pdf_page draws it
    size = (box.width, box.height) if turn % 180 == 0 else (box.height, box.width)
    new = doc.new_page(width=size[0], height=size[1])
    try:
        new.show_pdf_page(new.rect, page.parent, page.number, rotate=turn)
    except (RuntimeError, ValueError):  # a page PyMuPDF cannot draw elsewhere: read as it stands
        return None
    return doc, new


__all__ = [
    "PART_ACROSS",
    "PART_CHARS",
    "PART_REACH",
    "TURNED",
    "turn_of",
    "turned_part",
    "turned_part_edits",
    "upright",
]
