"""Right-to-left text that a PDF library returned in visual order (left to right across the page) put
back in reading order: pdfplumber reads a Persian table cell "کالای داخلی" as "یلخاد یلااک". A line
whose letters are mostly Arabic or Hebrew is reversed, and each run of numbers and Latin words in it
(left to right on the page as in reading) is turned back ("47.500", "5%", "SARS (U)"). Lines of
left-to-right text are left alone."""

from __future__ import annotations

import re

_RTL = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"
_RTL_LETTER = re.compile(f"[{_RTL}]")
#: a run that reads left to right inside right-to-left text: numbers and Latin words, and the spaces
#: and signs between them
_LTR_RUN = re.compile(f"[^\\s{_RTL}]+(?:\\s+[^\\s{_RTL}]+)*")


def has_rtl(text: str) -> bool:
    """Whether ``text`` holds an Arabic or Hebrew letter (so x order on the page is not reading order)."""
    return _RTL_LETTER.search(text) is not None


def _rtl_line(line: str) -> bool:
    rtl = len(_RTL_LETTER.findall(line))
    other = sum(c.isalpha() for c in line) - rtl
    return rtl > other


def _restore(m: re.Match[str]) -> str:
    run = m.group(0)
    return run[::-1] if any(c.isascii() and c.isalnum() for c in run) else run


def logical_order(text: str) -> str:
    """``text`` (lines in visual order) with each right-to-left line in reading order."""
    lines = text.split("\n")
    return "\n".join(_LTR_RUN.sub(_restore, line[::-1]) if _rtl_line(line) else line for line in lines)


def visual_glyphs(chars: list[dict]) -> int:
    """Turn the text of each right-to-left glyph that stands for several letters (the lam-alef ligature,
    "لا") so that reversing a visual line restores it ("کالای", not "کاالی"). ``chars`` are pdfplumber's
    character dicts, changed in place; returns how many."""
    n = 0
    for c in chars:
        text = c.get("text") or ""
        if len(text) > 1 and _RTL_LETTER.search(text) and not c.get("ragkit_turned"):
            c["text"], c["ragkit_turned"], n = text[::-1], True, n + 1  # once, however often it is read
    return n
