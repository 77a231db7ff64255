"""Small documents that reproduce each way a reading went unfaithful (issue 39), built by the tests:
TeX-style PDFs (words placed one by one with no space characters, a decimal point in another font, a
fraction from raised and lowered digits, tables with and without ruling lines), an HTML page whose head
states a date its text does not, an essay saved in a layout table, and a Word file with a text box, a
merged cell, a content control and a footnote."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: the sentences and rows the documents print, as a reader typing them from the page would
DECIMAL = "The model reaches an accuracy of 0.65 on the test set."
FRACTION = "The rate was 48½ cents per mile."
RULED = [["Statistic", "Value"], ["Source articles", "12,480"], ["Basic clusters", "3,112"]]
UNRULED = [["Corpus", "Papers", "Citation contexts"], ["PubMed Central", "2.6M", "full text"],
           ["Open Research", "8.1M", "full text"]]  # fmt: skip


def set_in_font(font: Callable[[Any], int], text: bytes) -> bytes:
    """A one-page PDF that sets ``text`` (the font's codes) in the font ``font`` adds to the document (it
    returns the font's xref)."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    doc.xref_set_key(page.xref, "Resources", f"<< /Font << /F1 {font(doc)} 0 R >> >>")
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, b"BT /F1 12 Tf 72 720 Td (" + text + b") Tj ET")
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    return doc.tobytes()


def to_unicode_key(doc: Any, cmap: str | None) -> str:
    """A font dictionary's ``/ToUnicode`` entry for ``cmap``, its stream added to ``doc`` ("" for none)."""
    if cmap is None:
        return ""
    xref = doc.get_new_xref()
    doc.update_object(xref, "<<>>")
    doc.update_stream(xref, cmap.encode())
    return f"/ToUnicode {xref} 0 R"


def _words(
    page, x: float, y: float, words: list[str], font: str = "tiro", size: float = 10, gap: float = 0.3
):
    """Place each word on its own, as TeX does (no space characters, a gap of ``gap`` em)."""
    import pymupdf

    for w in words:
        page.insert_text((x, y), w, fontname=font, fontsize=size)
        x += pymupdf.get_text_length(w, fontname=font, fontsize=size) + gap * size
    return x


def _run(page, x: float, y: float, pieces: list[tuple[str, str, float, float]]) -> float:
    """Pieces set one after the other with no gap: (text, font, size, rise)."""
    import pymupdf

    for text, font, size, rise in pieces:
        page.insert_text((x, y - rise), text, fontname=font, fontsize=size)
        x += pymupdf.get_text_length(text, fontname=font, fontsize=size)
    return x


def tex_pdf(path: Path) -> Path:
    """A page with a TeX decimal, a set fraction, a ruled table and a table without ruling lines, all
    placed word by word with small-font gaps (0.25 em) that a fixed 3 pt tolerance glues."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page()
    x = _words(page, 72, 100, ["The", "model", "reaches", "an", "accuracy", "of"])
    x = _run(page, x, 100, [("0", "tiro", 10, 0), (".", "tiit", 10, 0), ("65", "tiro", 10, 0)])
    _words(page, x + 3, 100, ["on", "the", "test", "set."])
    x = _words(page, 72, 130, ["The", "rate", "was"])
    x = _run(
        page,
        x,
        130,
        [("48", "tiro", 10, 0), ("1", "tiro", 6, 3.5), ("/", "tiro", 10, 0), ("2", "tiro", 6, -1)],
    )
    _words(page, x + 3, 130, ["cents", "per", "mile."])
    top = 170
    for r, row in enumerate(RULED):
        for c, cell in enumerate(row):
            _words(page, 80 + c * 150, top + 18 * r + 13, cell.split(), size=8, gap=0.25)
    for r in range(len(RULED) + 1):
        page.draw_line((72, top + 18 * r), (372, top + 18 * r))
    for c in range(3):
        page.draw_line((72 + c * 150, top), (72 + c * 150, top + 18 * len(RULED)))
    top = 300
    for r, row in enumerate(UNRULED):
        for c, cell in enumerate(row):
            font = "tibo" if r == 0 else "tiro"
            _words(page, 80 + c * 120, top + 14 * r, cell.split(), font=font, size=8, gap=0.25)
    page.draw_line((72, top - 10), (440, top - 10))
    page.draw_line((72, top + 14 * len(UNRULED) - 8), (440, top + 14 * len(UNRULED) - 8))
    doc.save(path)
    return path


DATED_HTML = b"""<!DOCTYPE html><html><head><title>An essay on tools</title>
<meta property="article:published_time" content="2023-01-01T00:00:00Z">
<meta name="author" content="A. Writer"></head><body><article><h1>An essay on tools</h1>
<p>October 2023</p>
<p>Tools shape the work that gets done with them, and the best tools disappear while they are used.
This essay looks at three of them and at what they made easy, and what they made hard.</p>
<p>The first is the pencil, which costs almost nothing and never needs a charge, so it goes everywhere
and is used for everything from sketches to sums.</p></article></body></html>"""

ESSAY_HTML = b"""<html><head><title>How to Do Great Work</title></head><body>
<table border="0" cellspacing="0" cellpadding="0"><tr valign="top"><td><img src="t.gif" width="26"></td>
<td><a href="index.html"><img src="logo.gif"></a><br><br><table border="0" width="435"><tr><td>
<font size="2" face="verdana">October 2023<br><br>If you collected lists of techniques for doing great
work in a lot of different fields, what would the intersection look like? I decided to find out by making
it.<br><br>Partly my goal was to create a guide that could be used by someone working in any field. But I
was also curious about the shape of the intersection. And one thing this exercise shows is that it does
have a definite shape; it's not just a point labelled "work hard."<br><br>The following recipe assumes
you're very ambitious.[1] The first step is to decide what to work on.<br><br><b>Notes</b><br><br>[1] I
don't think you could give a precise definition of what counts as great work.<br><br></font></td></tr>
</table></td></tr></table></body></html>"""

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_DOCX_BODY = f"""<?xml version="1.0" encoding="UTF-8"?><w:document {_W}
 xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Site security plan</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Visitors sign in at the front desk</w:t></w:r><w:r>
<w:footnoteReference w:id="1"/></w:r>
<w:r><w:t>.</w:t></w:r><w:del><w:r><w:delText>Deleted words never shown.</w:delText></w:r></w:del>
<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><w:txbxContent><w:p><w:r>
<w:t>Badges expire after 90 days.</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice><mc:Fallback>
<w:pict><w:txbxContent><w:p><w:r><w:t>Badges expire after 90 days.</w:t></w:r></w:p></w:txbxContent>
</w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>
<w:sdt><w:sdtContent><w:p><w:r><w:t>Form field: the plan owner is Dana Reyes.</w:t></w:r></w:p>
</w:sdtContent></w:sdt>
<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Control</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>Owner</w:t></w:r>
</w:p></w:tc>
<w:tc><w:p><w:r><w:t>Review</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr><w:p><w:r><w:t>Door access logs</w:t></w:r></w:p></w:tc>
<w:tc><w:p><w:r><w:t>Monthly</w:t></w:r></w:p></w:tc></w:tr>
<w:tr><w:tc><w:p><w:r><w:t>Camera footage</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r>
<w:t>Security office</w:t></w:r></w:p></w:tc>
<w:tc><w:p><w:r><w:t>Weekly</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
</w:body></w:document>"""
_FOOTNOTES = f"""<?xml version="1.0" encoding="UTF-8"?><w:footnotes {_W}>
<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>
<w:footnote w:id="1"><w:p><w:r><w:t>Contractors sign in at gate B.</w:t></w:r></w:p></w:footnote>
</w:footnotes>"""
_STYLES = f"""<?xml version="1.0" encoding="UTF-8"?><w:styles {_W}>
<w:style w:type="paragraph" w:styleId="Heading1">
<w:name w:val="heading 1"/></w:style></w:styles>"""
_TYPES = """<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="xml" ContentType="application/xml"/>
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Override PartName="/word/document.xml"
ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"""
_RELS = """<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rId1"
Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"
Target="word/document.xml"/></Relationships>"""


def rich_docx() -> bytes:
    """A Word file whose text python-docx's paragraph view half loses: a footnote, a deleted revision,
    a text box (stored twice, as Word does), a content control, and a cell merged across two columns."""
    return docx_of(_DOCX_BODY, _FOOTNOTES)


def docx_of(document_xml: str, footnotes_xml: str | None = None) -> bytes:
    """A minimal Word package around ``document_xml`` (with a Heading 1 style, and footnotes if given)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("[Content_Types].xml", _TYPES)
        z.writestr("_rels/.rels", _RELS)
        z.writestr("word/document.xml", document_xml)
        if footnotes_xml:
            z.writestr("word/footnotes.xml", footnotes_xml)
        z.writestr("word/styles.xml", _STYLES)
    return out.getvalue()
