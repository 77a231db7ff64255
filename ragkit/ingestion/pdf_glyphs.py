"""Glyph boxes put back on their baseline, before pdfplumber reads a table's cells from them.

pdfminer sets a character's box from its font's descent and bounding box. A font whose descriptor
states them wrongly (an ISO standard's subset Cambria: a 10-pt glyph 56 pt tall) puts every box of
that font 20 pt below the line it is printed on, and pdfplumber then read the figures of a ruled
table's "E1" row into no cell at all (the row "S1 | E1 | QM | QM | QM" came out "S1 | E1"). The
character's own text matrix says where its baseline is; a box that does not hold its baseline is set
again from it, the way a well-formed font of that size would set it.

A subscript is set smaller and below its line's baseline, so pdfplumber reads it as a line of its own
under the cell's text: T.4's "a0a1, a1a2" came out "a a , a a" over "0 1 1 2", a datasheet's "0.5C5"
as "0.5C" with the "5" at the cell's end. Each subscript's box is set to the box of the character it
follows, which reads it where it is printed.
"""

from __future__ import annotations

import re
from typing import Any

#: a glyph's share of its size above and below the baseline, for a box set again (a typical roman font)
_ASCENT, _DESCENT = 0.8, 0.2
#: how far (pt) a box may miss its baseline and still hold it (rounding, a font's slack)
_SLACK = 1.0
#: a subscript is at most this share of the size of the character it follows
SCRIPT_SIZE = 0.85
#: and its baseline lies below that character's by this share of that character's size, at least and at most
LOWERED = (0.08, 0.5)
#: and it begins at most this share of that character's size after it ends
SCRIPT_GAP = 0.3


def on_baseline(chars: list[dict[str, Any]]) -> int:
    """Set again, in place, the box of each upright character of ``chars`` (pdfplumber's) that does not
    hold its own baseline; returns how many."""
    n = 0
    for c in chars:
        a, b, cc, d, _, f = c.get("matrix") or (0, 1, 1, 0, 0, 0)
        if b or cc or a <= 0 or d <= 0 or c["y0"] - _SLACK <= f <= c["y1"] + _SLACK:
            continue
        size = float(c.get("size") or d)
        y0, y1 = f - _DESCENT * size, f + _ASCENT * size
        shift = c["y1"] - y1  # pdfplumber's top runs down the page: up by as much as y1 rises
        c["top"], c["bottom"] = c["top"] + shift, c["top"] + shift + (y1 - y0)
        if "doctop" in c:
            c["doctop"] += shift
        c["y0"], c["y1"], c["height"] = y0, y1, y1 - y0
        n += 1
    return n


def _baseline(c: dict[str, Any]) -> float:
    """The character's baseline on the page, in pdfplumber's top-down y."""
    m = c.get("matrix")
    return float(c["bottom"]) if not m else float(c["bottom"]) + float(c["y0"]) - float(m[5])


def _by_end(chars: list[dict[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    """``chars``' upright characters (pdfplumber's) by the whole point where they end: where to look for
    the character right before another."""
    ends: dict[int, list[dict[str, Any]]] = {}
    for c in chars:
        if c.get("upright", True):
            ends.setdefault(int(c["x1"]), []).append(c)
    return ends


def _ending(ends: dict[int, list[dict[str, Any]]], lo: int, hi: int) -> list[dict[str, Any]]:
    """The characters of ``ends`` (:func:`_by_end`) that end at a whole point from ``lo`` up to ``hi``."""
    return [b for x in range(lo, hi) for b in ends.get(x, ())]


def subscripts_inline(chars: list[dict[str, Any]]) -> int:
    """Set again, in place, the box of each subscript among ``chars`` (pdfplumber's, upright: a character
    at most ``SCRIPT_SIZE`` of the size of the one it follows, its baseline ``LOWERED`` below) to the box
    of the character it follows, so that it is read on that character's line; returns how many."""
    ends = _by_end(chars)
    n = 0
    for c in sorted((c for c in chars if c.get("upright", True)), key=lambda c: c["x0"]):
        size, base = float(c["size"]), _baseline(c)
        near = [
            b
            for b in _ending(ends, int(c["x0"] - SCRIPT_GAP * 2 * size) - 1, int(c["x0"]) + 1)
            if b is not c and size <= SCRIPT_SIZE * b["size"]
            and -1.0 <= c["x0"] - b["x1"] <= SCRIPT_GAP * b["size"]
            and LOWERED[0] * b["size"] <= base - _baseline(b) <= LOWERED[1] * b["size"]
        ]  # fmt: skip
        if not near:
            continue
        b = max(near, key=lambda b: b["x1"])
        shift = b["top"] - c["top"]
        c["top"], c["bottom"], c["y0"], c["y1"] = b["top"], b["bottom"], b["y0"], b["y1"]
        if "doctop" in c:
            c["doctop"] += shift
        n += 1
    return n


#: a raised number is at most this share of the size of the text it follows, and its baseline lies above
#: that text's by at least this share of that text's size
RAISED_SIZE, RAISED_BY = 0.8, 0.15
#: digits and signs as their superscript characters (a raised "10⁶", a footnote's "¹⁴")
RAISED = str.maketrans("0123456789+-=()", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾")


def raised_inline(chars: list[dict[str, Any]]) -> int:
    """Write, in place, each raised footnote number among ``chars`` (pdfplumber's, upright: digits right
    after a letter or mark at most ``RAISED_SIZE`` of its size, the baseline ``RAISED_BY`` of it above)
    as superscript digits, as the layout parser writes a flagged one ("Level¹⁴ (%)", not "Level14 (%)",
    a number the page does not print); returns how many digits."""
    ends = _by_end(chars)
    digits = [
        c for c in chars if c.get("upright", True) and len(c["text"]) == 1 and c["text"] in "0123456789"
    ]
    n = 0
    for c in sorted(digits, key=lambda c: c["x0"]):
        size, base = float(c["size"]), _baseline(c)
        before = [
            b
            for b in _ending(ends, int(c["x0"] - 2 * SCRIPT_GAP * size / RAISED_SIZE) - 1, int(c["x0"]) + 2)
            if b is not c and -1.0 <= c["x0"] - b["x1"] <= SCRIPT_GAP * b["size"]
            and abs(b["top"] - c["top"]) <= b["size"]
        ]  # fmt: skip
        b = max(before, key=lambda b: b["x1"], default=None)
        if b is None:
            continue
        goes_on = (  # the next digit of a raised number
            len(b["text"]) == 1 and b["text"] in "⁰¹²³⁴⁵⁶⁷⁸⁹"
            and abs(float(b["size"]) - size) < 0.1 and abs(_baseline(b) - base) < 0.5
        )  # fmt: skip
        starts = (
            not b["text"].isdigit() and b["text"].strip() and size <= RAISED_SIZE * float(b["size"])
            and _baseline(b) - base >= RAISED_BY * float(b["size"])
        )  # fmt: skip
        if goes_on or starts:
            c["text"], n = c["text"].translate(RAISED), n + 1
    return n


#: within this share of the font size, two glyph edges meet (a space between them has no room)
NO_ROOM = 0.05


def no_room(before_x1: float, space: tuple[float, float], after_x0: float, size: float) -> bool:
    """Whether a space character (its x0, x1) between two glyphs takes no room on the page: the glyphs
    each side of it meet, and it has no room of its own (the next glyph starts where it starts, or it ends
    inside the glyph before it). A form writes "15", " ", "a" with the "a" set back over the space."""
    near = NO_ROOM * size
    meet = after_x0 - before_x1 <= near
    return meet and (after_x0 <= space[0] + near or space[1] <= before_x1 + near)


def roomless_spaces(chars: list[dict[str, Any]]) -> set[int]:
    """The ``id`` of each space among ``chars`` (pdfplumber's, in the order the page writes them) that
    takes no room (:func:`no_room`) between two letters or digits on its line, or that is set over a
    glyph of its line (:func:`overlaid_spaces`)."""
    out = overlaid_spaces(chars)
    for a, s, z in zip(chars, chars[1:], chars[2:], strict=False):
        if s["text"] != " " or not (a["text"].isalnum() and z["text"].isalnum()):
            continue
        if abs(a["top"] - z["top"]) <= _SLACK and no_room(a["x1"], (s["x0"], s["x1"]), z["x0"], s["size"]):
            out.add(id(s))
    return out


def overlaid_spaces(chars: list[dict[str, Any]]) -> set[int]:
    """The ``id`` of each space whose middle lies inside a glyph of its line: a spreadsheet's export pads
    a cell's text with spaces that run on over the next cell's ("06/22/2015" and five spaces, over
    "03/25/2016"), and read in order of place they cut its words apart ("0 3 / 2 5 / 2 0 16")."""
    glyphs: dict[int, list[tuple[float, float]]] = {}
    for c in chars:
        if c["text"].strip() and c.get("upright", True):
            glyphs.setdefault(round(c["top"]), []).append((c["x0"], c["x1"]))
    out = set()
    for s in chars:
        if s["text"] != " " or not s.get("upright", True):
            continue
        mid = (s["x0"] + s["x1"]) / 2
        line = (g for top in range(round(s["top"]) - 1, round(s["top"]) + 2) for g in glyphs.get(top, ()))
        if any(x0 + _SLACK / 4 < mid < x1 - _SLACK / 4 for x0, x1 in line):
            out.add(id(s))
    return out


_VULGAR = {"1/2": "½", "1/3": "⅓", "2/3": "⅔", "1/4": "¼", "3/4": "¾", "1/8": "⅛", "3/8": "⅜",
           "5/8": "⅝", "7/8": "⅞"}  # fmt: skip
#: a fraction set as raised numerator, slash and a denominator ("48¹/2", "48¹ /2"): one character, as shown
_SET_FRACTION = re.compile(r"(?<=\d)([¹²³⁵⁷]) ?[/⁄] ?([2348])(?!\d)")
_UNRAISE = str.maketrans("¹²³⁵⁷", "12357")


def fractions(text: str) -> str:
    """A fraction set from a raised numerator and a denominator as its one character ("48¹/2" -> "48½")."""
    return _SET_FRACTION.sub(
        lambda m: _VULGAR.get(f"{m.group(1).translate(_UNRAISE)}/{m.group(2)}", m.group(0)), text
    )
