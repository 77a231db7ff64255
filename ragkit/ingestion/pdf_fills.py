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


def _colour_key(colour: tuple[float, float, float]) -> tuple[int, ...]:
    return tuple(round(c / _SAME) for c in colour)


def _at(x: float) -> int:
    return round(x / _HELD)


def stacked(rects: list[dict[str, Any]], skip: set[int] | frozenset[int] = frozenset()) -> list[list[int]]:
    """Runs (two or more, top to bottom) of the indices of ``rects`` that are filled, not stroked, of one
    colour and of the same left and right sides, each starting where the one above ends, and where
    every joint lies inside a rectangle of that colour on each side (the cell's padding): one cell's
    lines, drawn in strips. Rows of cells stacked so have no padding running across them. ``skip`` are
    left out (rectangles no one sees)."""
    fills: list[tuple[int, tuple[int, ...]]] = []
    for k, r in enumerate(rects):
        colour = rgb(r.get("non_stroking_color"))
        if k not in skip and r.get("fill") and not r.get("stroke") and colour is not None:
            fills.append((k, _colour_key(colour)))
    columns: dict[tuple[Any, ...], list[int]] = {}
    ends: dict[tuple[Any, ...], list[int]] = {}  # by colour and right side (or left side), to find padding
    for k, key in fills:
        r = rects[k]
        columns.setdefault((key, _at(r["x0"]), _at(r["x1"])), []).append(k)
        ends.setdefault((key, "x1", _at(r["x1"])), []).append(k)
        ends.setdefault((key, "x0", _at(r["x0"])), []).append(k)

    def padded(key: tuple[int, ...], side: str, x: float, y: float) -> bool:
        near = (k for d in (-1, 0, 1) for k in ends.get((key, side, _at(x) + d), ()))
        return any(
            abs(rects[k][side] - x) <= _HELD
            and rects[k]["top"] < y - _HELD
            and rects[k]["bottom"] > y + _HELD
            for k in near
        )

    runs: list[list[int]] = []
    for (key, _, _), ks in columns.items():
        ks.sort(key=lambda k: rects[k]["top"])
        run = [ks[0]]
        for k in ks[1:]:
            above, r = rects[run[-1]], rects[k]
            y = r["top"]
            if (
                abs(y - above["bottom"]) <= _HELD
                and padded(key, "x1", r["x0"], y)
                and padded(key, "x0", r["x1"], y)
            ):
                run.append(k)
                continue
            runs += [run] if len(run) > 1 else []
            run = [k]
        runs += [run] if len(run) > 1 else []
    return runs


def _joined(rects: list[dict[str, Any]], run: list[int]) -> dict[str, Any]:
    """The one rectangle a run of strips makes (pdfplumber's fields, from its first strip)."""
    first = rects[run[0]]
    top, bottom = first["top"], max(rects[k]["bottom"] for k in run)
    x0, x1 = first["x0"], first["x1"]
    return {
        **first,
        "object_type": "rect",
        "top": top,
        "bottom": bottom,
        "height": bottom - top,
        "y1": first["y1"],
        "y0": first["y1"] - (bottom - top),
        "doctop": first["doctop"],
        "pts": [(x0, top), (x1, top), (x1, bottom), (x0, bottom)],
        "path": None,
    }


def boxes(page: Any) -> list[dict[str, Any]]:
    """The page's rectangles: its ``re`` rectangles, then its paths that are one (four corners, level and
    upright sides: a writer may draw a cell as a closed path), each in drawing order."""
    return list(page.rects) + [c for c in page.curves if _rectangular(c.get("pts") or [])]


def _rectangular(pts: list[tuple[float, float]]) -> bool:
    xs, ys = {round(x, 2) for x, _ in pts}, {round(y, 2) for _, y in pts}
    return 4 <= len(pts) <= 6 and len(xs) == 2 and len(ys) == 2


def drawn(page: Any) -> Any:
    """A pdfplumber page without the rectangles :func:`unseen` finds, and with each run of strips
    :func:`stacked` finds as one rectangle (the page itself when neither is found)."""
    shapes = boxes(page)
    hidden = set(unseen(shapes))
    runs = stacked(shapes, hidden)
    gone = {id(shapes[k]) for k in hidden}  # the very objects: a copy drawn twice keeps its first
    gone |= {id(shapes[k]) for run in runs for k in run}
    if not gone:
        return page
    out = page.filter(lambda obj: id(obj) not in gone)
    if runs:
        objects = dict(out.objects)
        objects["rect"] = [*objects.get("rect", []), *(_joined(shapes, run) for run in runs)]
        out._objects = objects  # as pdfplumber's own ``dedupe_chars`` sets a derived page's objects
    return out
