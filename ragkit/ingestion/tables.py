"""Rows of table cells (from pdfplumber or python-docx) -> a GitHub Markdown table."""

from __future__ import annotations

import re

from ragkit.ingestion.hyphenation import unbreak
from ragkit.ingestion.wrapped_rows import drop_leaders, join_wrapped


def table_to_markdown(rows: list[list[str | None]]) -> str:
    """A pdfplumber table (rows of cells) as a GitHub Markdown table; "" if it is not a real table."""
    grouped = _grouped_header(rows)
    if grouped:
        # a label spanning both levels ("Indicators" over "TOTAL | RURAL", "Routes" beside "Dec-2015" over
        # "Pax"; pdfplumber's None under it): in both rows, so the lower row reads whole too
        lower = [
            g if below is None and above is not None and (g or "").strip() else below
            for above, below, g in zip(rows[0], rows[1], grouped, strict=True)
        ]
        rows = [grouped, lower, *rows[2:]]
    rows = _labels_down(rows, 2 if grouped else 1)
    clean = [[_cell(c) for c in row] for row in _explode_stacked_rows(rows)]
    clean = [row for row in clean if any(row)]
    if not clean:
        return ""
    width = max(len(r) for r in clean)
    clean = [r + [""] * (width - len(r)) for r in clean]
    keep = [j for j in range(width) if any(r[j] for r in clean)]
    clean = [[r[j] for j in keep] for r in clean]
    # a first row with one filled cell spanning the table is its title, not its header: put it above
    caption = ""
    if not grouped and len(clean) > 2 and sum(1 for c in clean[0] if c) == 1:
        caption = next(c for c in clean[0] if c) + "\n\n"
        clean = clean[1:]
    if len(clean) < 2 or len(keep) < 2:
        return ""
    lines = ["| " + " | ".join(clean[0]) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(r) + " |" for r in clean[1:]]
    return caption + "\n".join(lines)


def _labels_down(rows: list[list[str | None]], header: int) -> list[list[str | None]]:
    """The body's rows with a row label that spans several rows (pdfplumber's None under it in the first
    column) in each of them: Markdown has no row span, and a row read alone ("| E4 | B | C | D |" under
    ISO 26262's "S3") lost what it belongs to. Only below the ``header`` rows, only a label of one line,
    and only into a row that fills a column the row above fills too (a row split in two halves, its
    label over the first, is no span)."""
    out = [list(r) for r in rows]
    for k in range(header + 1, len(out)):
        row, above = out[k], out[k - 1]
        if row and row[0] is None and above and (above[0] or "").strip() and "\n" not in (above[0] or ""):
            mine = {j for j, c in enumerate(row[1:]) if (c or "").strip()}
            if mine & {j for j, c in enumerate(above[1:]) if (c or "").strip()}:  # rows side by side,
                row[0] = above[0]  # not one row's two halves ("Totals | 9237" over "| 3396 | 371 …")
    return out


def _grouped_header(rows: list[list[str | None]]) -> list[str | None] | None:
    """The first row of a two-level header, spread over the columns it heads, or None when the table
    has none. A cell spanning some columns but not all ("GPS Coordinates" over "Northing" and "Easting",
    pdfplumber's None standing for the columns it spans) groups the labels under it; it is no title. Its
    text goes to each column it spans, and a label that spans both levels ("Site No.", read in the
    lower row) to the upper one too, so each header row reads whole, as the page shows it."""
    if len(rows) < 3 or not rows[0] or len(rows[1]) != len(rows[0]):
        return None
    top = rows[0]
    if None not in top[1:] or not any(c is not None and not c.strip() for c in top):
        return None  # no cell spans another, or none is left empty: no group beside other labels
    spans = [j for j, c in enumerate(top) if c is not None and c.strip()]
    spanned = {
        k
        for j in spans
        for k in range(j, next((n for n in range(j + 1, len(top)) if top[n] is not None), len(top)))
    }
    used = {j for row in rows[1:] for j, c in enumerate(row) if c and c.strip()}
    if len(spans) == 1 and used <= spanned:
        return None  # one cell over every column that holds text: the table's title
    out: list[str | None] = []
    for j, cell in enumerate(top):
        if cell is None:
            out.append(out[-1] if j else None)  # spanned: the text of the cell that spans it
        elif not cell.strip() and (rows[1][j] or "").strip():
            out.append(rows[1][j])  # empty above a label: the label spans both levels
        else:
            out.append(cell)
    return out


#: pdfminer's name for a glyph its font maps to no character ("(cid:2)" for a bullet): not page text
_UNMAPPED = re.compile(r"\(cid:\d+\)")


def _cell(text: str) -> str:
    """A cell's text on one line, its dot leaders ("Parts cost ......") dropped: they draw the eye
    across the page and are no part of the value; so are the names of glyphs no character stands for.
    A word its lines break with a hyphen is joined where the joined word is the plausible one."""
    return " ".join(drop_leaders(_UNMAPPED.sub(" ", unbreak(text))).split()).replace("|", "\\|")


def _explode_stacked_rows(rows: list[list[str | None]]) -> list[list[str]]:
    """Split a row whose non-empty cells all hold k lines into k rows.

    Tables without ruling lines between rows come out of pdfplumber as one row of multi-line cells
    ("Alabama\\nAlaska" beside "18,870\\n209"); re-stacking them keeps each value on its own row. Lines
    that only wrap the line above ("Number of\\nparticipants" beside "Females\\n(%)") stay one row.
    """
    out: list[list[str]] = []
    for n, row in enumerate(rows):
        if not row:
            continue
        cells = [(c or "").strip() for c in row]
        lines = [c.split("\n") if c else [] for c in cells]
        counts = {len(ls) for ls in lines if ls}
        filled = sum(1 for ls in lines if ls)
        if n == 0 and not cells[0] and len(rows) > 2:
            # a header over its corner's empty cell, more rows ruled below it: a label set in lines
            # ("Launch:" over "May 21, 2009") is one cell; stacked rows have a row label in that corner
            out.append(cells)  # its lines are joined as every cell's are (``_cell``)
        elif len(counts) == 1 and filled >= 2 and (k := counts.pop()) > 1:
            stacked = [[ls[i].strip() if ls else "" for ls in lines] for i in range(k)]
            out.extend(row for _, row in join_wrapped(stacked))
        else:
            out.append(cells)
    return out


_DELIMITER = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def count_markdown_tables(text: str) -> int:
    """How many Markdown (pipe) tables ``text`` holds: a row with a ``|`` directly above a delimiter row
    (``|---|:---:|``); tables inside code fences do not count."""
    count, fenced, previous = 0, False, ""
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced, previous = not fenced, ""
            continue
        if not fenced and "|" in previous and _DELIMITER.match(line) and "-" in line:
            count += 1
        previous = line
    return count
