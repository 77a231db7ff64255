"""Tesseract's TSV read back as text: each word with its box and confidence, joined into lines and
paragraphs, ruled boxes' own readings put in place of the words inside them."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass

from ragkit.ingestion.ocr_boxes import Box, inside, share_inside
from ragkit.ingestion.pdf_columns import continues


@dataclass(frozen=True)
class OcrPage:
    """What OCR read on one page: the text, the mean word confidence (0–100) and the word count."""

    text: str
    confidence: float
    words: int


def words_of(tsv: str) -> list[tuple[tuple[float, float], dict[str, str]]]:
    """The words of Tesseract's TSV (one row per word, with block/paragraph/line numbers, a box and a
    confidence), each with the centre of its box."""
    out = []
    for r in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if r.get("level") == "5" and (r.get("text") or "").strip():
            centre = (int(r["left"]) + int(r["width"]) / 2, int(r["top"]) + int(r["height"]) / 2)
            out.append((centre, r))
    return out


def line_height(tsv: str) -> float | None:
    """The median height, in the image's pixels, of the lines Tesseract read words on (None when it read
    none): how large the text was drawn, whatever resolution the image says it has."""
    rows = list(csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE))  # read once
    key = ("block_num", "par_num", "line_num")
    lines = {
        tuple(r[k] for k in key) for r in rows if r.get("level") == "5" and (r.get("text") or "").strip()
    }
    heights = sorted(
        int(r["height"]) for r in rows if r.get("level") == "4" and tuple(r[k] for k in key) in lines
    )
    return float(heights[len(heights) // 2]) if heights else None


def word_box(r: dict[str, str]) -> tuple[int, int, int, int]:
    """A TSV word's box: x0, y0, x1, y1 in the image's pixels."""
    x, y = int(r["left"]), int(r["top"])
    return x, y, x + int(r["width"]), y + int(r["height"])


def read_once(
    words: list[tuple[tuple[float, float], dict[str, str]]],
) -> list[tuple[tuple[float, float], dict[str, str]]]:
    """``words`` (:func:`words_of`) without each word whose box lies mostly inside the box of a word read
    with more confidence: in a block of lines of different heights Tesseract may read a part of a word
    again as a word of its own (a table's header "Participants" and a "P" inside it)."""
    boxes = [word_box(r) for _, r in words]
    confs = [float(r.get("conf") or 0) for _, r in words]
    return [
        w
        for k, w in enumerate(words)
        if not any(
            j != k and confs[j] > confs[k] and share_inside(boxes[k], boxes[j]) > 0.5
            for j in range(len(words))
        )
    ]


def parse_tsv(tsv: str, boxes: Sequence[tuple[Box, OcrPage]] = ()) -> OcrPage:
    """Tesseract's TSV as text: words joined into lines, paragraphs separated by a blank line. Each of
    ``boxes`` (a region and its own reading) replaces the words inside it, its text placed where the
    first of them was read (where none was, before the first paragraph with a word below its top)."""
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    spans: dict[tuple[int, int], tuple[int, int, int, int]] = {}  # each paragraph's top, bottom, left, right
    confs: list[float] = []
    first: dict[int, tuple[int, int]] = {}
    words = words_of(tsv)
    for (x, y), r in words:
        key = (int(r["block_num"]), int(r["par_num"]))
        hit = next((k for k, (box, _) in enumerate(boxes) if inside(box, x, y)), None)
        if hit is not None:
            first[hit] = min(first.get(hit, key), key)
            continue
        conf = float(r.get("conf") or -1)
        if conf >= 0:
            confs.append(conf)
        paragraphs.setdefault(key, {}).setdefault(int(r["line_num"]), []).append(r["text"].strip())
        top, bottom, left, right = spans.get(key, (1 << 30, -1, 1 << 30, -1))
        x0, y0 = int(r["left"]), int(r["top"])
        spans[key] = (
            min(top, y0),
            max(bottom, y0 + int(r["height"])),
            min(left, x0),
            max(right, x0 + int(r["width"])),
        )
    pieces = [
        ((key, 1, 0), "\n".join(" ".join(ws) for _, ws in sorted(lines.items())), spans[key])
        for key, lines in paragraphs.items()
    ]
    for k, (box, read) in enumerate(boxes):
        # where the layout read none of it: before the first paragraph with a word below its top
        below = [(int(r["block_num"]), int(r["par_num"])) for (_, y), r in words if y >= box[1]]
        place = first.get(k) or min(below, default=(1 << 30, 0))
        pieces.append(((place, 0, box[1]), read.text, None))
    total = sum(confs) + sum(read.confidence * read.words for _, read in boxes)
    count = len(confs) + sum(read.words for _, read in boxes)
    ordered = _sentences_whole([(t, span) for _, t, span in sorted(pieces, key=lambda p: p[0]) if t])
    return OcrPage("\n\n".join(ordered), round(total / count, 1) if count else 0.0, count)


def _sentences_whole(pieces: list[tuple[str, tuple[int, int, int, int] | None]]) -> list[str]:
    """The paragraphs' texts in Tesseract's order, except a paragraph it read between a sentence and the
    sentence's end (a column's foot, then the next column's head) when it stands below where that
    sentence ends: it goes before the first later paragraph that stands below it. A two-column brochure
    read "… within a sequence," | "Additional Features" (the heading under both columns) | "simply use
    LOCATE …". A sentence a column break cut (its end stands right of it and starts higher than its start
    ends) is then one paragraph again.
    ``pieces`` are (text, (top, bottom, left, right)), a ruled box's reading with no span."""
    out = list(pieces)
    k = 0
    while k + 2 < len(out):
        (before, _), (_, mid), (after, end_span) = out[k], out[k + 1], out[k + 2]
        if mid is not None and end_span is not None and end_span[1] <= mid[0] and continues(before, after):
            later = range(k + 3, len(out))
            below = next((j for j in later if (s := out[j][1]) is not None and s[0] >= mid[1]), len(out))
            out.insert(below - 1, out.pop(k + 1))
        k += 1
    texts = [t for t, _ in out]
    for k in range(len(out) - 1, 0, -1):  # a sentence a column break cut is one paragraph again
        (before, above), (after, span) = out[k - 1], out[k]
        column = span is not None and above is not None and span[0] < above[1] and span[2] >= above[3]
        if column and continues(before, after):  # the next column's head, right of it and higher
            texts[k - 1 : k + 1] = [f"{texts[k - 1]} {texts[k]}"]
    return texts


__all__ = ["OcrPage", "line_height", "parse_tsv", "words_of"]
