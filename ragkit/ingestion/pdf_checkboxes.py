"""A form's grid of check-box items read as the lists it is, not as a table.

The layout engine takes two columns of check-box items ("☐ Petitioned for court order / CHIPS (child in
need of" over "protection or services)", beside "☐ Supervised visitation") for a table whose rows are the
lines, or for a paragraph of them run together: an item that wraps is cut in two, and its second line is
glued to the next column's item. On a form each item starts at its drawn box; the lines after it, at the
same left edge and up to the next box, are its rest. Where the engine's boxes over a grid of check boxes
hold nothing but those items, they are read as one task-list item per box ("- [x] …" where the box is
ticked, "- [ ] …" where it is empty), column by column (each column is a list the form gives).
"""

from __future__ import annotations

from typing import Any

from ragkit.ingestion.ocr_boxes import inside

Box = tuple[float, float, float, float]
Line = tuple[Box, str]

#: a check box's side in points (a 9-pt square beside 8-pt type)
SIDE = (5.0, 14.0)
#: an item's text starts within this many points right of its box
GAP = 14.0
#: a grid has this many boxes at least, each within :data:`STEP` box sides below the one above
LEAST = 3
STEP = 4.0


def check_boxes(drawings: list[dict[str, Any]]) -> list[Box]:
    """The drawn check boxes among a page's ``drawings`` (PyMuPDF's ``get_cdrawings``): small squares
    (stroked or filled), each once, top to bottom."""
    out: list[Box] = []
    for drawing in drawings:
        x0, y0, x1, y1 = drawing["rect"]
        square = SIDE[0] <= x1 - x0 <= SIDE[1] and abs((x1 - x0) - (y1 - y0)) <= 1.5
        if not square or not any(item[0] in ("re", "qu") for item in drawing["items"]):
            continue
        if not any(abs(x0 - o[0]) < 1 and abs(y0 - o[1]) < 1 for o in out):
            out.append((x0, y0, x1, y1))
    return sorted(out, key=lambda b: (b[1], b[0]))


#: a character set in a box that ticks it
_TICKS = frozenset("xX\u2713\u2714\u2717\u2718\u25a0\u25cf")


def ticked(drawings: list[dict[str, Any]], words: list[tuple[Any, ...]], boxes: list[Box]) -> set[Box]:
    """The ``boxes`` with a mark inside: drawn strokes (an X, a check mark) among ``drawings``, or a tick
    character among ``words`` (PyMuPDF's ``get_text("words")``)."""
    out: set[Box] = set()
    for drawing in drawings:
        x0, y0, x1, y1 = drawing["rect"]
        if not any(item[0] in ("l", "c") for item in drawing["items"]):
            continue
        for box in boxes:
            if box[0] - 1 <= x0 and x1 <= box[2] + 1 and box[1] - 1 <= y0 and y1 <= box[3] + 1:
                out.add(box)
    for x0, y0, x1, y1, word, *_ in words:
        if word in _TICKS:
            out |= {b for b in boxes if _middle_in((x0, y0, x1, y1), b)}
    return out


def grids(boxes: list[Box]) -> list[list[Box]]:
    """``boxes`` (top to bottom) in groups that follow each other down the page, of :data:`LEAST` or more."""
    groups: list[list[Box]] = []
    for box in boxes:
        if groups and box[1] - max(b[3] for b in groups[-1]) <= STEP * (box[3] - box[1]):
            groups[-1].append(box)
        else:
            groups.append([box])
    return [g for g in groups if len(g) >= LEAST]


def page_lines(page: Any, boxes: list[Box]) -> list[Line]:
    """The page's level lines of text, top to bottom, without the characters set inside ``boxes`` (a
    box's tick is its mark, no text of the line it stands in: "X Referral to services")."""
    out = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            if abs(line["dir"][1]) > 0.01:
                continue
            chars = [
                c
                for s in line["spans"]
                for c in s["chars"]
                if not any(_middle_in(c["bbox"], b) for b in boxes)
            ]
            text = " ".join("".join(c["c"] for c in chars).split())
            if text:
                first = next(c for c in chars if not c["c"].isspace())
                out.append(((first["bbox"][0], *line["bbox"][1:]), text))
    return sorted(out, key=lambda x: (x[0][1], x[0][0]))  # type: ignore[return-value]


def grid_items(grid: list[Box], lines: list[Line]) -> tuple[dict[int, list[int]], dict[int, Box]] | None:
    """For each box of ``grid``, the indices in ``lines`` of its item: the line right of it, then the lines
    under that one at its left edge, each close under the last, up to a line another box begins; None
    when a box has no line right of it (a label left of its box: "Yes ☐"). Both keyed by the item's
    first line: its lines, and its box."""
    firsts: dict[int, Box] = {}
    for box in grid:
        mid = (box[1] + box[3]) / 2
        at = [
            n for n, ((x0, y0, _, y1), _) in enumerate(lines)
            if box[2] - 1 <= x0 <= box[2] + GAP and y0 - 2 <= mid <= y1 + 2 and n not in firsts
        ]  # fmt: skip
        if not at:
            return None
        firsts[min(at, key=lambda n: lines[n][0][0])] = box
    items = {n: [n] for n in firsts}
    bottom = max(b[3] for b in grid) + 4 * max(b[3] - b[1] for b in grid)
    for n, ((x0, y0, _, _), _) in enumerate(lines):
        if n in firsts or y0 > bottom or y0 < grid[0][1] - 2:
            continue
        for m, mine in items.items():
            last = lines[mine[-1]][0]
            height = lines[m][0][3] - lines[m][0][1]
            if abs(lines[m][0][0] - x0) <= 3 and -2 <= y0 - last[3] <= 0.8 * height:
                mine.append(n)
                break
    return items, firsts


def as_list(items: dict[int, list[int]], lines: list[Line], ticks: set[int] = frozenset()) -> str:
    """The items as Markdown task-list items ("- [x] …" for those in ``ticks``, by first line, "- [ ] …"
    for the others), column by column, each column top to bottom."""
    columns: list[list[int]] = []
    for m in sorted(items, key=lambda m: (lines[m][0][0], lines[m][0][1])):
        if columns and abs(lines[columns[-1][0]][0][0] - lines[m][0][0]) <= 3:
            columns[-1].append(m)
        else:
            columns.append([m])
    out = []
    for column in columns:
        for m in sorted(column, key=lambda m: lines[m][0][1]):
            text = ""
            for n in items[m]:
                part = lines[n][1]
                text = f"{text}{part}" if text.endswith("-") else f"{text} {part}"  # "well-" | "known"
            out.append(f"- [{'x' if m in ticks else ' '}] {text.strip()}")
    return "\n".join(out)


def _middle_in(box: Box, region: Box) -> bool:
    return inside(region, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def grid_edits(page: Any, regions: list[Box]) -> list[tuple[int, str]]:
    """For each grid of check boxes on ``page`` whose items the engine's ``regions`` (its boxes of text,
    lists and tables) hold and nothing else: (the first such region's index, the items as a list) and
    (index, "") for the others."""
    drawings = page.get_cdrawings()  # read once: the boxes and their ticks
    boxes = check_boxes(drawings)
    if len(boxes) < LEAST:
        return []
    lines = page_lines(page, boxes)
    words = page.get_text("words")
    out: list[tuple[int, str]] = []
    for grid in grids(boxes):
        found = grid_items(grid, lines)
        if found is None:
            continue
        items, box_of = found
        mine = {n for lines_of in items.values() for n in lines_of}
        over = [k for k, r in enumerate(regions) if any(_middle_in(lines[n][0], r) for n in mine)]
        held = {n for k in over for n, (box, _) in enumerate(lines) if _middle_in(box, regions[k])}
        if not over or held != mine:
            continue  # an item the engine read elsewhere, or a line in its boxes that is no item
        marked = ticked(drawings, words, grid)
        ticks = {m for m in items if box_of[m] in marked}
        out += [(over[0], as_list(items, lines, ticks)), *((k, "") for k in over[1:])]
    return out
