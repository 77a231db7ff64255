"""Ligature glyphs a font's ToUnicode map reads as their last letter ("he" for "The") read in full."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_ligatures import differences, ligature_letters, mend_ligatures, to_unicode
from tests.fidelity_docs import set_in_font, to_unicode_key

#: as the ICDAR 2013 PDFs' Adobe Garamond: each ligature mapped to its last letter, but /f_l (27) mapped
#: in full and /f_f_l (28) to its ligature character
_CMAP = """/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def
1 begincodespacerange <00> <ff> endcodespacerange
4 beginbfrange
<1d> <1d> <0066>
<1e> <1e> <0069>
<1f> <1f> <0068>
<20> <7e> <0020>
endbfrange
2 beginbfchar
<1b> <0066006C>
<1c> <FB04>
endbfchar
endcmap CMapName currentdict /CMap defineresource pop end end"""
_TEXT = b"\x1fe di\x1derence is \x1enal, \x1bat and ba\x1ce"  # The difference is final, flat and baffle


def _font(doc: pymupdf.Document, to_unicode_map: str | None) -> int:
    enc = "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [27 /f_l /f_f_l /f_f /f_i /T_h] >>"
    tu = to_unicode_key(doc, to_unicode_map)
    font = doc.get_new_xref()
    widths = " ".join(["500"] * 256)
    doc.update_object(
        font,
        f"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding {enc} {tu}"
        f" /FirstChar 0 /LastChar 255 /Widths [{widths}] >>",
    )
    return font


def _pdf(to_unicode_map: str | None = _CMAP) -> bytes:
    """A one-page PDF that sets ``_TEXT`` in a font whose encoding names its ligature glyphs."""
    return set_in_font(lambda doc: _font(doc, to_unicode_map), _TEXT)


def test_the_pdf_reads_short_before_mending():
    doc = pymupdf.open(stream=_pdf(), filetype="pdf")
    assert doc[0].get_text().split()[:2] == ["he", "diference"]  # what every reader got


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_both_parsers_read_every_letter(parser):
    doc = parse_bytes("lig.pdf", _pdf(), max_mb=200, settings=ParseSettings(pdf_parser=parser))
    assert " ".join(doc.text.split()) == "The difference is final, flat and baffle"


def test_a_font_without_to_unicode_reads_an_unknown_ligature_name_in_full():
    doc = pymupdf.open(stream=_pdf(None), filetype="pdf")
    assert doc[0].get_text().split()[0] == "Te"  # MuPDF reads /T_h by its first letter
    assert mend_ligatures(doc) == 1  # /T_h only: /f_f, /f_i, /f_l, /f_f_l are names MuPDF knows
    flags = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES  # "ﬁ" as "fi"
    assert " ".join(doc[0].get_text(flags=flags).split()) == "The difference is final, flat and baffle"


def test_a_pdf_read_in_full_is_left_unchanged():
    full = {"<1d> <1d> <0066>": "<1d> <1d> <FB00>", "<1e> <1e> <0069>": "<1e> <1e> <00660069>",
            "<1f> <1f> <0068>": "<1f> <1f> <00540068>"}  # fmt: skip
    cmap = _CMAP
    for short, whole in full.items():
        cmap = cmap.replace(short, whole)
    doc = pymupdf.open(stream=_pdf(cmap), filetype="pdf")
    assert mend_ligatures(doc) == 0


def test_glyph_names_and_maps():
    assert ligature_letters("T_h") == "Th" and ligature_letters("f_f_i.alt") == "ffi"
    assert ligature_letters("fl") == "fl" and ligature_letters("uni00540068") == "Th"
    assert ligature_letters("f") == "" and ligature_letters("quoteright") == ""
    assert ligature_letters("one_half") == ""  # not letters
    assert differences("[27/f_l 29/f_f/f_i/T_h]") == {27: "f_l", 29: "f_f", 30: "f_i", 31: "T_h"}
    got = to_unicode(_CMAP)
    assert (got[0x1B], got[0x1C], got[0x1D], got[0x1F], got[0x41]) == ("fl", "\ufb04", "f", "h", "A")


_RUPEE = b"Includes `2.45 crore outstanding under the market loan suspense account."


def _rupee_pdf(base_font: str) -> bytes:
    """A one-page PDF that sets ``_RUPEE`` in a WinAnsi font called ``base_font`` (as an Indian report
    sets it in Foradian's Rupee font, whose grave accent draws the rupee sign)."""

    def font(doc: pymupdf.Document) -> int:
        xref = doc.get_new_xref()
        doc.update_object(
            xref, f"<< /Type /Font /Subtype /Type1 /BaseFont /{base_font} /Encoding /WinAnsiEncoding >>"
        )
        return xref

    return set_in_font(font, _RUPEE)


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_the_rupee_font_reads_its_grave_accent_as_the_rupee_sign(parser):
    data = _rupee_pdf("ASLDCO+RupeeForadian")
    assert "`2.45" in pymupdf.open(stream=data, filetype="pdf")[0].get_text()  # what readers got
    doc = parse_bytes("rupee.pdf", data, max_mb=200, settings=ParseSettings(pdf_parser=parser))
    assert "Includes \u20b92.45 crore outstanding" in " ".join(doc.text.split())


def test_another_font_keeps_its_grave_accent():
    doc = parse_bytes("grave.pdf", _rupee_pdf("Helvetica"), max_mb=200)
    assert "2.45 crore" in doc.text and "\u20b9" not in doc.text


def _dingbats_pdf(base_font: str) -> bytes:
    """A results table's row whose marks are set in a font called ``base_font`` whose encoding names its
    codes by Zapf Dingbats' numbered glyphs (as TeX's pifont sets a paper's check marks and crosses)."""
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    page.insert_text((50, 50), "Negatives of each kind, with and without in-batch training:", fontsize=10)
    page.insert_text((50, 80), "Gold 31", fontsize=10)
    page.insert_text((120, 80), "3", fontsize=10, fontname="zadb")
    page.insert_text((50, 100), "Random 7", fontsize=10)
    page.insert_text((120, 100), "7", fontsize=10, fontname="zadb")
    font = next(f[0] for f in page.get_fonts() if f[3] == "ZapfDingbats")
    doc.xref_set_key(font, "Encoding", "<< /Type /Encoding /Differences [51 /a19 55 /a23] >>")
    doc.xref_set_key(font, "BaseFont", f"/{base_font}")
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_dingbats_fonts_numbered_glyphs_read_as_the_marks_they_draw(parser):
    """The DPR paper's ablation table (issue 39): its ✓ and ✗ read as control characters (MuPDF reads
    "a19" as character 19), so the cells were empty; another font's "a19" is left as it is read."""
    data = _dingbats_pdf("YCQRWY+Dingbats")
    assert "\x13" in pymupdf.open(stream=data, filetype="pdf")[0].get_text()  # what readers got
    doc = parse_bytes("marks.pdf", data, max_mb=200, settings=ParseSettings(pdf_parser=parser))
    assert "Gold 31 \u2713" in " ".join(doc.text.split()) and "Random 7 \u2717" in " ".join(doc.text.split())
    other = parse_bytes("other.pdf", _dingbats_pdf("Helvetica"), settings=ParseSettings(pdf_parser=parser))
    assert "\u2713" not in other.text and "Gold 31" in other.text
