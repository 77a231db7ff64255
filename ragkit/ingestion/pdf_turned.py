"""A page whose text runs up or down it (a wide table printed turned on a portrait page) read upright.

The layout engine and PyMuPDF's text blocks read lines along the page's x axis: a turned table's
columns come out as its rows ("Total 71.2 | 49.9 | …" down a column, one row's cells in many). Such a
page is read from an upright copy, its content drawn turned a quarter so that its text runs left to
right, as a reader turns the paper.
"""

from __future__ import annotations

from typing import Any

#: the share of a page's characters on turned lines above which the page is read turned upright
TURNED = 2 / 3

#: the turn that sets text of each direction (on the page as stored) upright
_UPRIGHT = {(1, 0): 0, (0, -1): -90, (0, 1): 90, (-1, 0): 180}


def turn_of(page: Any) -> int | None:
    """The turn (degrees, as :meth:`show_pdf_page` takes it) that sets the page's text upright when most
    of it runs up or down the page as shown (its ``/Rotate`` applied: a landscape page stored turned
    reads across); None for a page whose text runs across."""
    import pymupdf

    shown = pymupdf.Matrix(page.rotation_matrix)
    shown.e = shown.f = 0  # the page's turn only, not where it puts the origin
    ways: dict[tuple[int, int], int] = {}  # the characters of each direction on the page, unturned
    total = turned = 0
    for block in page.get_text("dict", flags=pymupdf.TEXTFLAGS_TEXT).get("blocks", []):
        for line in block.get("lines", []):
            n = sum(len(s["text"].strip()) for s in line["spans"])
            way = (round(line["dir"][0]), round(line["dir"][1]))
            total += n
            if round((pymupdf.Point(line["dir"]) * shown).x) == 0:  # runs up or down as shown
                turned += n
                ways[way] = ways.get(way, 0) + n
    if not total or turned <= TURNED * total:
        return None
    return _UPRIGHT.get(max(ways, key=ways.__getitem__))


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


__all__ = ["TURNED", "turn_of", "upright"]
