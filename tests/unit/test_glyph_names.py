"""Glyph names MuPDF does not know (a variant's suffix, TeX's sizes, Mathematical Pi's numbers) read as
the character they draw, not as U+FFFD."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.glyph_names import builtin_encoding, variant_text
from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from tests.fidelity_docs import set_in_font, to_unicode_key

#: codes 1-3 named as a Springer paper's fonts name them (TimesTenGreek's beta, Mathematical Pi's prime
#: and times sign); code 4 a Mathematical Pi number no table gives
_ENCODING = (
    "<< /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /betatwo /H11032 /H11003 /H99999] >>"
)
_TEXT = b"\x01-oxidation of the 5\x02 end, 1 \x03 10 spores \x04"


def _pdf(to_unicode: str | None = None) -> bytes:
    """A one-page PDF that sets ``_TEXT`` in a font whose encoding names codes 1-4 (with ``to_unicode``
    as its ToUnicode map, if given)."""

    def font(doc: pymupdf.Document) -> int:
        xref = doc.get_new_xref()
        tu = to_unicode_key(doc, to_unicode)
        doc.update_object(
            xref, f"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding {_ENCODING} {tu} >>"
        )
        return xref

    return set_in_font(font, _TEXT)


def test_the_names_read_as_unknown_before_mending():
    text = pymupdf.open(stream=_pdf(), filetype="pdf")[0].get_text()  # the codes, or U+FFFD from a font
    assert "oxidation" in text and not {"\u03b2", "\u2032", "\u00d7"} & set(text)


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_both_parsers_read_each_named_character(parser):
    doc = parse_bytes("names.pdf", _pdf(), max_mb=200, settings=ParseSettings(pdf_parser=parser))
    text = " ".join(doc.text.split())
    assert "\u03b2-oxidation of the 5\u2032 end, 1 \u00d7 10 spores" in text
    assert "\u03b2" in text and "H99999" not in text  # a number outside the table is not guessed


def test_a_code_its_to_unicode_map_reads_keeps_that_reading():
    cmap = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def\n"
        "1 begincodespacerange <00> <ff> endcodespacerange\n"
        "1 beginbfchar\n<01> <03D0>\nendbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end"
    )
    doc = parse_bytes("names.pdf", _pdf(cmap), max_mb=200)
    assert "\u03d0-oxidation" in doc.text and "5\u2032" in doc.text


def test_names_and_their_characters():
    assert variant_text("betatwo") == "\u03b2" and variant_text("alpha1") == "\u03b1"
    assert variant_text("braceleftbig") == "{" and variant_text("parenrightbigg") == ")"
    assert variant_text("summationdisplay") == "\u2211" and variant_text("integraltext") == "\u222b"
    assert variant_text("H11001") == "+" and variant_text("H11032") == "\u2032"
    assert variant_text("beta") == ""  # MuPDF reads a listed name itself
    assert variant_text("bracelefttp") == ""  # the top piece of a built-up brace is no character
    assert variant_text("g12") == variant_text("cid123") == variant_text("onetwo") == ""


def test_a_type1_programs_own_encoding():
    program = b"%!PS-AdobeFont-1.0: CMEX10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n"
    program += b"dup 0 /parenleftbig put\ndup 2 /braceleftbig put\nreadonly def\ncurrentfile eexec\n"
    program += b"dup 9 /ignored put"  # past eexec: the encrypted part is not read
    assert builtin_encoding(program) == {0: "parenleftbig", 2: "braceleftbig"}


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_sign_named_by_its_unicode_name_reads_as_that_sign(parser):
    """An Apple financial statement's "$": its font names code 33 "dollarsign" (the Unicode name, no
    glyph-list name) and its ToUnicode map is empty; it read as U+FFFD ("� 73,929")."""
    empty = (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def\n"
        "1 begincodespacerange <00> <ff> endcodespacerange\nendcmap CMapName currentdict /CMap "
        "defineresource pop end end"
    )

    def font(doc: pymupdf.Document) -> int:
        xref = doc.get_new_xref()
        doc.update_object(
            xref,
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /Differences "
            f"[33 /dollarsign] >> {to_unicode_key(doc, empty)} >>",
        )
        return xref

    doc = parse_bytes(
        "apple.pdf",
        set_in_font(font, b"Products sold in the three months ended April 1, 2023: ! 73,929"),
        settings=ParseSettings(pdf_parser=parser),
    )
    assert "$ 73,929" in doc.text and "\ufffd" not in doc.text and "!" not in doc.text
    assert variant_text("dollarsign") == "$" and variant_text("degreesign") == "\u00b0"
    assert variant_text("design") == variant_text("assign") == ""  # no glyph's name before "sign"
