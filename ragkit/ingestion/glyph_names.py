"""The character a font's glyph name stands for, where the Adobe Glyph List does not know the name.

A PDF font without a ToUnicode entry for a code is read by the name its encoding gives the glyph; a name
outside the Adobe Glyph List reads as U+FFFD. Two kinds of such names are common in papers and mean one
character each:

- a letter's or sign's name with a variant's suffix: "betatwo" (TimesTenGreek's second beta), TeX's
  extension sizes "braceleftbig", "parenrightbigg", "summationdisplay", or the Unicode name's "sign"
  ("dollarsign": an Apple financial statement's "$");
- the Mathematical Pi fonts' numbered names ("H11001" is "+", "H11032" the prime of "5′–3′"), which
  typesetters of journals set their signs and Greek letters in.

Where the PDF gives no encoding, a Type 1 font's program names each code in its clear text ("dup 2
/braceleftbig put"): TeX's extension font CMEX10 is read so.

A Zapf Dingbats font's glyphs are named by number ("a19" is the check mark "✓", "a23" the ballot "✗" a
paper's results table marks its ablations with); MuPDF reads such a name as the control character of its
number, so a dingbats font's names are read by :data:`DINGBATS` instead.

The Mathematical Pi table holds only names whose character is attested in more than one public
decoding table, or by the formula it is set in; others stay unread rather than guessed.
"""

from __future__ import annotations

import re

#: Mathematical Pi glyph names and the characters they draw
MATH_PI = {
    "H11001": "+", "H11002": "\u2212", "H11003": "\u00d7", "H11005": "=", "H11021": "<", "H11022": ">",
    "H11032": "\u2032", "H9251": "\u03b1", "H9252": "\u03b2", "H9254": "\u03b4", "H9266": "\u03c0",
}  # fmt: skip
#: Zapf Dingbats glyph names (Adobe's zapfdingbats list) and the characters they draw: the check marks
#: and crosses, the black star, circle and square, circled digits and the plain arrows
DINGBATS = {
    "a19": "\u2713", "a20": "\u2714", "a21": "\u2715", "a22": "\u2716", "a23": "\u2717", "a24": "\u2718",
    "a35": "\u2605", "a71": "\u25cf", "a73": "\u25a0", "a160": "\u2794", "a161": "\u2192", "a163": "\u2194",
    **{f"a{120 + k}": chr(0x2460 + k) for k in range(10)},  # ① to ⑩
    **{f"a{130 + k}": chr(0x2776 + k) for k in range(30)},  # ❶ to ❿, then the sans-serif ones ➀ to ➓
}  # fmt: skip
#: suffixes that name a variant or a size of the glyph the rest of the name names
_VARIANT = re.compile(
    r"(.{2,}?)(?:one|two|three|four|five|six|seven|eight|nine|big|bigg|Big|Bigg|text|display|sign|\d+)"
)
_UNI = re.compile(r"(?:uni((?:[0-9A-F]{4})+)|u([0-9A-F]{4,6}))")
#: a Type 1 font's clear-text encoding entry: "dup <code> /<name> put"
_DUP = re.compile(rb"dup\s+(\d{1,3})\s*/([^\s/\[\]<>(){}]+)\s+put")


def listed_text(name: str) -> str:
    """The text of a glyph name the Adobe Glyph List knows, or a ``uniXXXX``/``uXXXX`` name
    ("f" -> "f", "uni00540068" -> "Th", "fi" -> "ﬁ"); "" for any other name."""
    import pymupdf

    m = _UNI.fullmatch(name)
    if m:
        if m.group(1):
            return "".join(chr(int(m.group(1)[i : i + 4], 16)) for i in range(0, len(m.group(1)), 4))
        code = int(m.group(2), 16)
        return chr(code) if code <= 0x10FFFF else ""
    u = pymupdf.mupdf.fz_unicode_from_glyph_name(name)
    return "" if u in (0, 0xFFFD) else chr(u)


def variant_text(name: str) -> str:
    """The one character a name outside the Adobe Glyph List stands for: a Mathematical Pi name, or a
    known name with a variant's or a size's suffix ("betatwo" -> "β", "summationdisplay" -> "∑");
    "" when the name is listed (its own reading holds) or means nothing known."""
    if listed_text(name):
        return ""
    if name in MATH_PI:
        return MATH_PI[name]
    m = _VARIANT.fullmatch(name.split(".", 1)[0])
    base = listed_text(m.group(1)) if m else ""
    return base if len(base) == 1 and not (base.isspace() or base.isdigit()) else ""


def builtin_encoding(program: bytes) -> dict[int, str]:
    """A Type 1 font program's own encoding (code -> glyph name) from its clear text; empty for a
    compact (CFF) font or one using the standard encoding."""
    head = program.split(b"eexec", 1)[0]
    return {int(c): n.decode("latin-1") for c, n in _DUP.findall(head) if int(c) < 256}


__all__ = ["DINGBATS", "MATH_PI", "builtin_encoding", "listed_text", "variant_text"]
