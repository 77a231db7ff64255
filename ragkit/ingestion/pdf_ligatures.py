"""Ligature glyphs read as all their letters.

Some PDF producers write a font's ToUnicode map with a ligature glyph mapped to its last letter only: the
ICDAR 2013 table PDFs set in Adobe Garamond/Myriad/Minion map ``/T_h`` to "h", ``/f_f`` to "f", ``/f_i``
to "i", so every reader of the text layer (PyMuPDF, pdfplumber) gets "he" for "The" and "diferences" for
"differences". A font without a ToUnicode map fares no better with a ligature name MuPDF does not know
(``/T_h`` reads "T"). The font's own encoding still names each glyph, and a ligature's name spells its
letters (``T_h``, ``f_f_i``, ``fi``, ``uni00540068``), so where the text a code reads as is only part of
the letters its name spells, the font gets a ToUnicode entry for that code with all of them. Nothing else
changes: other codes keep their mapping, and a ligature already read in full (as "fi" or "ﬁ") is left be.

The same entry mends a font known to draw a character at another one's code: Foradian's Rupee font,
set in Indian government and central-bank reports from before the rupee sign had a key, draws "₹" at the
grave accent's code, so every reader got "`2.45 crore" (and a Markdown code mark) for "₹2.45 crore".
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from ragkit.ingestion.glyph_names import DINGBATS, builtin_encoding, listed_text, variant_text

_TOKEN = re.compile(r"/([^\s/\[\]<>()]+)|(-?\d+)")
_HEX = re.compile(r"<([0-9A-Fa-f]*)>")
_BFCHAR = re.compile(r"beginbfchar(.*?)endbfchar", re.S)
_BFRANGE = re.compile(r"beginbfrange(.*?)endbfrange", re.S)
_RANGE = re.compile(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]*>|\[[^\]]*\])")
_SIMPLE = {"/Type1", "/MMType1", "/TrueType", "/Type3"}  # fonts whose encoding may name their glyphs
#: fonts (their names' letters, lower-cased, after any subset tag) that draw a character at another's code
_DRAWS = {"rupeeforadian": {0x60: "\u20b9"}}


def differences(encoding: str) -> dict[int, str]:
    """A font encoding's ``/Differences`` array (``[27/f_l 29/f_f/f_i]``) as code -> glyph name."""
    out: dict[int, str] = {}
    code = 0
    for m in _TOKEN.finditer(encoding):
        if m.group(2) is not None:
            code = int(m.group(2))
        else:
            out[code] = m.group(1)
            code += 1
    return out


def ligature_letters(name: str) -> str:
    """The letters a ligature glyph's name spells ("T_h" -> "Th", "f_f_i.alt" -> "ffi", "fl" -> "fl"),
    or "" if the name is not a ligature's (one letter, or a part that is no letter)."""
    parts = [listed_text(p) for p in name.split(".", 1)[0].split("_")]
    if not all(parts):
        return ""
    letters = unicodedata.normalize("NFKC", "".join(parts))
    return letters if len(letters) > 1 and letters.isalpha() else ""


def _utf16(hexa: str) -> str:
    return bytes.fromhex(hexa.rjust(-(-len(hexa) // 4) * 4, "0")).decode("utf-16-be", "replace")


def to_unicode(cmap: str) -> dict[int, str]:
    """A simple font's ToUnicode CMap (its ``bfchar`` and ``bfrange`` entries for one-byte codes) as code ->
    text; later entries win, as in MuPDF and pdfminer."""
    out: dict[int, str] = {}
    blocks = [(m.start(), m.group(1), False) for m in _BFCHAR.finditer(cmap)]
    blocks += [(m.start(), m.group(1), True) for m in _BFRANGE.finditer(cmap)]
    for _, body, ranged in sorted(blocks):
        if not ranged:
            pairs = _HEX.findall(body)
            out.update((int(a, 16), _utf16(b)) for a, b in zip(pairs[::2], pairs[1::2], strict=False))
            continue
        for lo, hi, dst in _RANGE.findall(body):
            first, last = int(lo, 16), min(int(hi, 16), 255)  # a simple font's codes are one byte
            if dst.startswith("["):
                out.update((first + i, _utf16(h)) for i, h in enumerate(_HEX.findall(dst)))
                continue
            hexa = dst[1:-1]
            if not hexa:
                continue
            base = bytes.fromhex(hexa.rjust(-(-len(hexa) // 4) * 4, "0"))
            for i in range(last - first + 1):
                tail = (int.from_bytes(base[-2:], "big") + i) & 0xFFFF  # the last UTF-16 unit counts up
                out[first + i] = (base[:-2] + tail.to_bytes(2, "big")).decode("utf-16-be", "replace")
    return out


def _part_of(read: str, letters: str) -> bool:
    """Whether ``read`` is a proper part of ``letters`` ("h" of "Th"): letters lost, not other text."""
    read = unicodedata.normalize("NFKC", read)
    return 0 < len(read) < len(letters) and read in letters


def _entries(mended: dict[int, str]) -> str:
    lines = [f"<{c:02X}> <{t.encode('utf-16-be').hex().upper()}>" for c, t in sorted(mended.items())]
    return f"{len(lines)} beginbfchar\n" + "\n".join(lines) + "\nendbfchar\n"


_NEW_CMAP = (
    "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CMapType 2 def\n"
    "/CMapName /RagkitLigatures def\n1 begincodespacerange\n<00> <FF>\nendcodespacerange\n"
    "{entries}endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
)


def _drawn(doc: Any, xref: int) -> dict[int, str]:
    """The characters a font known to draw them at other codes (:data:`_DRAWS`) draws, by code."""
    name = doc.xref_get_key(xref, "BaseFont")[1].replace("#20", " ").rsplit("+", 1)[-1]
    letters = re.sub(r"[^a-z]", "", name.lower())
    return next((codes for font, codes in _DRAWS.items() if letters.startswith(font)), {})


def _dingbats(doc: Any, xref: int) -> bool:
    """Whether the font ``xref`` is a Zapf Dingbats font (its glyphs named "a1" to "a191")."""
    return "dingbats" in doc.xref_get_key(xref, "BaseFont")[1].lower()


def _names(doc: Any, xref: int) -> dict[int, str]:
    """The glyph name of each code of the simple font ``xref``: its encoding's ``/Differences``, or where
    the PDF gives no encoding, a Type 1 font program's own (TeX's fonts name their glyphs there)."""
    kind, array = doc.xref_get_key(xref, "Encoding/Differences")
    if kind == "array":
        return {c: n for c, n in differences(array).items() if 0 <= c < 256}
    if doc.xref_get_key(xref, "Encoding")[0] != "null":
        return {}
    kind, ref = doc.xref_get_key(xref, "FontDescriptor/FontFile")  # Type 1, clear text up to "eexec"
    return builtin_encoding(doc.xref_stream(int(ref.split()[0])) or b"") if kind == "xref" else {}


def mend_font(doc: Any, xref: int) -> int:
    """Give the simple font ``xref`` a ToUnicode entry with all the letters for each ligature its encoding
    names that it reads as only some of them, one for each code it does not read whose glyph name means a
    character (:func:`~ragkit.ingestion.glyph_names.variant_text`: "betatwo", "H11032"), and one for
    each character it is known to draw at another's code. Returns the number of codes mended."""
    if doc.xref_get_key(xref, "Subtype")[1] not in _SIMPLE:
        return 0
    names = _names(doc, xref)
    lig = {c: (n, letters) for c, n in names.items() if (letters := ligature_letters(n))}
    named = {c: text for c, n in names.items() if (text := variant_text(n))}
    if _dingbats(doc, xref):
        named.update((c, DINGBATS[n]) for c, n in names.items() if n in DINGBATS)
    drawn = _drawn(doc, xref)
    if not lig and not named and not drawn:
        return 0
    kind, ref = doc.xref_get_key(xref, "ToUnicode")
    cmap = doc.xref_stream(int(ref.split()[0])).decode("latin-1") if kind == "xref" else None
    if (kind != "null" and cmap is None) or (cmap is not None and "endcmap" not in cmap):
        return 0  # a map this does not read: left as it is
    known = to_unicode(cmap) if cmap is not None else {}
    mended = {}
    for code, (name, letters) in lig.items():
        read = known[code] if code in known else listed_text(name)  # an unmapped code is read by name
        if _part_of(read, letters):
            mended[code] = letters
    mended.update((code, text) for code, text in named.items() if known.get(code, "\ufffd") == "\ufffd")
    mended.update((code, text) for code, text in drawn.items() if known.get(code) != text)
    if not mended:
        return 0
    if cmap is not None:  # later entries override the wrong ones
        text = cmap.replace("endcmap", _entries(mended) + "endcmap", 1)
    else:  # codes it does not map are read by their names, as before
        text = _NEW_CMAP.format(entries=_entries(mended))
    new = doc.get_new_xref()  # a new stream: another font may share the old one
    doc.update_object(new, "<<>>")
    doc.update_stream(new, text.encode("latin-1"))
    doc.xref_set_key(xref, "ToUnicode", f"{new} 0 R")
    return len(mended)


def mend_ligatures(doc: Any) -> int:
    """Mend every simple font of an opened PDF whose ligatures read short, whose glyphs' names MuPDF does
    not know, or that draws a character at another's code (see :func:`mend_font`).
    Returns the number of codes mended (0: the document is unchanged)."""
    seen: set[int] = set()
    mended = 0
    for pno in range(doc.page_count):
        for font in doc.get_page_fonts(pno):
            if font[0] > 0 and font[0] not in seen:
                seen.add(font[0])
                try:
                    mended += mend_font(doc, font[0])
                except (RuntimeError, ValueError):  # a damaged font object: read as it was
                    continue
    return mended


__all__ = ["differences", "ligature_letters", "mend_font", "mend_ligatures", "to_unicode"]
