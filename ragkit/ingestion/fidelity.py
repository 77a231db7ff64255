"""Checks that a document's reading says only what the document says: no markup of a parser's own making
(HTML comments and tags, emphasis around a lone symbol, Markdown escapes), and no date the source does not
contain. Used by the tests that walk every parser over its fixtures and by ``bench/fidelity.py``."""

from __future__ import annotations

import re

#: markup a parser wrote that the document does not show
LEAKS = {
    "html comment": re.compile(r"<!--|-->"),
    "html tag": re.compile(r"</?(?:br|sup|sub|u|mark|span|div|p|td|tr|table|img|a)\b[^>\n]{0,200}>", re.I),
    "emphasis around a symbol": re.compile(r"(?<![\w*])(?:_[^\w\s]{1,3}_|\*\*[^\w\s]{1,3}\*\*)(?![\w*])"),
    "markdown escape": re.compile(r"\\[\[\]_*#`<>]"),
    "picture placeholder": re.compile(r"intentionally omitted|picture text", re.I),
    "unmapped glyph": re.compile(r"\(cid:\d+\)"),
}

_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
#: a full date as prose or digits writes it: "1 January 2023", "January 1, 2023", "2023-01-01"
DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+(?:{_MONTHS}|{_MON})\s+\d{{4}}|(?:{_MONTHS}|{_MON})\s+\d{{1,2}},?\s+\d{{4}}"
    r"|\d{4}-\d{2}-\d{2})\b",
    re.I,
)


def markup_leaks(text: str) -> list[tuple[str, str]]:
    """(kind, the text found) for every piece of parser markup in ``text``; code blocks are left alone
    (a README's code may hold ``<br>`` on purpose)."""
    out: list[tuple[str, str]] = []
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for kind, pattern in LEAKS.items():
        out += [(kind, m.group(0)) for m in pattern.finditer(prose)]
    return out


def _squash(text: str) -> str:
    return re.sub(r"[\s,.]+", " ", text).lower()


def invented_dates(reading: str, source_text: str) -> list[str]:
    """Dates in ``reading`` that ``source_text`` (the document's own text: its bytes for text formats,
    its text layer for a PDF) does not contain, spacing and punctuation aside."""
    have = _squash(source_text)
    return [m.group(0) for m in DATE.finditer(reading) if _squash(m.group(0)) not in have]
