"""Table rows that are only the second line of the row above, joined back to it.

A PDF table has no row marks of its own: the layout engine (and pdfplumber, splitting cells stacked in
one row) reads a cell whose text wraps onto a second line as a row of its own holding the continuation
("| Bronchitis/ear or | 12 | 3% |" over "| sinus infection |  |  |"), so the row's cells no longer stand
on one line, which is how a quoted row is found. A row is taken for a continuation only when every cell
it fills goes on with the text cell above it (its text starts in lower case or with "(", or the cell
above stops short on "of", "and", a comma…), none of those is mostly figures and none sits under a
figure, and the row above does not itself start in lower case, nor does the row below unless this one
stops short (a list of lower-case terms is rows, not one wrapped cell). A cell's words, no figure
among them, may ride on the line where another cell of the row, cut mid-way, goes on: a label's last
word ("VAS" beside "scale's ends"), a description's next sentence beside a label cut mid-way ("Travel
and" over "miscellaneous expenses"). A sub-row with an empty first cell beside figures stays a row; a
sub-row whose first cell holds the wrapped label of the row above ("| sinus infection | Percentage |
21.1% |", when other rows read "|  | Percentage | …|") gives that label back and stays a row.
"""

from __future__ import annotations

import re
from itertools import pairwise

#: a cell left open: its last word needs the next ("Disposable income per capita in", "ear or", "Total,")
_OPEN = re.compile(
    r"(?:[,/&(\-–]|\b(?:a|an|and|as|at|by|for|from|in|including|of|on|or|per|than|the|to|with))$", re.I
)
_LETTER = re.compile(r"[^\W\d_]")
#: a first word in lower case with a capital inside: a name ("iPhone", "mRNA", "pH"), not a wrapped line
_NAME = re.compile(r"[a-z]+[A-Z]")
_DIGIT = re.compile(r"\d")
#: a unit in brackets ("(%)", "($)"), no figure in it
_UNIT = re.compile(r"^\([^\d()]{1,8}\)$")
#: a table's note under its last row: a mark, then a sentence ("a See 6.4.3.11.", "* Estimated"), or a
#: label with its note's number ("(1) Net sales by category:"): no wrapped line of the cell above
_NOTE_MARK = re.compile(r"^(?:[a-z]|[*\u2020\u2021\u00a7]+|\(\d{1,2}\))\s+[A-Z]")
#: a word broken at its hyphen ("Non-" over "Forcible"): joined without a space
_BROKEN = re.compile(r"[^\W\d_]-$")


def join_cell(above: str, cell: str) -> str:
    """A cell's text and its wrapped line, as one."""
    if not cell:
        return above
    return f"{above}{cell}" if _BROKEN.search(above) else f"{above} {cell}".strip()


def goes_on(above: str, cell: str) -> bool:
    """Whether ``cell`` reads as the rest of ``above`` (its text wrapped onto the next line)."""
    if not above or not _LETTER.search(above):
        return False  # nothing to go on from, or a value (a figure, a dash)
    if _UNIT.match(cell):
        return True  # "Females" over "(%)"
    if not _LETTER.search(cell) or _NAME.match(cell) or _NOTE_MARK.match(cell):
        return False
    words = cell.split()
    if 2 * sum(1 for w in words if _DIGIT.search(w) or not _LETTER.search(w)) > len(words):
        return False  # mostly figures and dashes: a row run into one cell ("hungary 99.8 0.2 - 6,575")
    return cell[0].islower() or cell[0] == "(" or _OPEN.search(above) is not None


def continues(above: list[str], row: list[str], after: list[str] | None = None) -> bool:
    """Whether ``row`` is the wrapped second line of the row ``above`` (cells already stripped); not when
    the row ``after`` it starts in lower case too and ``row`` leaves nothing open (a list of lower-case
    terms under their header)."""
    if len(above) != len(row) or not any(row):
        return False
    first = next((c for c in above if c), "")
    if not first or first[0].islower():
        return False
    pairs = [(up, cell) for up, cell in zip(above, row, strict=True) if cell]
    if not all(goes_on(up, cell) or _carried(up, cell, pairs) for up, cell in pairs):
        return False
    j = next(j for j, c in enumerate(row) if c)
    if after and len(after) == len(row) and after[j][:1].islower() and not _NAME.match(after[j]):
        return _OPEN.search(row[j]) is not None  # "developed by the public and" over "government"
    return True


def _carried(above: str, cell: str, pairs: list[tuple[str, str]]) -> bool:
    """Whether ``cell`` is the rest of ``above`` carried onto the line where another cell of the row goes
    on with words cut mid-way: "Anchored or categorized" over "VAS" beside "… the locations between the"
    over "scale's ends", "If you live on campus, …" over "Other expenses …" beside "Travel and" over
    "miscellaneous expenses". Words under words, no figure in either."""
    if _DIGIT.search(cell) or _DIGIT.search(above) or not _LETTER.search(above) or not _LETTER.search(cell):
        return False
    return any(_OPEN.search(up) and c[0].islower() and goes_on(up, c) for up, c in pairs)


def _sub_row(rows: list[list[str]], row: list[str]) -> bool:
    """Whether ``row``, but for its first cell, is one of the table's sub-rows: another row with an empty
    first cell holds the same label in the first cell after it ("| | Percentage | 2.4% |")."""
    label = next((c for c in row[1:] if c), "")
    if not _LETTER.search(label):
        return False
    j = row.index(label, 1)
    return any(r is not row and len(r) == len(row) and not r[0] and r[j] == label for r in rows)


#: a table's header ends by this row at the latest; a header cell's line has this many words at most
HEADER_ROWS = 4
HEADER_WORDS = 4


def _figures(row: list[str]) -> bool:
    return any(_DIGIT.search(c) and 2 * len(_DIGIT.findall(c)) >= len(re.sub(r"\W", "", c)) for c in row if c)


def _header_end(rows: list[list[str]]) -> int:
    """The first row of figures, when one comes within ``HEADER_ROWS`` rows after the first (the rows
    before it are the header); 0 when none does (a table of words has no header to tell apart)."""
    return next((n for n, row in enumerate(rows[: HEADER_ROWS + 1]) if n and _figures(row)), 0)


def _header_line(above: list[str], row: list[str]) -> bool:
    """Whether ``row``, the header's last line, is the second line of the header row ``above``: the same
    columns filled, two or more, with a few words of no figure each ("| Improved | Decreased |" over "|
    Speed | Accel |": a header's words are capitalised, so the lower-case test of :func:`continues`
    misses them). Only the last line: a header of three such lines has levels ("Percent who borrowed"
    over "Under-" over "graduate"), and not a level's row (a group's text over each of its columns)."""
    filled = [j for j, c in enumerate(row) if c]
    if len(above) != len(row) or len(filled) < 2 or filled != [j for j, c in enumerate(above) if c]:
        return False
    if any(a and a == b for a, b in (*zip(above, row, strict=True), *pairwise(above))):
        return False  # a header of two levels: a group over its columns, a label spread over both levels
    cells = [c for c in (*above, *row) if c]
    return all(_LETTER.search(c) and not _DIGIT.search(c) and len(c.split()) <= HEADER_WORDS for c in cells)


def join_wrapped(rows: list[list[str]]) -> list[tuple[int, list[str]]]:
    """A table's rows (the header first) with each continuation row joined into the row above, cell by
    cell with a space, each with the index of the row it starts from; a sub-row that carries the first
    cell's second line ("| sinus infection | Percentage | 21.1% |" under "| Bronchitis/ear or | Count |
    104 |") gives that line to the row above and stays a row."""
    out: list[tuple[int, list[str]]] = []
    head = _header_end(rows)
    for n, row in enumerate(rows):
        after = rows[n + 1] if n + 1 < len(rows) else None
        if out and (continues(out[-1][1], row, after) or (n == head - 1 and _header_line(out[-1][1], row))):
            out[-1] = (
                out[-1][0],
                [join_cell(a, b) for a, b in zip(out[-1][1], row, strict=True)],
            )
            continue
        if out and row[0] and continues(out[-1][1][:1], row[:1], after and after[:1]) and _sub_row(rows, row):
            out[-1] = (out[-1][0], [join_cell(out[-1][1][0], row[0]), *out[-1][1][1:]])
            row = ["", *row[1:]]
        out.append((n, list(row)))
    return out


#: a dot leader: four or more dots (spaced or not) running from a cell's words to its edge, or to the
#: line number a form's box holds ("income . . . . . ▶ 37")
LEADER = re.compile(r"\s*(?:\.\s*){4,}(?=\s|$)")
#: what is left of a leader after a label that nearly fills its cell: two spaced dots at the cell's end
#: ("Curfew and loitering law violations . ."); three are an ellipsis as a tax form prints it ("IF the
#: age at annuity starting date (see page 13) was . . ."), kept
_LEADER_END = re.compile(r"(?<=\w|\))\s\.\s\.\s*$")


def drop_leaders(cell: str) -> str:
    """A cell's text without its dot leaders: they draw the eye across the page and are no part of the
    value ("Murder and nonnegligent manslaughter . . . . ." is the offence's name)."""
    return " ".join(_LEADER_END.sub("", LEADER.sub(" ", cell)).split()) if "." in cell else cell


_ROW = re.compile(r"^\|.*\|[ \t]*$")
_DELIMITER = re.compile(r"^\|(?:\s*:?-{3,}:?\s*\|)+[ \t]*$")
_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in _SPLIT.split(line.strip())[1:-1]]


def _table(lines: list[str]) -> list[str]:
    """One Markdown table's lines (its delimiter row second, if any) with its cells' dot leaders dropped
    and its wrapped rows joined; a row left as it was keeps its line."""
    ruled = len(lines) > 1 and _DELIMITER.match(lines[1]) is not None
    kept = [line for n, line in enumerate(lines) if not (ruled and n == 1)]
    read = [_cells(line) for line in kept]
    rows = [[drop_leaders(c) for c in cells] for cells in read]
    out = []
    for n, cells in join_wrapped(rows):
        if cells == read[n]:
            out.append(kept[n])
        else:
            out.append(
                "| " + " | ".join(cells) + " |" if kept[n].startswith("| ") else "|" + "|".join(cells) + "|"
            )
    return [*out[:1], lines[1], *out[1:]] if ruled else out


def join_wrapped_markdown(text: str) -> str:
    """``text`` with the continuation rows of its Markdown tables joined into the rows above (the header
    row too: a header's second line is read as the first body row)."""
    out: list[str] = []
    table: list[str] = []
    for line in [*text.split("\n"), None]:
        if line is not None and _ROW.match(line):
            table.append(line)
            continue
        if table:
            out += _table(table)
            table = []
        if line is not None:
            out.append(line)
    return "\n".join(out)
