"""A line of text printed up or down the margin of an upright scan (a manual's "Product specifications
and safety information" running down its page edge), found in Tesseract's reading of the page.

Tesseract reads such a line a glyph at a time, each glyph a "word" of its own on a line of its own
("ae]", "=", "jek", "®", "uonewsoju"), which stood in the page's text as a column of noise the page
does not say; or reads it upside down as a few words of its own ("uolyewuojul Ajayes pue …"). Either
way its words stand one under another in a narrow band; the band is read again turned each way
(:mod:`ragkit.ingestion.ocr`), that reading kept where it is surer than the band's words, and the band
left out where neither is sure.
"""

from __future__ import annotations

from statistics import median

from ragkit.ingestion.ocr_boxes import Box

#: a stack holds at least this many of Tesseract's words, one under another
LEAST_WORDS = 3
#: and reaches down at least this many median word heights
LEAST_REACH = 8
#: its words' boxes are at most this many median word heights wide (a glyph or a turned word)
NARROW = 2.0
#: their middles lie within this many median word heights of the stack's (across the line)
BAND = 1.0
#: one follows the next within this many median word heights (down the line)
GAP = 2.0
#: a stack whose words' mean confidence is below this is noise when its turned reading is not sure either
UNSURE = 60.0

Word = tuple[Box, str, float]  # a word's box (x0, y0, x1, y1 in pixels), its text and its confidence


def stacks(words: list[Word]) -> list[tuple[Box, float]]:
    """The stacks in ``words`` (one page's), each its box and its words' mean confidence: runs, down the
    page, of narrow words (a glyph, or a word read turned) whose middles lie in one narrow band, each
    close under the one before, not mostly figures (a scan's line numbers), in a margin: no word of the
    page lies beyond it on one side (a table's column of letters has words on both)."""
    if not words:
        return []
    height = median(b[3] - b[1] for b, _, _ in words) or 1.0
    narrow = sorted(
        (w for w in words if w[0][2] - w[0][0] <= NARROW * height), key=lambda w: (w[0][0] + w[0][2]) / 2
    )
    out: list[tuple[Box, float]] = []
    band: list[Word] = []
    for w in [*narrow, None]:
        middle = (w[0][0] + w[0][2]) / 2 if w else None
        if band and (w is None or middle - (band[0][0][0] + band[0][0][2]) / 2 > BAND * height):
            out += _runs(band, height)
            band = []
        if w is not None:
            band.append(w)
    middles = [(b[0] + b[2]) / 2 for b, _, _ in words]
    return [
        (box, sure)
        for box, sure in out  # in a margin: no word beyond it on one side (a table's column has both)
        if not (any(x < box[0] for x in middles) and any(x > box[2] for x in middles))
    ]


def _runs(band: list[Word], height: float) -> list[tuple[Box, float]]:
    """The runs in one band of narrow words that are stacks (see :func:`stacks`)."""
    out: list[tuple[Box, float]] = []
    run: list[Word] = []
    for w in [*sorted(band, key=lambda w: w[0][1]), None]:
        if run and (w is None or w[0][1] - run[-1][0][3] > GAP * height):
            box = (min(b[0] for b, *_ in run), run[0][0][1], max(b[2] for b, *_ in run), run[-1][0][3])
            figures = sum(t.strip().isdigit() for _, t, _ in run)  # a margin's line numbers
            if len(run) >= LEAST_WORDS and box[3] - box[1] >= LEAST_REACH * height and 2 * figures < len(run):
                out.append((box, sum(c for *_, c in run) / len(run)))
            run = []
        if w is not None:
            run.append(w)
    return out


__all__ = ["BAND", "GAP", "LEAST_REACH", "LEAST_WORDS", "NARROW", "UNSURE", "stacks"]
