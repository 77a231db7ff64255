"""A justified column set tight (word spaces squeezed to about 0.12 em, no space character written, as in
an RNA journal's page) read "LongnoncodingRNA(ncRNA),whichconsistsof": both parsers now write the spaces
the page shows, and leave kerning, monospaced code and an ordinary page as MuPDF reads them."""

from __future__ import annotations

import pymupdf
import pytest

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.parsing import ParseSettings
from ragkit.ingestion.pdf_spacing import engine_rawdict, respace

LINES = [
    "Long noncoding RNA (ncRNA), which consists of more than",
    "two hundred nucleotides and has little or no protein coding",
    "capability, is a remarkable class of molecules that play an",
    "important role in binding proteins and consolidating the",
    "tertiary structures of many different molecules in cells.",
]


def _page(lines: list[str], gap_em: float, font: str = "helv", squeeze: bool = True) -> bytes:
    """A page whose words are placed one by one, ``gap_em`` apart, with no space character between
    them (``squeeze``) or with MuPDF's own spaced text (not squeezed)."""
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=300)
    size = 10.0
    for n, line in enumerate(lines):
        y = 60 + 14 * n
        if not squeeze:
            page.insert_text((40, y), line, fontsize=size, fontname=font)
            continue
        x = 40.0
        for word in line.split():
            page.insert_text((x, y), word, fontsize=size, fontname=font)
            x += pymupdf.get_text_length(word, fontname=font, fontsize=size) + gap_em * size
    return doc.tobytes()


def _read(data: bytes, parser: str) -> str:
    doc = parse_bytes("squeezed.pdf", data, max_mb=50, settings=ParseSettings(pdf_parser=parser, ocr="never"))
    return " ".join(doc.text.split())


def test_mupdf_writes_no_space_at_a_squeezed_gap():
    """The defect's ground: MuPDF's own reading, before any repair, glues the words."""
    text = pymupdf.open(stream=_page(LINES, 0.12), filetype="pdf")[0].get_textpage().extractText()
    assert "Longnoncoding" in text.replace(" ", "") and "Long noncoding" not in text


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_squeezed_word_spaces_are_read_as_spaces(parser):
    text = _read(_page(LINES, 0.12), parser)
    for line in LINES:
        assert line in text, (line, text)


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_kerning_sized_gaps_do_not_split_words(parser):
    """Gaps of 0.05 em, the size of kerning, are not word spaces: the words stay whole."""
    text = _read(_page(LINES, 0.05), parser)
    assert "Longnoncoding" in text.replace(" ", "")
    assert "Long noncoding" not in text


def _raw(data: bytes) -> dict:
    """The page as PyMuPDF reads it, whether or not a parse in this process has installed respacing."""
    page = pymupdf.open(stream=data, filetype="pdf")[0]
    return engine_rawdict(page.get_textpage(flags=pymupdf.TEXTFLAGS_RAWDICT))


def _texts(raw: dict) -> list[str]:
    lines = [ln for b in raw["blocks"] for ln in b.get("lines", [])]
    return ["".join(c["c"] for s in ln["spans"] for c in s["chars"]) for ln in lines]


def test_a_page_of_ordinary_spacing_is_returned_as_it_is():
    raw = _raw(_page(LINES, 0.0, squeeze=False))
    before = _texts(raw)
    assert _texts(respace(raw)) == before


def _tracked(lines: list[str], tracking_em: float) -> bytes:
    """A page set letter-spaced: every glyph placed on its own, ``tracking_em`` after the one before."""
    doc = pymupdf.open()
    page = doc.new_page(width=600, height=300)
    for n, line in enumerate(lines):
        x = 40.0
        for ch in line:
            if ch != " ":
                page.insert_text((x, 60 + 14 * n), ch, fontsize=10, fontname="cour")
            x += pymupdf.get_text_length(ch, fontname="cour", fontsize=10) + tracking_em * 10
    return doc.tobytes()


def test_letter_spaced_text_is_not_split_at_every_letter():
    """Letter-spaced headings, and monospaced code whose glyphs are narrower than their cells, have the
    same gap at every letter: none of them is a word space."""
    lines = ["for sentence in document", "print the sentences now", "import everything here"]
    raw = _raw(_tracked(lines, 0.1))
    before = _texts(raw)
    assert "sentence" in " ".join(before)
    assert _texts(respace(raw)) == before


def test_two_short_squeezed_lines_are_not_evidence_enough():
    """One or two tight lines of a few words can be a table's figures or a formula: a page needs three,
    or one long phrase."""
    raw = _raw(_page(["set to 0.95 units", "871 bp and 932 bp"], 0.12))
    before = _texts(raw)
    assert _texts(respace(raw)) == before


def test_one_long_squeezed_line_is_evidence_enough():
    line = "Users can easily filter candidates by setting a suitable cutoff value."
    raw = _raw(_page([line], 0.12))
    assert _texts(raw) == [line.replace(" ", "")]
    assert _texts(respace(raw)) == [line]


def _synthetic_line(words: list[str], y: float, empty_after_first: bool) -> dict:
    """A RAWDICT line of 10-pt glyphs 5 pt wide, words 1.2 pt (0.12 em) apart, one span per word; with
    ``empty_after_first`` an empty span stands between the first two words (a font switch with no glyph)."""
    spans, x = [], 40.0
    for k, word in enumerate(words):
        chars = []
        for c in word:
            chars.append({"c": c, "origin": (x, y), "bbox": (x, y - 8, x + 5, y + 2)})
            x += 5
        x += 1.2
        spans.append({"size": 10.0, "chars": chars, "bbox": (chars[0]["bbox"][0], y - 8, x, y + 2)})
        if k == 0 and empty_after_first:
            spans.append({"size": 10.0, "chars": [], "bbox": (x, y - 8, x, y + 2)})
    return {"dir": (1.0, 0.0), "bbox": (40.0, y - 8, x, y + 2), "spans": spans}


def test_a_squeezed_space_before_an_empty_span_is_written_and_nothing_breaks():
    lines = [_synthetic_line(LINES[n].split(), 60.0 + 14 * n, empty_after_first=True) for n in range(3)]
    page = respace({"blocks": [{"type": 0, "lines": lines}]})
    assert _texts(page) == LINES[:3]


def _roomless_space_page() -> bytes:
    """A line whose space before "a" takes no room (a form's "15a", written "15", " ", "a" with "a" set
    back over the space), beside a line with a real space."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv", fontsize=10)  # the font, in the page's resources
    xref = page.get_contents()[0]
    doc.update_stream(
        xref,
        b"BT /helv 10 Tf 72 700 Td [(Line 15 ) 278 (a IRA distributions)] TJ ET\n"
        b"BT /helv 10 Tf 72 680 Td (Line 16 a has a real space) Tj ET\n",
    )
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_space_that_takes_no_room_is_not_read(parser):
    doc = parse_bytes("form.pdf", _roomless_space_page(), settings=ParseSettings(pdf_parser=parser))
    text = "\n".join(p.text for p in doc.pages)
    assert "Line 15a IRA distributions" in text
    assert "Line 16 a has a real space" in text


def _ruled_table_with_roomless_space() -> bytes:
    """A ruled table (read by pdfplumber) whose head cell writes "Defi", a space and "cit" set back over
    the space ("Surplus/Deficit" on the page, "Surplus/Defi cit" in the text layer)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv", fontsize=10)  # the font, in the page's resources
    xref = page.get_contents()[0]
    rows = [(b"[(Surplus/Defi ) 278 (cit)] TJ", b"(Production) Tj"), (b"(Cuttack) Tj", b"(3.81) Tj"),
            (b"(Jajpur) Tj", b"(2.17) Tj"), (b"(Balasore) Tj", b"(3.64) Tj")]  # fmt: skip
    stream = b""
    for k, (left, right) in enumerate(rows):
        y = 700 - 24 * k
        stream += b"BT /helv 10 Tf 80 %d Td %s ET\nBT /helv 10 Tf 260 %d Td %s ET\n" % (y, left, y, right)
    for k in range(len(rows) + 1):
        y = 716 - 24 * k
        stream += b"72 %d m 400 %d l S\n" % (y, y)
    for x in (72, 250, 400):
        stream += b"%d 716 m %d %d l S\n" % (x, x, 716 - 24 * len(rows))
    doc.update_stream(xref, stream)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_ruled_cells_space_that_takes_no_room_is_not_read(parser):
    doc = parse_bytes(
        "agstat.pdf", _ruled_table_with_roomless_space(), settings=ParseSettings(pdf_parser=parser)
    )
    text = "\n".join(p.text for p in doc.pages)
    assert "| Surplus/Deficit | Production |" in text
    assert "| Cuttack | 3.81 |" in text


def _ruled_table_with_padded_cells() -> bytes:
    """A ruled table as a spreadsheet exports it: each first cell's date is written with spaces of padding
    that run on over the next cell's date ("06/22/2015" and ten spaces, over "03/25/2016")."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "x", fontname="helv", fontsize=10)  # the font, in the page's resources
    xref = page.get_contents()[0]
    pad = b" " * 10
    rows = [(b"Notice", b"Effective", b"Company"), (b"06/22/2015" + pad, b"03/25/2016", b"Maxim Integrated"),
            (b"06/30/2015" + pad, b"08/29/2015", b"McGraw-Hill"),
            (b"07/01/2015" + pad, b"09/02/2015", b"Leidos")]  # fmt: skip
    stream = b""
    for k, row in enumerate(rows):
        y = 700 - 24 * k
        for x, text in zip((76, 134, 204), row, strict=True):
            stream += b"BT /helv 10 Tf %d %d Td (%s) Tj ET\n" % (x, y, text)
    for k in range(len(rows) + 1):
        stream += b"72 %d m 400 %d l S\n" % (716 - 24 * k, 716 - 24 * k)
    for x in (72, 130, 200, 400):
        stream += b"%d 716 m %d %d l S\n" % (x, x, 716 - 24 * len(rows))
    doc.update_stream(xref, stream)
    return doc.tobytes()


@pytest.mark.parametrize("parser", ["layout", "plain"])
def test_a_cells_padding_over_the_next_cell_does_not_split_its_words(parser):
    """The California WARN report (issue 39) read "0 3 / 2 5 / 2 0 16" for the effective date: the
    notice date's padding spaces lie over it. Spaces between words stay."""
    data = _ruled_table_with_padded_cells()
    doc = parse_bytes("warn.pdf", data, settings=ParseSettings(pdf_parser=parser))
    text = "\n".join(p.text for p in doc.pages)
    assert "| 06/22/2015 | 03/25/2016 | Maxim Integrated |" in text, text
    assert "| Notice | Effective | Company |" in text
