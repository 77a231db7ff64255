"""The text inside a picture: marked apart from the page's text, its words in reading order (text set
side by side read one column after the other).

The layout engine hands a picture's text over as lines across the whole picture, so two sub-captions set
side by side under a figure's panels ("(a) Example of an artificial neuron unit. …" beside "(b) A
visualization of a simple feed-forward neural network. …") were read line by line across both, each
sentence cut into pieces of the other. Where two lines or more leave a wide gap (a font size or more)
at one place, and the lines on each side hold words (three lines of three words or more), those lines
are read left part first, then right part; a line whose text crosses the gap keeps the others in
order. A chart's tick labels or a grid of values have gaps in step too, but no lines of words beside
them: they read as before.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Any

#: the marks around a picture's text in the engine's Markdown (taken out into page metadata)
PICTURE_START, PICTURE_END = "\ue000", "\ue001"
_PICTURE = re.compile(f"{PICTURE_START}([^{PICTURE_END}]*){PICTURE_END}")

#: a gap between two spans of a line at least this many font sizes wide may part two columns
COLUMN_GAP = 1.0
#: the lines of words (this many words or more) each side of a gap needs for the lines to be two columns
PROSE_LINES = 3
PROSE_WORDS = 3

Piece = list[dict[str, Any]]  # a line's spans, left to right


def _spans(line: dict[str, Any]) -> Piece:
    return sorted((s for s in line["spans"] if s["text"].strip()), key=lambda s: s["bbox"][0])


def _gaps(piece: Piece) -> list[tuple[float, float]]:
    """The wide gaps between a piece's spans, as (left, right) x."""
    return [
        (a["bbox"][2], b["bbox"][0])
        for a, b in pairwise(piece)
        if b["bbox"][0] - a["bbox"][2] >= COLUMN_GAP * max(a.get("size", 0.0), b.get("size", 0.0), 1.0)
    ]


def _gutter(pieces: list[Piece]) -> tuple[float, float] | None:
    """The x range of a gap that two pieces or more leave at one place (what their gaps share)."""
    gaps = [(n, g) for n, piece in enumerate(pieces) for g in _gaps(piece)]
    best: tuple[int, float, float] | None = None
    for _, (lo, hi) in gaps:
        meet = [(n, a, b) for n, (a, b) in gaps if max(lo, a) < min(hi, b)]
        left, right = max(max(lo, a) for _, a, _ in meet), min(min(hi, b) for *_, b in meet)
        lines = len({n for n, *_ in meet})
        if lines >= 2 and left < right and (best is None or lines > best[0]):
            best = (lines, left, right)
    return None if best is None else best[1:]


def _cut(pieces: list[Piece], left: float, right: float) -> float:
    """Where in the gutter ``left``..``right`` to part the columns: the place fewest spans run across (a
    first line may run up to the right column, "… unit.(b)" then "A visualization …"), nearest its middle."""
    edges = sorted(
        {
            left,
            right,
            *(x for p in pieces for s in p for x in (s["bbox"][0], s["bbox"][2]) if left < x < right),
        }
    )
    places = [(a + b) / 2 for a, b in pairwise(edges)] or [(left + right) / 2]
    middle = (left + right) / 2

    def across(x: float) -> int:
        return sum(1 for p in pieces for s in p if s["bbox"][0] < x < s["bbox"][2])

    return min(places, key=lambda x: (across(x), abs(x - middle)))


def _prose(pieces: list[Piece]) -> bool:
    words = [sum(len(s["text"].split()) for s in piece) for piece in pieces]
    return sum(1 for w in words if w >= PROSE_WORDS) >= PROSE_LINES


def reading_order(pieces: list[Piece]) -> list[Piece]:
    """``pieces`` (a picture's lines, top to bottom) in reading order: where they stand in two columns
    of words, the left column's parts first, then the right's (each read the same way again)."""
    gutter = _gutter(pieces)
    if gutter is None:
        return pieces
    cut = _cut(pieces, *gutter)
    whole = [all(s["bbox"][2] <= cut or s["bbox"][0] >= cut for s in piece) for piece in pieces]
    crossing = [n for n, piece in enumerate(pieces) if any(a < cut < b for a, b in _gaps(piece))]
    if not crossing:
        return pieces
    first, last = crossing[0], crossing[-1]
    while first > 0 and whole[first - 1]:
        first -= 1
    while last + 1 < len(pieces) and whole[last + 1]:
        last += 1
    if not all(whole[first : last + 1]):
        return pieces  # a line's text runs across the gap: no two columns there
    run = pieces[first : last + 1]
    left = [p for p in ([s for s in piece if s["bbox"][2] <= cut] for piece in run) if p]
    right = [p for p in ([s for s in piece if s["bbox"][0] >= cut] for piece in run) if p]
    if not (_prose(left) and _prose(right)):
        return pieces
    return [*pieces[:first], *reading_order(left), *reading_order(right), *pieces[last + 1 :]]


def picture_lines(textlines: list[dict[str, Any]]) -> list[str]:
    """The text of a picture's lines (the layout engine's, each with its spans) in reading order: as the
    engine gives them unless they stand in columns of words."""
    given = [p for p in (_spans(tl) for tl in textlines) if p]
    down = sorted(given, key=lambda p: min(s["bbox"][1] for s in p))
    read = reading_order(down)
    return [" ".join(s["text"].strip() for s in piece) for piece in (given if read is down else read)]


__all__ = ["COLUMN_GAP", "PICTURE_END", "PICTURE_START", "PROSE_LINES", "PROSE_WORDS", "picture_lines",
           "picture_spans", "picture_text", "reading_order"]  # fmt: skip


def picture_text(textlines: list[dict[str, Any]], ignore_code: bool = False, clip: Any = None) -> str:
    """Text written inside a picture (axis labels, a diagram's words): its lines as one paragraph between
    the picture marks, which :func:`picture_spans` removes and records; columns of words side by side
    (two sub-captions) one after the other (:mod:`ragkit.ingestion.pdf_picture`)."""
    if not textlines:
        return "\n"
    text = " ".join(picture_lines(textlines))
    return f"{PICTURE_START}{' '.join(text.split())}{PICTURE_END}\n\n"


def picture_spans(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` without the picture marks, and the (start, end) of each picture's text in it."""
    spans: list[tuple[int, int]] = []
    out, last = [], 0
    for m in _PICTURE.finditer(text):
        out.append(text[last : m.start()])
        start = sum(len(x) for x in out)
        out.append(m.group(1))
        if m.group(1):
            spans.append((start, start + len(m.group(1))))
        last = m.end()
    out.append(text[last:])
    return "".join(out).replace(PICTURE_START, "").replace(PICTURE_END, ""), spans
