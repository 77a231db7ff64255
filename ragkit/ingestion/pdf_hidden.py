"""Text a page draws and then paints over: hidden on the page, so left out of its reading.

An IRS booklet's first page prints "Department of the Treasury" and "Internal Revenue Service", then
paints a white box over them and writes a notice on the box. The text layer still holds the hidden
words, and the layout engine read them into the notice's bullets ("…recapture of a charitable Internal
Revenue Service contribution of…"). A character is hidden when an opaque filled rectangle drawn after it
(later in the page's drawing order: PyMuPDF's sequence numbers) holds its box. Hidden characters are
removed from the page in memory before either parser reads it, pdfplumber's ruled tables included (a
redaction of text only: drawings and images stay); nothing is, on a page where that would take a
character that shows too. A box drawn with transparency (a highlight) hides nothing; text that
Tesseract's layer or a writer set invisible is not this module's.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

#: a covering box may fall short of a character's box by this much (pt) and still hide it
SLACK = 1.0
#: a filled box smaller than this (pt) on either side hides no character (a rule, a bullet)
LEAST_SIDE = 3.0
#: opacity at or above this is opaque
OPAQUE = 0.999
#: the largest filled paths looked at on a page (a map or chart draws thousands of small ones after its
#: labels; a box that hides text is large)
MOST_BOXES = 500
_CHUNK = 4096
#: the part of a hidden character's box that is redacted: its middle, this share in from each side, so
#: that a neighbour that shows, whose box only touches it, is not taken with it
INSET = 0.25


def _covering(page: Any) -> list[tuple[int, Any]]:
    """(sequence number, box) of each filled path large enough to hide a character that the page draws
    after its first text: only such a path can hide text (from the page's cheap box log)."""
    import pymupdf

    log = page.get_bboxlog()
    first = next((i for i, (kind, _) in enumerate(log) if kind.endswith("-text")), None)
    if first is None:
        return []
    out = []
    for i, (kind, box) in enumerate(log[first + 1 :], start=first + 1):
        rect = pymupdf.Rect(box)
        if kind == "fill-path" and rect.width >= LEAST_SIDE and rect.height >= LEAST_SIDE:
            out.append((i, rect))
    return out


def _opaque_boxes(page: Any, seqnos: set[int]) -> set[int]:
    """Which of the paths ``seqnos`` are opaque filled rectangles (one rectangle or quad, fill opacity 1)."""
    out = set()
    for d in page.get_drawings():
        items = d.get("items") or []
        if (
            d.get("seqno") in seqnos
            and d.get("fill") is not None
            and (d.get("fill_opacity") or 0.0) >= OPAQUE
            and len(items) == 1
            and items[0][0] in ("re", "qu")
        ):
            out.add(d["seqno"])
    return out


def _chars(page: Any) -> tuple[Any, Any, list[str]]:
    """The sequence numbers, boxes (n x 4) and characters of the page's shown text (filled or stroked)."""
    import numpy as np

    spans = [s for s in page.get_texttrace() if s.get("type") in (0, 1, 2) and s.get("opacity", 1.0) > 0]
    seq = np.array([s["seqno"] for s in spans for _ in s["chars"]], dtype=np.int64)
    box = np.array([c[3] for s in spans for c in s["chars"]], dtype=np.float64).reshape(-1, 4)
    return seq, box, [chr(c[0]) for s in spans for c in s["chars"]]


def _placed(text: list[str], box: Any, keep: Any = None) -> Counter[tuple[str, int, int]]:
    """Characters as (character, x0, y0) to the point, those ``keep`` marks (all without it)."""
    return Counter(
        (ch, round(b[0]), round(b[1]))
        for k, (ch, b) in enumerate(zip(text, box, strict=True))
        if keep is None or keep[k]
    )


def hidden_text(page: Any) -> tuple[list[Any], Counter[tuple[str, int, int]]]:
    """The boxes to redact, one per hidden character (see the module's rule), inset by :data:`INSET`;
    and the characters that show (character, x0, y0), which the redaction must leave."""
    import numpy as np
    import pymupdf

    covering = _covering(page)
    if not covering:
        return [], Counter()
    seq, box, text = _chars(page)
    if not len(seq):
        return [], Counter()
    covering = sorted(covering, key=lambda c: -c[1].get_area())[:MOST_BOXES]  # a map draws thousands
    cover = np.array([r for _, r in covering], dtype=np.float64).reshape(-1, 4)
    after = np.array([j for j, _ in covering], dtype=np.int64)
    solid = (box[:, 2] > box[:, 0]) & (box[:, 3] > box[:, 1])
    held = np.zeros((len(seq), len(after)), bool)  # char k lies inside path j, drawn after it
    for at in range(0, len(seq), _CHUNK):  # a few MB at a time, whatever the page holds
        b = box[at : at + _CHUNK, None, :]
        held[at : at + _CHUNK] = (
            (after[None, :] > seq[at : at + _CHUNK, None])
            & (cover[None, :, 0] - SLACK <= b[..., 0])
            & (cover[None, :, 1] - SLACK <= b[..., 1])
            & (cover[None, :, 2] + SLACK >= b[..., 2])
            & (cover[None, :, 3] + SLACK >= b[..., 3])
            & solid[at : at + _CHUNK, None]
        )
    if not held.any():
        return [], Counter()
    opaque = _opaque_boxes(page, {int(after[j]) for j in np.flatnonzero(held.any(axis=0))})
    hidden = (held & np.array([int(j) in opaque for j in after])[None, :]).any(axis=1)
    inset = (box[:, 2:] - box[:, :2]) * INSET
    middles = [pymupdf.Rect(*box[k, :2] + inset[k], *box[k, 2:] - inset[k]) for k in np.flatnonzero(hidden)]
    return middles, _placed(text, box, ~hidden)


def drop_hidden_text(page: Any) -> int:
    """Remove the page's hidden characters (:func:`hidden_text`) from it, in memory; how many. Nothing is
    removed when redacting them would take a character that shows too (tried first on a copy of the page:
    MuPDF decides by its own glyph boxes which characters a redaction takes)."""
    import pymupdf

    boxes, shown = hidden_text(page)
    if not boxes:
        return 0
    trial = pymupdf.open()
    trial.insert_pdf(page.parent, from_page=page.number, to_page=page.number)
    for target in (trial[0], page):
        for box in boxes:
            target.add_redact_annot(box)
        target.apply_redactions(
            images=pymupdf.PDF_REDACT_IMAGE_NONE,
            graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
            text=pymupdf.PDF_REDACT_TEXT_REMOVE,
        )
        if target is not page:
            _, box, text = _chars(target)
            if shown - _placed(text, box):
                return 0  # a character that shows would go with them: leave the page as it is
    return len(boxes)


def painted_over(page: Any, index: int, warnings: list[str]) -> None:
    """:func:`drop_hidden_text` on page ``index`` (0-based), saying so in ``warnings`` when it removed any."""
    if n := drop_hidden_text(page):
        warnings.append(
            f"page {index + 1}: {n} character{'s' if n > 1 else ''} painted over by a filled box left out"
        )


__all__ = [
    "INSET",
    "LEAST_SIDE",
    "MOST_BOXES",
    "OPAQUE",
    "SLACK",
    "drop_hidden_text",
    "hidden_text",
    "painted_over",
]
