"""Ruled boxes on a scanned page: a results table or a form drawn inside a frame. Tesseract's page layout
(``--psm 3``) cuts such a box into column blocks and may drop a column whole (a DEXA report's BMD,
T-score and Z-score); read alone as one block (``--psm 6``) the same box gives its rows, "L Spine 47.04
54.62 1.161". Found from the page image itself: two long dark rules across joined by two rules down.
"""

from __future__ import annotations

import re
from typing import Any

#: a pixel darker than this (0-255 grey) is ink
INK = 110
#: a rule across is at least this share of the page's width; a box at least this share of its height
RULE_SHARE = 0.15
BOX_HEIGHT_SHARE = 0.04
#: a box over this share of the page is the page's own frame, not a box on it
MOST_OF_PAGE = 0.6
#: of a box's sides, the share of each side's length that must be ink
SIDE_INK = 0.9
#: a box whose inside is more ink than this is a picture (a photo's dark ground), not text in a frame
MOST_INK = 0.3

#: rules across above which a page is ruled paper, not a page with framed boxes; boxes read per page
MOST_RULES = 200
MOST_BOXES = 8

Box = tuple[int, int, int, int]


def rules_across(dark: Any, least: int) -> list[tuple[int, int, int]]:
    """(row, x0, x1) of every run of ink at least ``least`` pixels long, one per rule (the rows of a
    thick rule merged, kept at its last row)."""
    import numpy as np

    found: list[tuple[int, int, int]] = []
    for y in np.flatnonzero(dark.sum(axis=1) >= least):
        row = np.concatenate(([0], dark[y].astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(row))
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            if b - a >= least:
                found.append((int(y), int(a), int(b)))
    merged: list[tuple[int, int, int]] = []
    for y, a, b in found:  # rows in order: a thick rule's next row overlaps one merged just before
        start = max(len(merged) - 4, 0)
        near = [
            k for k, (my, ma, mb) in enumerate(merged[start:], start) if y - my <= 3 and a < mb and b > ma
        ]
        if near:
            _, ma, mb = merged[near[-1]]
            merged[near[-1]] = (y, min(a, ma), max(b, mb))
        else:
            merged.append((y, a, b))
    return merged


def ruled_side(dark: Any, x: int, y0: int, y1: int, reach: int) -> bool:
    """Whether a rule down runs from ``y0`` to ``y1`` near column ``x`` (within ``reach`` pixels)."""
    band = dark[y0:y1, max(0, x - reach) : x + reach + 1]
    return band.shape[0] > 0 and band.shape[1] > 0 and float(band.mean(axis=0).max()) >= SIDE_INK


def ruled_boxes(grey: Any) -> list[Box]:
    """The ruled boxes (``x0, y0, x1, y1`` in pixels) of a grey page image (a 2-D ``uint8`` array): two
    rules across, one above the other and of the same length, joined at both ends by rules down; a box
    inside another is left out (its frame is the table's, not another box); the :data:`MOST_BOXES`
    largest, none on a page of more than :data:`MOST_RULES` rules across."""
    dark = grey < INK
    h, w = dark.shape
    across = rules_across(dark, max(int(w * RULE_SHARE), 20))
    if len(across) > MOST_RULES:  # ruled paper or a striped picture: no frame to read apart
        return []
    reach = max(w // 200, 3)
    boxes: list[Box] = []
    for i, (ya, a0, a1) in enumerate(across):
        for yb, b0, b1 in across[i + 1 :]:
            if yb - ya < h * BOX_HEIGHT_SHARE or abs(a0 - b0) > 2 * reach or abs(a1 - b1) > 2 * reach:
                continue
            x0, x1 = max(a0, b0), min(a1, b1)
            if ruled_side(dark, x0, ya, yb, reach) and ruled_side(dark, x1, ya, yb, reach):
                if dark[ya + reach : yb - reach, x0 + reach : x1 - reach].mean() <= MOST_INK:
                    boxes.append((x0, ya, x1, yb))
                break  # the nearest rule below that closes the box
    boxes = sorted({b for b in boxes if (b[2] - b[0]) * (b[3] - b[1]) <= MOST_OF_PAGE * w * h})
    outer = [b for b in boxes if not any(o != b and _within(b, o) for o in boxes)]
    return sorted(outer, key=lambda b: -(b[2] - b[0]) * (b[3] - b[1]))[:MOST_BOXES]  # the largest


def _within(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def inside(box: tuple[float, float, float, float], x: float, y: float) -> bool:
    """Whether the point lies in the box."""
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def share_inside(box: tuple[float, ...], region: tuple[float, ...]) -> float:
    """The share of ``box``'s area that lies inside ``region`` (both ``x0, y0, x1, y1``)."""
    w = min(box[2], region[2]) - max(box[0], region[0])
    h = min(box[3], region[3]) - max(box[1], region[1])
    area = (box[2] - box[0]) * (box[3] - box[1])
    return w * h / area if w > 0 and h > 0 and area > 0 else 0.0


#: a gutter between columns: x positions that at most this share of a box's lines cover with a word
GUTTER_LINES = 0.1
#: and at least this many characters wide (a word space is about one)
GUTTER_CHARS = 2.0
#: the least rows, and the least share of them with two cells or more, for a box to read as a table
TABLE_ROWS = 3
TWO_CELL_SHARE = 0.6

_NUMBER = re.compile(r"[-+−]?\$?\d[\d.,:]*%?")

Word = tuple[tuple[int, int, int], int, int, str]  # (block, paragraph, line), left, right, text


def box_rows(words: list[Word]) -> list[list[str]] | None:
    """A box read alone, as a table's rows of cells, or None when its words do not stand in columns.
    Columns are split at gutters (x positions almost no line covers with a word); the lines at the top
    with no cell that is a number are the header, merged into one row cell by cell ("Area" over
    "(cm²)")."""
    lines: dict[tuple[int, int, int], list[tuple[int, int, str]]] = {}
    for key, left, right, text in words:
        lines.setdefault(key, []).append((left, right, text))
    if len(lines) < TABLE_ROWS:
        return None
    width = max(r for _, _, r, _ in words) + 1
    cover = [0] * width
    for ws in lines.values():
        seen = bytearray(width)
        for left, right, _ in ws:
            seen[left:right] = b"\x01" * (right - left)
        cover = [c + s for c, s in zip(cover, seen, strict=True)]
    low = GUTTER_LINES * len(lines)
    chars = sorted((r - left) / max(len(t), 1) for _, left, r, t in words)
    gap = GUTTER_CHARS * chars[len(chars) // 2]  # a column gap, not the space between two words
    edges, open_at = [], None  # open_at: where the current gutter began
    for x in range(width):
        if cover[x] <= low:
            open_at = x if open_at is None else open_at
            continue
        if not edges or (open_at is not None and x - open_at >= gap):
            edges.append(x)
        open_at = None
    if len(edges) < 2:
        return None
    rows = []
    for _, ws in sorted(lines.items()):
        cells = [""] * len(edges)
        for left, right, text in sorted(ws):
            at = max(k for k, e in enumerate(edges) if e <= (left + right) // 2 or k == 0)
            cells[at] = f"{cells[at]} {text}".strip()
        rows.append(cells)
    if sum(sum(bool(c) for c in r) >= 2 for r in rows) < TWO_CELL_SHARE * len(rows):
        return None
    head = 0
    while head < len(rows) - 1 and not any(_NUMBER.fullmatch(c) for c in rows[head]):
        head += 1
    header = [" ".join(r[j] for r in rows[:head] if r[j]) for j in range(len(edges))] if head else []
    return ([header] if header else []) + rows[head:]
