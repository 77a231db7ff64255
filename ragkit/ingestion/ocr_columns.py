"""Two columns of text that Tesseract read as one: a court filing's caption box, the parties' names on the
left and the case number and a note on the right, a ruled line (read as "|") or a wide gap between.
Where lines of the two sides stand level, Tesseract joins them into one line ("PUERTO RICO ELECTRIC POWER
AUTHORITY and Shall Only be Filed in Case No."), so neither side's sentence could be read whole.

Such a stretch of the page is told by a cut no line crosses, that lines part (one wide gap or one "|",
no more: a table has more) and across which the text of each side runs on from line to line (a line left
open, "… PROCUREMENT AND", goes on below it); its left column is then read, then its right one. Column
rules of a table, key-value lines and a page of prose are left as they were read.
"""

from __future__ import annotations

from itertools import pairwise

from ragkit.ingestion.ocr_tsv import words_of
from ragkit.ingestion.wrapped_rows import goes_on

#: a gap in a line this many times the page's median word height wide parts two columns
GAP = 2.0

Word = dict[str, str]
#: a stretch read as two columns: its first and last line, and each column's lines (left, then right)
Region = tuple[int, int, list[list[list[Word]]]]


def _box(w: Word) -> tuple[int, int, int, int]:
    x, y = int(w["left"]), int(w["top"])
    return x, y, x + int(w["width"]), y + int(w["height"])


def _rule(w: Word) -> bool:
    """Whether a word is a ruled line read as a character ("|")."""
    return w["text"].strip() in {"|", "||", "¦"}


def _cut(line: list[Word], gap: float) -> tuple[float, float] | bool | None:
    """Where a line (its words left to right) is parted: the gap's left and right (a wide gap or a "|"),
    None when it is not, False when it is parted more than once (a table's row)."""
    cuts: list[tuple[float, float]] = []
    for a, b in pairwise(line):
        if _rule(b) or _rule(a):
            continue
        if _box(b)[0] - _box(a)[2] >= gap:
            cuts.append((_box(a)[2], _box(b)[0]))
    for k, w in enumerate(line):
        if _rule(w) and 0 < k < len(line) - 1:
            cuts.append((_box(line[k - 1])[2], _box(line[k + 1])[0]))
    if len(cuts) > 1:
        return False
    return cuts[0] if cuts else None


def _crosses(line: list[Word], x: float) -> bool:
    return any(_box(w)[0] < x < _box(w)[2] for w in line if not _rule(w))


def _flows(parts: list[str]) -> bool:
    """Whether one of the side's lines goes on in the next (top to bottom)."""
    return any(goes_on(a, b) for a, b in pairwise(parts))


def _regions(lines: list[list[Word]], gap: float) -> list[Region]:
    """The stretches of ``lines`` (top to bottom) read as two columns: (first, last, the left column's
    lines, the right one's)."""
    out: list[Region] = []
    k = 0
    while k < len(lines):
        cut = _cut(lines[k], gap)
        if not cut:
            k += 1
            continue
        lo, hi = cut
        first, done = k, out[-1][1] + 1 if out else 0
        while (
            first > done
            and not _crosses(lines[first - 1], (lo + hi) / 2)
            and _cut(lines[first - 1], gap) is not False
        ):
            first -= 1
        last, table = k, False
        while last + 1 < len(lines):
            nxt = _cut(lines[last + 1], gap)
            if nxt is False:
                table = True
                break
            if nxt:
                a, b = max(lo, nxt[0]), min(hi, nxt[1])
                if a >= b:
                    break
                lo, hi = a, b
            elif _crosses(lines[last + 1], (lo + hi) / 2):
                break
            last += 1
        x = (lo + hi) / 2
        sides = [_side(lines[first : last + 1], x, left) for left in (True, False)]
        flows = all(_flows([" ".join(w["text"] for w in ln) for ln in s]) for s in sides)
        if not table and flows and all(map(_one_column, sides)):
            out.append((first, last, sides))
        k = last + 1
    return out


def _one_column(lines: list[list[Word]]) -> bool:
    """Whether a side's lines (top to bottom) stand one under another: no two of them level, as the
    lines of two columns of a page are (a page of columns Tesseract read well is no caption box)."""
    spans = [(min(_box(w)[1] for w in ln), max(_box(w)[3] for w in ln)) for ln in lines]
    return all(b[0] >= a[1] - 0.3 * (a[1] - a[0]) for a, b in pairwise(spans))


def _side(lines: list[list[Word]], x: float, left: bool) -> list[list[Word]]:
    """Each line's words on one side of ``x`` (lines with none left out), ruled lines left out."""
    out = []
    for line in lines:
        part = [w for w in line if not _rule(w) and ((_box(w)[2] <= x) if left else (_box(w)[0] >= x))]
        if part:
            out.append(part)
    return out


def two_columns(tsv: str) -> str:
    """Tesseract's TSV (its words only: the levels above them are left out) with each stretch of two
    columns it read as one (see the module) numbered as the left column's paragraphs, then the right
    one's, in place; other words as they were."""
    words = [r for _, r in words_of(tsv)]
    if len(words) < 6:
        return tsv
    heights = sorted(int(w["height"]) for w in words)
    gap = GAP * heights[len(heights) // 2]
    grouped: dict[tuple[str, str, str], list[Word]] = {}
    for w in words:
        grouped.setdefault((w["block_num"], w["par_num"], w["line_num"]), []).append(w)
    lines = sorted(
        (sorted(ws, key=lambda w: int(w["left"])) for ws in grouped.values()),
        key=lambda ws: min(int(w["top"]) for w in ws),
    )
    regions = _regions(lines, gap)
    if not regions:
        return tsv
    return _renumbered(list(words[0]), words, lines, regions)


def _renumbered(fields: list[str], words: list[Word], lines: list[list[Word]], regions: list[Region]) -> str:
    """The TSV's words, each region's read as its columns (a paragraph each), numbered so that
    Tesseract's order (block, paragraph, line) is the reading order: every paragraph its own block, in
    the order of its first word, a region's in its place."""
    order: list[list[list[Word]]] = []  # paragraphs, each a list of lines
    seen: set[tuple[str, str]] = set()
    in_region: dict[int, int] = {
        id(w): n for n, (a, b, _) in enumerate(regions) for ln in lines[a : b + 1] for w in ln
    }
    placed: set[int] = set()
    for w in words:
        n = in_region.get(id(w))
        if n is not None:
            if n not in placed:
                order += regions[n][2]  # one paragraph a column: no later step reads across them
                placed.add(n)
            continue
        key = (w["block_num"], w["par_num"])
        if key in seen:
            continue
        seen.add(key)
        par = [x for x in words if (x["block_num"], x["par_num"]) == key and id(x) not in in_region]
        by_line: dict[str, list[Word]] = {}
        for x in par:
            by_line.setdefault(x["line_num"], []).append(x)
        order.append(list(by_line.values()))
    out: list[Word] = []
    for b, par in enumerate(order, start=1):
        for n, line in enumerate(par, start=1):
            for k, w in enumerate(line, start=1):
                out.append({**w, "block_num": str(b), "par_num": "1", "line_num": str(n), "word_num": str(k)})
    return "\n".join(["\t".join(fields), *("\t".join(w.get(f) or "" for f in fields) for w in out)]) + "\n"
