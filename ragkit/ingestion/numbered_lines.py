"""Pages with numbered lines — court and deposition transcripts, pleading paper: the margin's line numbers
(1, 2, … 25 down the left edge) are not text, and a sentence runs on across the numbered rows.

Both PDF parsers read such a page here instead: each numbered row is one line of the page, the numbers
and whatever lies outside the numbered rows (running header, footer, page number) are left out, and rows
join into paragraphs (a blank row, an indented row or a speaker's label starts a new one). Without this,
"came on for oral 13 argument" is what gets indexed, and a question about the argument's date finds the
docket line.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from typing import Any

#: fewest consecutive numbered rows (from 1) that make a page a numbered one (transcripts number 25 a
#: page, pleading paper 28; a short last page still has a dozen)
MIN_ROWS = 10
_NUMBER = re.compile(r"\d{1,2}")
#: a row that opens with a speaker's label starts a paragraph: "JUSTICE SCALIA:", "MR. MERCER:", "Q.", "A"
_SPEAKER = re.compile(r"^(?:(?:[A-Z][A-Z.'\-]*\s){0,3}[A-Z][A-Z.'\-]*:|[QA]\.?\s)")

Word = tuple[float, float, float, float, str, int, int, int]


def _chain(numbers: list[Word]) -> list[Word]:
    """The longest run 1, 2, 3, … down the page, right edges aligned (within 3 pt)."""
    best: list[Word] = []
    ordered = sorted(numbers, key=lambda w: w[1])
    for start in (w for w in ordered if w[4] == "1"):
        run = [start]
        for w in ordered:
            if w[1] > run[-1][1] and int(w[4]) == len(run) + 1 and abs(w[2] - start[2]) <= 3:
                run.append(w)
        if len(run) > len(best):
            best = run
    return best


def numbered_rows(words: list[Word], page_width: float) -> list[list[Word]] | None:
    """The words of each numbered row, in order (None: the page has no numbered lines). ``words`` are
    PyMuPDF's ``get_text("words")`` tuples."""
    per_line = Counter((w[5], w[6]) for w in words)
    alone = [w for w in words if _NUMBER.fullmatch(w[4]) and per_line[(w[5], w[6])] == 1]
    chain = _chain(alone)
    if len(chain) < MIN_ROWS or chain[0][2] > 0.35 * page_width:
        return None
    margin = max(w[2] for w in chain)
    numbers = {id(w) for w in chain}
    text = [w for w in words if id(w) not in numbers]
    if not text or sum(w[0] > margin for w in text) < 0.8 * len(text):
        return None  # most of the text is not to the right of the numbers: they are not its margin
    centres = [(w[1] + w[3]) / 2 for w in chain]
    pitch = statistics.median(b - a for a, b in itertools.pairwise(centres))
    rows: list[list[Word]] = [[] for _ in chain]
    for w in text:
        y = (w[1] + w[3]) / 2
        i = min(range(len(centres)), key=lambda r: abs(centres[r] - y))
        if abs(centres[i] - y) <= pitch / 2:  # else above or below the numbered rows: header, footer
            rows[i].append(w)
    return [sorted(r, key=lambda w: w[0]) for r in rows]


def paragraphs(rows: list[list[Word]]) -> str:
    """Numbered rows as text: rows joined by a space into paragraphs, a new one after a blank row, at a
    speaker's label or at an indented row that does not continue the one before; a row ending in ":"
    (a caption's) keeps its line break."""
    firsts = [r[0][0] for r in rows if r]
    if not firsts:
        return ""
    left = min(firsts)
    width = statistics.median((w[2] - w[0]) / max(len(w[4]), 1) for r in rows for w in r)  # a character
    out: list[str] = []
    current = ""
    for row in rows:
        line = " ".join(w[4] for w in row)
        if not line:
            if current:
                out.append(current)
            current = ""
            continue
        indent = (row[0][0] - left) / width  # in characters
        ended = current.rstrip().endswith((".", "?", "!", ":", ";"))
        # an indented row opens a paragraph after a finished sentence, or when it is set far in (a
        # centred caption line); slightly indented after an unfinished row, it continues it (hanging)
        starts = _SPEAKER.match(line) is not None or (indent >= 1.5 and (ended or indent >= 8))
        if current and starts:
            out.append(current)
            current = ""
        current = line if not current else current + ("\n" if current.endswith(":") else " ") + line
    if current:
        out.append(current)
    return "\n\n".join(out)


def numbered_page_text(page: Any) -> str | None:
    """The text of a page with numbered lines, read row by row (None: not such a page)."""
    import pymupdf

    words = page.get_text("words", flags=pymupdf.TEXTFLAGS_WORDS & ~pymupdf.TEXT_PRESERVE_LIGATURES)
    rows = numbered_rows(words, page.rect.width)
    return None if rows is None else paragraphs(rows)


__all__ = ["MIN_ROWS", "numbered_page_text", "numbered_rows", "paragraphs"]
