"""A fully ruled table on a scanned page read cell by cell: one Markdown row per ruled row.

Read as one block, a ruled table's wrapped cells come out line by line across the row ("Electrostatic
discharge | ±8 kV contact | ±30 kV air | For use in a typical" over "(ESD) | ±15 kV air | (<5% relative
| domestic, commercial,"), so no line holds a row. The rules say where each cell is: rules across of one
length, stacked, cut the table into rows, and rules down inside a row cut it into cells. The table is
read once (Tesseract, one block); each word goes to the cell its middle lies in, a cell's lines in
order; a row with cells is a Markdown row, a row across the whole table (a title, a note) a paragraph.
A shaded fill (a header row's light-blue band) is painted white first: its grey is darker than a
light rule's, and the band was taken for one thick rule, its row left out of the grid.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, NamedTuple

from ragkit.ingestion.ocr_boxes import RULE_SHARE, SIDE_INK, ruled_side, rules_across

#: a rule's pixels are darker than this (0-255 grey): lighter than text's ink, as a table is often ruled
#: in a colour or a thin grey line (a manual's blue rules read as grey 130-190)
RULE_INK = 200
#: a shaded fill's pixels are lighter than this and darker than :data:`RULE_INK` (text's ink is darker)
FILL_INK = 110
#: and lie in a square of this many reaches a side of such pixels (no rule or letter holds one)
FILL_SIDE = 2
#: the greys of one fill lie within this many levels (a scan's noise; a rule over it is darker)
FILL_SPREAD = 24
#: a grid has at least this many rows of two cells or more
LEAST_ROWS = 2
#: rules across of one table start and end within this many pixels of each other (times the reach)
ALIGN = 2


class Grid(NamedTuple):
    """A ruled table: its box (x0, y0, x1, y1 in pixels), the y of each rule across (top to bottom), and
    for each row the x of the rules down inside it."""

    box: tuple[int, int, int, int]
    rules: list[int]
    downs: list[list[int]]
    reach: int  # a rule's reach either side of where it was found, in pixels


def _downs(dark: Any, x0: int, x1: int, y0: int, y1: int, reach: int) -> list[int]:
    """The x of each rule down from ``y0`` to ``y1`` strictly inside ``x0 .. x1``."""
    band = dark[y0 + reach : y1 - reach + 1, x0 + 2 * reach : x1 - 2 * reach]
    if band.shape[0] < 3 or band.shape[1] < 1:
        return []
    inked = band.mean(axis=0) >= SIDE_INK
    out: list[int] = []
    for x in range(band.shape[1]):
        if inked[x] and (not out or x + x0 + 2 * reach - out[-1] > 2 * reach):
            out.append(x + x0 + 2 * reach)
    return out


def _box_sums(a: Any, k: int) -> Any:
    """The sum of each ``k`` by ``k`` window of the 2-D array ``a``, by the window's top left corner."""
    import numpy as np

    c = np.pad(a.astype(np.int32).cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    return c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]


def _blocks(mask: Any, side: int) -> Any:
    """Whether each ``side`` by ``side`` block of ``mask`` (from its top left, whole blocks only) is all
    set: a square of twice the side that is all set holds one whole block."""
    h, w = mask.shape[0] // side * side, mask.shape[1] // side * side
    return mask[:h, :w].reshape(h // side, side, w // side, side).all(axis=(1, 3))


def unshaded(grey: Any, reach: int) -> Any:
    """A copy of ``grey`` (a 2-D ``uint8`` image) with its shaded fills painted white. A fill is a square
    :data:`FILL_SIDE` reaches a side of pixels of one grey (within :data:`FILL_SPREAD`) between
    :data:`FILL_INK` and :data:`RULE_INK`; the pixels of that grey within a side of it are the fill's too
    (between a cell's words, around its letters). A rule over the fill, of another grey, stays."""
    import numpy as np

    k = FILL_SIDE * reach
    if min(grey.shape) < k:
        return grey
    seen = np.argwhere(_blocks((grey >= FILL_INK) & (grey < RULE_INK), k // 2))
    if not len(seen):  # no fill can be (most pages): a cheap look first
        return grey
    (b0, a0), (b1, a1) = seen.min(axis=0) * (k // 2), (seen.max(axis=0) + 1) * (k // 2)
    y0, x0 = max(b0 - 2 * k, 0), max(a0 - 2 * k, 0)  # only the part that holds a fill is searched
    part = grey[y0 : b1 + 2 * k, x0 : a1 + 2 * k]
    fill = np.zeros(part.shape, bool)
    for low in range(FILL_INK, RULE_INK, FILL_SPREAD // 3):
        one = (part >= low) & (part < low + FILL_SPREAD)
        if not _blocks(one, k // 2).any():
            continue
        full = _box_sums(one, k) == k * k  # a window of this grey at each top left
        if full.any():
            square = np.pad(_box_sums(np.pad(full, k - 1), k) > 0, k)  # the windows' pixels, padded
            fill |= (_box_sums(square, 2 * k + 1) > 0) & one
    out = grey.copy()
    out[y0 : y0 + part.shape[0], x0 : x0 + part.shape[1]][fill] = 255
    return out


def ruled_grids(grey: Any) -> list[Grid]:
    """The page's ruled tables: runs of rules across of one length, each two in a row joined at both ends
    by rules down, where :data:`LEAST_ROWS` rows or more have rules down inside them."""
    w = grey.shape[1]
    reach = max(w // 200, 3)
    dark = unshaded(grey, reach) < RULE_INK
    across = sorted(rules_across(dark, max(int(w * RULE_SHARE), 20)))
    out: list[Grid] = []
    used: set[int] = set()
    for i, (ya, a0, a1) in enumerate(across):
        if i in used:
            continue
        rules, last = [ya], (ya, a0, a1)
        for j in range(i + 1, len(across)):
            yb, b0, b1 = across[j]
            same = abs(a0 - b0) <= ALIGN * reach and abs(a1 - b1) <= ALIGN * reach
            if not same or yb - last[0] <= 2 * reach:
                continue
            x0, x1 = max(a0, b0), min(a1, b1)
            if not (ruled_side(dark, x0, last[0], yb, reach) and ruled_side(dark, x1, last[0], yb, reach)):
                break
            rules.append(yb)
            used.add(j)
            last = (yb, b0, b1)
        if len(rules) < 2:
            continue
        downs = [_downs(dark, a0, a1, top, bottom, reach) for top, bottom in pairwise(rules)]
        if sum(len(d) >= 1 for d in downs) >= LEAST_ROWS:
            out.append(Grid((a0, rules[0], a1, rules[-1]), rules, downs, reach))
    return out


def unruled(pixels: Any, grid: Grid) -> Any:
    """A copy of ``pixels`` (the grey image of the grid's box alone) with its rules painted out: read as one
    block with its rules in, Tesseract reads a rule down as "|" and may lose the rows after the first."""
    r = grid.reach
    out = unshaded(pixels, r).copy()
    x0, y0 = grid.box[0], grid.box[1]
    for y in grid.rules:
        out[max(y - y0 - 3 * r, 0) : y - y0 + r + 1, :] = 255  # a thick rule is found at its last row
    out[:, : 2 * r] = 255
    out[:, max(out.shape[1] - 2 * r, 0) :] = 255
    for (top, bottom), downs in zip(pairwise(grid.rules), grid.downs, strict=True):
        for x in downs:
            out[top - y0 : bottom - y0, max(x - x0 - r, 0) : x - x0 + 2 * r + 1] = 255
    return out


Word = tuple[float, float, str]  # the middle of a word's box (x, y) in page pixels, and its text


def _joined(lines: list[str]) -> str:
    """A cell's lines as one text: a line that ends on "/" goes straight on ("transient/" "burst")."""
    out = ""
    for line in lines:
        out += ("" if not out or out.endswith("/") else " ") + line
    return out


def grid_text(grid: Grid, words: list[tuple[Word, tuple[int, int, int]]]) -> str:
    """The table's reading from its words (each with its line's key, in Tesseract's reading order): each
    row of cells a Markdown row (consecutive rows of as many cells one table, its first row the header),
    a row without rules down a paragraph."""
    blocks: list[list[str]] = []
    width = None
    for (top, bottom), downs in zip(pairwise(grid.rules), grid.downs, strict=True):
        edges = [grid.box[0], *downs, grid.box[2]]
        cells: list[dict[tuple[int, int, int], list[str]]] = [{} for _ in range(len(edges) - 1)]
        for (x, y, text), line in words:
            if top <= y < bottom and text.strip("|"):  # a rule down read as a glyph is no word
                at = max(k for k in range(len(edges) - 1) if edges[k] <= x or k == 0)
                cells[at].setdefault(line, []).append(text)
        texts = [_joined([" ".join(ws) for _, ws in sorted(c.items())]) for c in cells]
        if not any(texts):
            continue
        if len(texts) == 1:
            blocks.append([texts[0]])
            width = None
            continue
        row = "| " + " | ".join(t.replace("|", "\\|") for t in texts) + " |"
        if width == len(texts):
            blocks[-1].append(row)
        else:
            blocks.append([row, "|" + "---|" * len(texts)])
            width = len(texts)
    return "\n\n".join("\n".join(b) for b in blocks)


__all__ = ["Grid", "grid_text", "ruled_grids", "unruled"]
