"""Filled rectangles a page draws that no one can see, left out of the edges pdfplumber finds tables by.

A report shades its table's cells in dark blue and sets each cell's text in a second, inner rectangle
of the same blue (its padding); its prose lines each sit on a white rectangle on the white page. On the
page neither shows an edge: a fill shows only where its colour differs from what lies behind it. Their
edges made pdfplumber cut the table into ten columns for four and the header's "Launch:" / "May 21,
2009" into two rows, and read the prose as one-column "tables". A rectangle that is filled, not
stroked, and of the same colour as the filled rectangle drawn before it that holds it (or as the white
page, when none does) is left out; everything else stays as drawn.
"""

from __future__ import annotations

from typing import Any

#: how far (pt) a rectangle may stand out of the one that holds it and still lie on it
_HELD = 0.5
#: colour components this close are one colour
_SAME = 0.02


def rgb(colour: Any) -> tuple[float, float, float] | None:
    """A pdfplumber fill colour as RGB in 0–1 (grey, RGB or CMYK); None when it is no plain colour (a
    pattern, a named space)."""
    if isinstance(colour, int | float):
        return float(colour), float(colour), float(colour)
    if not isinstance(colour, list | tuple) or not all(isinstance(c, int | float) for c in colour):
        return None
    if len(colour) == 1:
        return (float(colour[0]),) * 3  # type: ignore[return-value]
    if len(colour) == 3:
        return float(colour[0]), float(colour[1]), float(colour[2])
    if len(colour) == 4:
        c, m, y, k = (float(v) for v in colour)
        return (1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)
    return None


def _same(a: tuple[float, float, float] | None, b: tuple[float, float, float] | None) -> bool:
    return a is not None and b is not None and all(abs(x - y) <= _SAME for x, y in zip(a, b, strict=True))


def _holds(outer: dict[str, Any], inner: dict[str, Any]) -> bool:
    return (
        outer["x0"] - _HELD <= inner["x0"]
        and inner["x1"] <= outer["x1"] + _HELD
        and outer["top"] - _HELD <= inner["top"]
        and inner["bottom"] <= outer["bottom"] + _HELD
    )


#: the side (pt) of the squares a page is cut into to find what holds a rectangle: a chart of thousands of
#: small bars looks among the few drawn over the same square, not among all drawn before
_CELL = 32.0


def _squares(r: dict[str, Any]) -> list[tuple[int, int]]:
    """The grid squares a rectangle (grown by ``_HELD``) covers."""
    x0, x1 = int((r["x0"] - _HELD) // _CELL), int((r["x1"] + _HELD) // _CELL)
    y0, y1 = int((r["top"] - _HELD) // _CELL), int((r["bottom"] + _HELD) // _CELL)
    return [(x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]


def unseen(rects: list[dict[str, Any]]) -> list[int]:
    """The indices of ``rects`` (pdfplumber's, in drawing order) that show no edge: filled, not stroked,
    and of the colour behind them (the last filled rectangle drawn before that holds them; the page's
    white when none does). A rectangle that holds another covers the square of its top-left corner, so
    only the rectangles drawn over that square are looked at."""
    out: list[int] = []
    drawn_over: dict[tuple[int, int], list[tuple[dict[str, Any], Any]]] = {}  # in drawing order
    for k, r in enumerate(rects):
        if not r.get("fill"):
            continue
        colour = rgb(r.get("non_stroking_color"))
        if not r.get("stroke") and colour is not None:
            corner = (int(r["x0"] // _CELL), int(r["top"] // _CELL))
            held = (c for o, c in reversed(drawn_over.get(corner, [])) if _holds(o, r))
            if _same(colour, next(held, (1.0, 1.0, 1.0))):
                out.append(k)
        for square in _squares(r):
            drawn_over.setdefault(square, []).append((r, colour))
    return out


def boxes(page: Any) -> list[dict[str, Any]]:
    """The page's rectangles: its ``re`` rectangles, then its paths that are one (four corners, level and
    upright sides: a writer may draw a cell as a closed path), each in drawing order."""
    return list(page.rects) + [c for c in page.curves if _rectangular(c.get("pts") or [])]


def _rectangular(pts: list[tuple[float, float]]) -> bool:
    xs, ys = {round(x, 2) for x, _ in pts}, {round(y, 2) for _, y in pts}
    return 4 <= len(pts) <= 6 and len(xs) == 2 and len(ys) == 2


def drawn(page: Any) -> Any:
    """A pdfplumber page without the rectangles :func:`unseen` finds (the page itself when none)."""
    shapes = boxes(page)
    gone = {id(shapes[k]) for k in unseen(shapes)}  # the very objects: a copy drawn twice keeps its first
    if not gone:
        return page
    return page.filter(lambda obj: id(obj) not in gone)
