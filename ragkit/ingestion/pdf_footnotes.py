"""Footnotes the layout engine took for running text, found by where they stand and how they open.

The engine classes most footnotes as such, but not all: a note that opens with its number run into its
first word ("9https://…"), the line a journal sets under the first page's notes ("Article published
online ahead of print …"), a government report's notes set in text boxes ("1 Preliminary KNKT …",
"2 The flight control system …"), and the rest of a note the column's foot cut, set atop the next
column's notes, read as paragraphs, and the reflow then took them for the middle of the sentence the
column break cut. Found here, they go to the page's end with the other notes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.ingestion.pdf_columns import continues

Placed = tuple[tuple[int, int, tuple[float, ...]], str]

#: a footnote's own number, as the engine writes it ("> 8The papers …", "9https://…", "13 More than …")
NOTE_MARK = re.compile(r"^(>\s*)?(\d{1,2})\s?(?=[^\s\d.,])")
#: a note's number, a space, and its first word's capital ("2 The flight control …")
_COUNTED = re.compile(r"^(\d{1,2}) [A-Z\u2018\u201c(]")
#: how far (pt) above the lowest text of the page a column's foot may end
_FOOT = 3.0


def footnotes_found(
    text: str, placed: Sequence[tuple[int, int, tuple[float, ...]]], classes: Sequence[str]
) -> list[Placed]:
    """A page's boxes (their places in its Markdown ``text``, their bboxes, and the engine's ``classes``)
    in reading order with their classes, a footnote the engine took for text put right: a text box low
    on the page next to a footnote that opens with its number ("9https://…", "11Our evaluations …"), or
    that stands under the footnote before it in its column (a paper's "Article published online ahead of
    print …" line under the first page's notes: a column's running text ends above its footnotes); text
    boxes that count up from a number to a column's foot (:func:`_counted`); and the rest of a note
    (:func:`_rest_of_note`)."""
    classes = classes if len(classes) == len(placed) else ("",) * len(placed)  # none known
    boxes = sorted(zip(placed, classes, strict=True), key=lambda x: x[0][0])
    bottom = max((bbox[3] for _, _, bbox in placed), default=0.0)
    counted = _counted(text, boxes)
    out: list[Placed] = []
    note = ""  # the text of the last footnote so far
    for i, ((a, b, bbox), cls) in enumerate(boxes):
        near = {c for _, c in boxes[max(i - 1, 0) : i + 2]}
        low = bbox[1] > 0.8 * bottom
        numbered = "footnote" in near and NOTE_MARK.match(text[a:b].strip())
        under = out and out[-1][1] == "footnote" and _under(bbox, out[-1][0][2])
        if cls == "text" and (
            (low and (numbered or under)) or i in counted or _rest_of_note(text, i, boxes, counted, note)
        ):
            cls = "footnote"
        if cls == "footnote":
            note = text[a:b]
        out.append(((a, b, bbox), cls))
    return out


def _rest_of_note(text: str, i: int, boxes: list[Placed], counted: set[int], note: str) -> bool:
    """Whether text box ``i`` is the rest of ``note``, the last note before it, which a column's foot
    cut: it goes on with that note's open sentence, and it stands right atop a numbered note of its own
    column. A Federal Register note "12 The magnitude … such as the airplane's" ends column 1; "altitude
    and airspeed, and would be limited …" tops column 2's notes, over "13 More than 10 degrees …"."""
    (a, b, box), _ = boxes[i]
    if not note or not continues(note, text[a:b]):
        return False
    for j, ((c, d, below), cls) in enumerate(boxes):
        numbered = NOTE_MARK.match(text[c:d].lstrip())
        if (cls == "footnote" or j in counted) and numbered and _atop(box, below):
            return True
    return False


def _atop(box: tuple[float, ...], note: tuple[float, ...]) -> bool:
    """Whether ``box`` ends right where ``note`` starts (within 2 pt), in its column."""
    return abs(note[1] - box[3]) <= 2.0 and _across(box, note)


def _under(box: tuple[float, ...], note: tuple[float, ...]) -> bool:
    """Whether ``box`` starts at or below ``note``'s foot, in its column."""
    return box[1] >= note[3] - 2.0 and _across(box, note)


def _across(box: tuple[float, ...], note: tuple[float, ...]) -> bool:
    """Whether ``box`` spans ``note``'s column, at least in part."""
    return box[0] < note[2] and note[0] < box[2]


def _counted(text: str, boxes: list[Placed]) -> set[int]:
    """The text boxes (their places in ``boxes``) that are notes counting up to a column's foot: a run of
    boxes in reading order, each opening with the number after the last one's ("1 Preliminary …", "2 The
    flight …"), whose last box ends at the lowest text of the page; a run of one when the page's notes
    before it led up to its number ("13 More than …" after "12 The magnitude …")."""
    bottom = max((bbox[3] for (_, _, bbox), c in boxes if c not in ("page-header", "page-footer")), default=0)
    found: set[int] = set()
    last = 0  # the page's last note number found
    i = 0
    while i < len(boxes):
        run = []
        while i < len(boxes) and boxes[i][1] == "text":
            (a, b, _), _ = boxes[i]
            m = _COUNTED.match(text[a:b].lstrip())
            if not m or (run and int(m.group(1)) != run[-1][1] + 1):
                break
            run.append((i, int(m.group(1))))
            i += 1
        foot = bool(run) and boxes[run[-1][0]][0][2][3] >= bottom - _FOOT
        if foot and (len(run) > 1 or run[0][1] == last + 1):
            found.update(k for k, _ in run)
            last = run[-1][1]
        i += 0 if run else 1
    return found


__all__ = ["footnotes_found"]
