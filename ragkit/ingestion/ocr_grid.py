"""A fully ruled table on a scanned page read cell by cell: one Markdown row per ruled row.

Read as one block, a ruled table's wrapped cells come out line by line across the row ("Electrostatic
discharge | ±8 kV contact | ±30 kV air | For use in a typical" over "(ESD) | ±15 kV air | (<5% relative
| domestic, commercial,"), so no line holds a row. The rules say where each cell is: rules across of one
length, stacked, cut the table into rows, and rules down inside a row cut it into cells. The table is
read once (Tesseract, one block); each word goes to the cell its middle lies in, a cell's lines in
order; a row with cells is a Markdown row, a row across the whole table (a title, a note) a paragraph.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any, NamedTuple

from ragkit.ingestion.ocr_boxes import RULE_SHARE, SIDE_INK, ruled_side, rules_across

#: a rule's pixels are darker than this (0-255 grey): lighter than text's ink, as a table is often ruled
#: in a colour or a thin grey line (a manual's blue rules read as grey 130-190)
RULE_INK = 200
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


def ruled_grids(grey: Any) -> list[Grid]:
    """The page's ruled tables: runs of rules across of one length, each two in a row joined at both ends
    by rules down, where :data:`LEAST_ROWS` rows or more have rules down inside them."""
    dark = grey < RULE_INK
    w = dark.shape[1]
    reach = max(w // 200, 3)
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
    out = pixels.copy()
    x0, y0 = grid.box[0], grid.box[1]
    r = grid.reach
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
