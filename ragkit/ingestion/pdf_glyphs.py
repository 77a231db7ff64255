"""Glyph boxes put back on their baseline, before pdfplumber reads a table's cells from them.

pdfminer sets a character's box from its font's descent and bounding box. A font whose descriptor
states them wrongly (an ISO standard's subset Cambria: a 10-pt glyph 56 pt tall) puts every box of
that font 20 pt below the line it is printed on, and pdfplumber then read the figures of a ruled
table's "E1" row into no cell at all (the row "S1 | E1 | QM | QM | QM" came out "S1 | E1"). The
character's own text matrix says where its baseline is; a box that does not hold its baseline is set
again from it, the way a well-formed font of that size would set it.
"""

from __future__ import annotations

from typing import Any

#: a glyph's share of its size above and below the baseline, for a box set again (a typical roman font)
_ASCENT, _DESCENT = 0.8, 0.2
#: how far (pt) a box may miss its baseline and still hold it (rounding, a font's slack)
_SLACK = 1.0


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
