"""Reading order across two columns, where the layout engine cut a page across instead of down.

The engine orders a page's boxes by cutting it at gaps: where the two columns happen to have a gap
at the same height (one column's paragraph ends at 382 pt, the other's starts at 385 pt) it cuts
the page across there, and reads the top of both columns before the bottom of either. A handbook
page then reads "… The wing type that is" from the left column's foot only after the right column's
top, which goes on with "the most common ranges …". This module puts such a page back in column
order: between boxes that span both columns, the left column's boxes, then the right column's,
each in the engine's own order. The engine's order stands where its cut runs along a real band of
white (a masthead above the columns) and where the boxes stand in rows (a form, labels beside
values). A figure that falls between a sentence and its end goes after the paragraph that ends it.
"""

from __future__ import annotations

import re
from itertools import pairwise

from ragkit.ingestion.chunkers.sentence import sentences
from ragkit.ingestion.pdf_picture import PICTURE_START

Box = tuple[int, int, tuple[float, float, float, float]]

#: a box wider than this share of the page's text is a band across both columns (a title, a figure)
SPANS = 0.6
#: white this tall (pt) across the whole page is a row's edge (a masthead above the columns), not a gap
#: where both columns' paragraphs happen to break
BAND_GAP = 10.0
#: the gutter must lie in the middle of the text, between these shares of its width
_MIDDLE = (0.3, 0.7)
#: boxes whose tops and bottoms are this close (pt) stand side by side in one row
_ROW = 3.0
#: above this share of one column's boxes level with the other's, the page is rows, not columns
_ROWS = 0.5
#: boxes that are no part of the running text's order
_MARGIN = ("page-header", "page-footer")
#: boxes that hold a figure or a table and its caption, which may stand anywhere in a column
_FIGURE = ("picture", "caption", "table")


def _gutter(boxes: list[tuple[float, float, float, float]]) -> float | None:
    """An x in the middle of the text that only boxes spanning both columns cross, with text on both
    sides of it; None when there is none (one column)."""
    left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
    width = right - left
    narrow = [b for b in boxes if b[2] - b[0] <= SPANS * width]
    lo, hi = left + _MIDDLE[0] * width, left + _MIDDLE[1] * width
    edges = sorted({lo, hi, *(x for b in narrow for x in (b[0], b[2]) if lo <= x <= hi)})
    gaps = [(a, b) for a, b in pairwise(edges)
            if not any(x0 < (a + b) / 2 < x1 for x0, _, x1, _ in narrow)]  # fmt: skip
    if not gaps:
        return None
    lo, hi = max(gaps, key=lambda g: g[1] - g[0])
    x = (lo + hi) / 2
    if not any(box[2] <= x for box in narrow) or not any(box[0] >= x for box in narrow):
        return None  # text on one side only
    return x


def _in_rows(left: list[int], right: list[int], boxes: list[Box]) -> bool:
    """Whether the two sides stand in rows (a form, labels beside values): most boxes of the sparser
    side level with one of the other's, top and bottom."""
    few, many = sorted(([boxes[i][2] for i in left], [boxes[i][2] for i in right]), key=len)
    if len(few) < 2:
        return False  # one box beside one reads the same either way
    level = sum(any(abs(a[1] - b[1]) <= _ROW and abs(a[3] - b[3]) <= _ROW for b in many) for a in few)
    return level > _ROWS * len(few)


def column_order(boxes: list[Box], classes: list[str]) -> list[int]:
    """The indices of ``boxes`` (start, stop, bbox; in the engine's order) in reading order: the
    engine's own unless the page has two columns it read across."""
    order = list(range(len(boxes)))
    body = [i for i in order if classes[i] not in _MARGIN]
    if len(body) < 4:
        return order
    x = _gutter([boxes[i][2] for i in body])
    if x is None:
        return order
    spanning = {i for i in body if boxes[i][2][0] < x < boxes[i][2][2]}
    narrow = [i for i in body if i not in spanning]
    cuts = sorted({float("-inf"), float("inf"), *(boxes[i][2][1] for i in spanning)})
    out: list[int] = []
    for low, high in pairwise(cuts):
        out += sorted((i for i in spanning if boxes[i][2][1] == low), key=lambda i: boxes[i][2][3])
        inside = [i for i in narrow if low <= _middle(boxes[i]) < high]
        left = [i for i in inside if boxes[i][2][2] <= x]
        right = [i for i in inside if boxes[i][2][0] >= x]
        if left and right and _in_rows(left, right, boxes):
            return order  # a form or a table of boxes: its rows are its order
        sides = set(left + right)
        read = [i for i in order if i in sides]
        out += read if _cut_on_white(read, set(left), boxes) else left + right
    if sorted(out) != body:
        return order  # a box fell between the cuts: leave the page as read
    slots = iter(out)
    return [next(slots) if classes[i] not in _MARGIN else i for i in order]


def _cut_on_white(read: list[int], left: set[int], boxes: list[Box]) -> bool:
    """Whether the engine went back to a side (left, right, left …) at a band of white across the
    whole page (a masthead's row above the columns): then its order stands. At a sliver of white where
    the two columns' paragraph gaps happen to meet, it cut a column's flow in two."""
    runs = [0] + [k for k in range(1, len(read)) if (read[k] in left) != (read[k - 1] in left)]
    if len(runs) < 3:
        return not read or read[0] in left  # left then right is column order; right first is not
    above, below = read[: runs[2]], read[runs[2] :]
    white = min(boxes[i][2][1] for i in below) - max(boxes[i][2][3] for i in above)
    return white >= BAND_GAP


def continues(before: str, after: str) -> bool:
    """Whether ``after`` goes on with the sentence ``before`` left open: a comma last; a word broken at
    its hyphen, or a word no sentence ends on, before a letter ("after takeoff from Soekarno-" | "Hatta
    International", "a sell position on a" | "CDS contract"), but no capital that opens a caption
    ("Table 2.") or a footnote's number; or no closing punctuation and a lower-case letter or a
    continuing mark next (raised footnote marks aside)."""
    open_end = _RAISED_END.sub("", before.rstrip())
    end, opening = open_end[-1:], after.lstrip()
    start = opening[:1]
    if end == ",":  # a comma leaves it open whatever comes next ("arXiv,²" | "PubMed Central,³ …")
        return start.isalnum() or start in "(\"“‘'"
    if _OPEN_END.search(open_end):
        return start.isalpha() and not _CAPTION.match(opening)
    return bool(end) and end not in '.!?:;…"”|' and (start.islower() or start in ",;)")


#: an end no sentence has: a word broken at a hyphen, or an article, preposition or conjunction after a
#: word (a footnote's lone "a" is none)
_OPEN_END = re.compile(
    r"(?:[^\W\d_]-|\w[ \t]+(?:a|an|the|of|to|in|on|at|by|for|from|with|into|and|or|nor|than))$"
)
#: a numbered caption's opening, in any case (a small caps font mapped to "tABLE 1. Selected …")
_NUMBERED = r"(?i:table|figure|fig\.|chart|exhibit|plate)\s*[\dIVX]+[.:]"
#: what opens a caption or a note, not a sentence's next words
_CAPTION = re.compile(rf"(?:Table|Figure|Fig\.|Chart|Exhibit|Source|Note|Appendix|Box|Plate)s?\b|{_NUMBERED}")
#: a numbered caption, bold or not ("**Figure 2:** t-SNE …", "Fig. 3. Nucleotide …")
_NUMBERED_CAPTION = re.compile(rf"\**{_NUMBERED}")


#: raised footnote marks at a text's end ("arXiv,²")
_RAISED_END = re.compile(r"[\u00b2\u00b3\u00b9\u2070-\u207f*\u2020\u2021]+$")


def across_pages(bodies: list[str]) -> list[str]:
    """Each page's running text with a sentence that a page break cut whole again: the open sentence a
    page ends with (its last paragraph's last sentence, split as the chunkers split sentences: "Vol."
    ends none) is moved to the start of the next page when that page opens by going on with it ("…
    pretraining cor-" | "pus contains 16.4B tokens"), so the first page's footnotes, which follow its
    running text, no longer stand in it; a figure the next page opens with (its text, its caption: up
    to three paragraphs) stays before it ("… and Neuro-" | figure 3 | "spora crassa and …") when what
    follows it opens in lower case and the open sentence is no caption's. A word broken at the page's
    end keeps ``-`` and a line break, for hyphenation to decide. No page is left empty."""
    out = list(bodies)
    for i in range(len(out) - 1):
        head, _, last = out[i].rstrip().rpartition("\n\n")
        paragraphs = out[i + 1].lstrip().split("\n\n")
        # a figure the next page opens with (its text, its caption) stands before the sentence's end
        k = next((j for j, p in enumerate(paragraphs[:4]) if not _float(p)), 0)
        first = paragraphs[k]
        if not (_prose(last, item=True) and _prose(first) and continues(last, first)):
            continue
        if k and (_float(last) or not first[:1].islower()):  # past a figure: its words' own rest only
            continue
        spans = sentences(last)
        cut = spans[-1][0] if len(spans) > 1 and not last.lstrip().startswith(("- ", "* ", "+ ")) else 0
        keep = "\n\n".join(p for p in (head.rstrip(), last[:cut].rstrip()) if p)
        if not keep:
            continue
        glue = "\n" if re.search(r"[^\W\d_]-$", last) else " "
        paragraphs[k] = f"{last[cut:].strip()}{glue}{first}"
        out[i], out[i + 1] = keep, "\n\n".join(paragraphs)
    return out


def _float(paragraph: str) -> bool:
    """A figure's text (marked as picture text) or a caption ("Fig. 3. Nucleotide …")."""
    p = paragraph.lstrip()
    return p.startswith(PICTURE_START) or bool(_NUMBERED_CAPTION.match(p))


def _prose(paragraph: str, item: bool = False) -> bool:
    """A paragraph of running text (or, with ``item``, a list item, which a page break may cut too): not a
    table, heading, quote or code (Markdown)."""
    p = paragraph.strip()
    return bool(p) and not re.match(r"(#|\||>|```|!\[)" if item else r"(#|\||[-*+>] |\d+\. |```|!\[)", p)


def sentence_first(text: str, boxes: list[Box], classes: list[str], order: list[int]) -> list[int]:
    """``order`` with a figure or table that stands between a sentence and its end (a column's foot,
    then the next column's head) moved after the paragraph that ends it, so the sentence reads whole;
    the column's footnotes between them move with it (they go to the page's end; footnotes alone between
    the halves are left to :func:`~ragkit.ingestion.pdf_layout.reflow`, which knows a footnote taken for
    text). A note in small print right under a table or figure (the engine writes small print as a
    quote, "> a The numbers correspond …") moves with it: it is the float's, not the sentence's end."""
    out = list(order)
    k = 0
    while k < len(out):
        j = k + 1
        while j < len(out) and (
            classes[out[j]] in _FIGURE
            or classes[out[j]] == "footnote"
            or (j > k + 1 and classes[out[j - 1]] in _FIGURE and _small_print(text, boxes[out[j]]))
        ):
            j += 1
        figure = any(classes[out[x]] in _FIGURE for x in range(k + 1, j))  # footnotes alone: reflow's
        if figure and j < len(out) and classes[out[k]] == classes[out[j]] == "text":
            before, after = (text[boxes[out[i]][0] : boxes[out[i]][1]] for i in (k, j))
            if continues(before, after):
                out[k + 1 : j + 1] = [out[j], *out[k + 1 : j]]
        k += 1
    return out


def _small_print(text: str, box: Box) -> bool:
    """Whether the box holds text the engine wrote as small print (a quote: "> a The numbers …")."""
    return text[box[0] : box[1]].lstrip().startswith(">")


def _middle(box: Box) -> float:
    return (box[2][1] + box[2][3]) / 2


def reorder(text: str, boxes: list[Box], order: list[int]) -> tuple[str, list[Box], list[int]]:
    """The page's Markdown with its boxes' text in ``order``, the boxes at their new places, and the order
    applied (the boxes cover the text end to end; any text before the first box stays first). Boxes with
    text between them are left as they are, and so is their order."""
    same = list(range(len(boxes)))
    if order == same or not boxes:
        return text, boxes, same
    if any(boxes[k][1] != boxes[k + 1][0] for k in range(len(boxes) - 1)):
        return text, boxes, same  # text between boxes: no place to put it, so no reordering
    head, tail = text[: boxes[0][0]], text[boxes[-1][1] :]
    parts, placed, at = [head], [], len(head)
    for i in order:
        a, b, bbox = boxes[i]
        parts.append(text[a:b])
        placed.append((at, at + b - a, bbox))
        at += b - a
    return "".join(parts) + tail, placed, order
