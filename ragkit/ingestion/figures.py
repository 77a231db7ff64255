"""OCR of pictures of text on pages that have a text layer: a scanned form, a boxed list or a table pasted
into a report as an image says things the text layer does not (a Federal Register rule's MEL provisions,
figure 10). Such a picture's text joins the page as picture text (recorded in ``Page.pictures``, as the
words drawn inside a vector figure are), before the first paragraph below the picture.

Only large pictures are read (a share of the page, a minimum width in pixels) that hold no text of the
layer, and their text is kept only when Tesseract reads it with the confidence of text, not of a photo.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.folding import find_folded
from ragkit.core.types import Page
from ragkit.ingestion.limits import PARSE_S_ENV, Budget
from ragkit.ingestion.ocr import DPI, OCR_NOTE, normalise_ocr, read_region
from ragkit.ingestion.pdf_picture import PICTURE_END, PICTURE_START
from ragkit.ingestion.reading import pages_named

#: the least share of the page a picture covers to be read (a logo or an icon is not)
MIN_SHARE = 0.15
#: the least width of its image in pixels (a thumbnail holds no legible text)
MIN_PIXELS = 300
#: text of the layer inside the picture above which its words are already read
LAYER_CHARS = 20
#: the least mean word confidence (0–100) and words for what OCR read to be text, not a photo's noise
MIN_CONFIDENCE = 60.0
MIN_WORDS = 5
#: the share of the document's parsing time after which its pictures are left unread
TIME_SHARE = 0.5


def text_pictures(page: Any) -> list[Any]:
    """The picture regions of a PyMuPDF page worth reading: large, wide enough, with no text of its own
    layer inside, top to bottom."""
    import pymupdf

    area = page.rect.width * page.rect.height or 1.0
    out = []
    for info in page.get_image_info():
        box = pymupdf.Rect(info["bbox"]) & page.rect
        if box.is_empty or box.width * box.height / area < MIN_SHARE or info.get("width", 0) < MIN_PIXELS:
            continue
        if len(page.get_text(clip=box).strip()) > LAYER_CHARS or any(box.intersects(b) for b in out):
            continue
        out.append(box)
    return sorted(out, key=lambda b: (b.y0, b.x0))


def _place(page: Any, text: str, box: Any) -> int:
    """Where a picture's text goes in the page's reading: before the earliest-read paragraph of the layer
    below the picture and across from it (found by its opening words), else at the end."""
    found = []
    for b in page.get_text("blocks"):
        if b[6] != 0 or b[1] < box.y1 - 1 or b[2] <= box.x0 or b[0] >= box.x1:
            continue
        words = " ".join(b[4].split()[:8])
        at = find_folded(words, text) if len(words) >= 12 else None
        if at is not None:
            found.append(at[0])
    if not found:
        return len(text)
    return text.rfind("\n", 0, min(found)) + 1


def ocr_pictures(
    doc: Any, pages: list[Page], layered: set[int], ocr_language: str, budget: Budget, dpi: int = DPI
) -> tuple[list[Page], list[str]]:
    """Read the pictures of text on the pages numbered in ``layered`` (those whose own text layer was
    usable: the others were OCR'd whole, pictures and all); the note says which pages gained picture
    text and how sure Tesseract was."""
    out, read_on, confidences, left, failed = list(pages), [], [], [], []
    for k, page in enumerate(pages):
        if page.number not in layered:
            continue
        pdf_page = doc.load_page(page.number - 1)
        text = page.text
        for box in text_pictures(pdf_page):
            if time.monotonic() - budget.started > budget.limits.parse_s * TIME_SHARE:
                left.append(page.number)  # the document's own text first: never refused for its pictures
                continue
            try:
                read = read_region(pdf_page, box, ocr_language, dpi, budget.limits)
            except DocumentError as e:  # Tesseract failed or timed out on it: the page keeps its text
                failed.append(f"a picture on page {page.number} could not be read by OCR ({e.cause})")
                continue
            if read.confidence < MIN_CONFIDENCE or read.words < MIN_WORDS:
                continue
            words = " ".join(normalise_ocr(read.text).split())
            budget.add_text(len(words))
            at = _place(pdf_page, text, box)
            gap = "" if at == 0 or text[:at].endswith("\n") else "\n\n"  # at the end of a page without one
            text = f"{text[:at]}{gap}{PICTURE_START}{words}{PICTURE_END}\n\n{text[at:]}"
            confidences.append(read.confidence)
            read_on.append(page.number)
        if text != page.text:
            out[k] = replace(page, text=text)
    notes = []
    if read_on:
        mean = sum(confidences) / len(confidences)
        n = len(read_on)
        notes.append(
            f"{OCR_NOTE} read the text of {n} picture{'s' if n > 1 else ''} on {pages_named(read_on)}; "
            f"mean word confidence {mean:.0f}"
        )
    if left:
        notes.append(
            f"pictures on {pages_named(left)} were not read by OCR: half the parsing time "
            f"({budget.limits.parse_s:g} s, {PARSE_S_ENV}) was used"
        )
    return out, notes + failed


__all__ = ["MIN_CONFIDENCE", "MIN_SHARE", "ocr_pictures", "text_pictures"]
