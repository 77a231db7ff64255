"""Pictures of text on pages that have a text layer (:mod:`ragkit.ingestion.figures`): read by OCR into
the page, in place and marked as picture text; a photo adds nothing; a scan is not read twice."""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest

from ragkit.core.folding import fold
from ragkit.ingestion.ocr import tesseract_path
from ragkit.ingestion.parse import parse_bytes

pytestmark = pytest.mark.skipif(tesseract_path() is None, reason="Tesseract is not installed")

BOXED = "Dispatch is not permitted with both autopilot systems inoperative."


def _picture_of(text: str) -> bytes:
    """A PNG of ``text`` set in a box, as a scanned figure (150 dpi)."""
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=200)
    page.draw_rect(pymupdf.Rect(10, 10, 410, 190))
    page.insert_textbox(pymupdf.Rect(20, 30, 400, 180), text, fontsize=12)
    return page.get_pixmap(dpi=150).tobytes("png")


def _report(picture: bytes) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "The rule lists the provisions of the equipment list in figure 10.")
    page.insert_image(pymupdf.Rect(72, 100, 540, 330), stream=picture)  # a fifth of the page
    page.insert_text((72, 360), "Operators must revise their lists within thirty days of the rule.")
    return doc.tobytes()


def test_a_picture_of_text_is_read_in_place_and_marked_as_picture_text():
    doc = parse_bytes("rule.pdf", _report(_picture_of(BOXED)))
    page = doc.pages[0]
    text = fold(page.text)
    at = text.find(fold(BOXED))
    assert at >= 0, page.text
    assert text.find("equipment list in figure 10") < at < text.find("within thirty days")
    assert any(fold(page.text[a:b]).find(fold("both autopilot systems")) >= 0 for a, b in page.pictures)
    assert any("read the text of 1 picture on page 1" in w for w in doc.warnings)


def test_a_photo_adds_no_text():
    """Blotches Tesseract reads as a spray of marks at low confidence ("he" " se Fe | Ts, = …")."""
    field = np.random.default_rng(7).normal(size=(92, 182))
    blotches = ((np.kron(field, np.ones((5, 5)))[:450, :900] > 1.0) * 255).astype(np.uint8)
    photo = pymupdf.Pixmap(pymupdf.csGRAY, 900, 450, blotches.tobytes(), False).tobytes("png")
    doc = parse_bytes("rule.pdf", _report(photo))
    assert doc.pages[0].pictures == () and not any("picture" in w for w in doc.warnings)


def test_a_scanned_page_is_read_once():
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=200)
    page.insert_image(page.rect, stream=_picture_of(BOXED))
    read = parse_bytes("scan.pdf", doc.tobytes())
    assert fold(read.text).count(fold("autopilot systems")) == 1


def test_no_ocr_means_no_picture_text():
    from ragkit.ingestion.parsing import ParseSettings

    doc = parse_bytes("rule.pdf", _report(_picture_of(BOXED)), settings=ParseSettings(ocr="never"))
    assert "autopilot" not in doc.text


def test_pictures_are_left_unread_rather_than_the_document_refused_when_time_runs_short(monkeypatch):
    from ragkit.ingestion import figures

    monkeypatch.setattr(figures, "TIME_SHARE", 0.0)  # as if half the parsing time were already used
    doc = parse_bytes("rule.pdf", _report(_picture_of(BOXED)))
    assert "autopilot" not in doc.text and "within thirty days" in doc.text
    assert any("pictures on page 1 were not read by OCR" in w for w in doc.warnings)


def test_a_picture_tesseract_fails_on_is_noted_and_the_page_keeps_its_text(monkeypatch):
    from ragkit.core.errors import DocumentError
    from ragkit.ingestion import figures

    def fails(*_a, **_k):
        raise DocumentError("OCR", "Tesseract took more than 120 s on one page")

    monkeypatch.setattr(figures, "read_region", fails)
    doc = parse_bytes("rule.pdf", _report(_picture_of(BOXED)))
    assert "within thirty days" in doc.text and "autopilot" not in doc.text
    assert any("a picture on page 1 could not be read by OCR (Tesseract took" in w for w in doc.warnings)
