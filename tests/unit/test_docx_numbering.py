"""The numbers Word draws before numbered headings and list items (docling's ``unit_test_headers_numbered``
read "Section 1.1" for "1.1. Section 1.1", and every numbered item as a bullet)."""

from __future__ import annotations

import io
import zipfile

from ragkit.ingestion.docx_numbering import number_format
from ragkit.ingestion.parse import parse_bytes
from tests.fidelity_docs import docx_of

_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _lvl(k: int, fmt: str, text: str, style: str = "", start: int = 1) -> str:
    pstyle = f'<w:pStyle w:val="{style}"/>' if style else ""
    return (f'<w:lvl w:ilvl="{k}"><w:start w:val="{start}"/>{pstyle}<w:numFmt w:val="{fmt}"/>'
            f'<w:lvlText w:val="{text}"/></w:lvl>')  # fmt: skip


NUMBERING = (
    f'<?xml version="1.0" encoding="UTF-8"?><w:numbering {_W}>'
    f'<w:abstractNum w:abstractNumId="0">{_lvl(0, "decimal", "%1.", "Heading1")}'
    f"{_lvl(1, 'decimal', '%1.%2.', 'Heading2')}{_lvl(2, 'decimal', '%1.%2.%3.', 'Heading3')}</w:abstractNum>"
    f'<w:abstractNum w:abstractNumId="1">{_lvl(0, "decimal", "%1)")}{_lvl(1, "lowerLetter", "(%2)")}'
    f"{_lvl(2, 'lowerRoman', '%3.')}</w:abstractNum>"
    f'<w:abstractNum w:abstractNumId="2">{_lvl(0, "bullet", "•")}</w:abstractNum>'
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/>'
    '</w:num><w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num><w:num w:numId="4"><w:abstractNumId '
    'w:val="1"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num></w:numbering>'
)
STYLES = (
    f'<?xml version="1.0" encoding="UTF-8"?><w:styles {_W}>'
    + "".join(
        f'<w:style w:type="paragraph" w:styleId="Heading{k}"><w:name w:val="heading {k}"/><w:pPr><w:numPr>'
        f'<w:numId w:val="1"/></w:numPr></w:pPr></w:style>'
        for k in (1, 2, 3)
    )
    + "</w:styles>"
)


def _p(text: str, style: str = "", num: tuple[int, int] | None = None) -> str:
    pr = f'<w:pStyle w:val="{style}"/>' if style else ""
    pr += f'<w:numPr><w:ilvl w:val="{num[1]}"/><w:numId w:val="{num[0]}"/></w:numPr>' if num else ""
    return f"<w:p><w:pPr>{pr}</w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"


def _docx(paragraphs: list[str]) -> bytes:
    body = f'<?xml version="1.0" encoding="UTF-8"?><w:document {_W}><w:body>{"".join(paragraphs)}</w:body>'
    body += "</w:document>"
    base = io.BytesIO(docx_of(body))
    out = io.BytesIO()
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(out, "w") as z:
        for item in src.namelist():
            z.writestr(item, STYLES if item == "word/styles.xml" else src.read(item))
        z.writestr("word/numbering.xml", NUMBERING)
    return out.getvalue()


def test_numbered_headings_and_items_read_with_the_numbers_word_draws():
    text = parse_bytes("plan.docx", _docx([
        _p("Scope", "Heading1"), _p("Terms", "Heading2"), _p("Roles", "Heading2"), _p("Method", "Heading1"),
        _p("Skipped a level", "Heading3"), _p("Then the level", "Heading2"),
        _p("Submit the form", num=(2, 0)), _p("by post", num=(2, 1)), _p("or online", num=(2, 1)),
        _p("at the portal", num=(2, 2)), _p("Pay the fee", num=(2, 0)), _p("A bullet", num=(3, 0)),
        _p("A new list", num=(4, 0)), _p("goes on", num=(4, 0)),
    ])).text  # fmt: skip
    headings = ("# 1. Scope", "## 1.1. Terms", "## 1.2. Roles", "# 2. Method", "### 2.1.1. Skipped a level")
    items = ("## 2.2. Then the level", "1) Submit the form", "(a) by post", "(b) or online",
             "i. at the portal", "2) Pay the fee", "- A bullet", "1) A new list", "2) goes on")  # fmt: skip
    for line in headings + items:
        assert f"\n{line}\n" in f"\n{text}\n", line


def test_number_formats_count_as_word_counts():
    assert [number_format(n, "lowerLetter") for n in (1, 26, 27)] == ["a", "z", "aa"]
    assert [number_format(n, "upperRoman") for n in (4, 9, 14, 1999)] == ["IV", "IX", "XIV", "MCMXCIX"]
    assert number_format(7, "decimalZero") == "07" and number_format(12, "decimal") == "12"
