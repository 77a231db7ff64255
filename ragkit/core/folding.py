"""Text folded the way a person compares a quote with a page: case, spacing (none beside a bracket),
dashes and hyphens, quote marks, ligatures and compatibility forms, vulgar fractions and Markdown markup
do not count. One fold for every place that looks a quote up (evidence labels, the fidelity benchmark,
OCR's output), so a quote typed from the rendered page is found in the stored reading whichever parser
made it. A quote is also found where the page sets a footnote or reference marker inside it (a wiki's
"over and over.[15] This", a paper's raised "arXiv,² PubMed"), as people leave markers out of what they
quote: the reading keeps them, as the page shows them, and :func:`find_folded` looks again without them."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d"
_SINGLE = "\u2018\u2019\u201a\u201b\u2032\u00b4\u0060"
_DOUBLE = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"
_INVISIBLE = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_VULGAR = {"½": " 1/2", "⅓": " 1/3", "⅔": " 2/3", "¼": " 1/4", "¾": " 3/4", "⅛": " 1/8", "⅜": " 3/8",
           "⅝": " 5/8", "⅞": " 7/8", "⅕": " 1/5", "⅙": " 1/6"}  # fmt: skip
_TABLE = str.maketrans(
    {**{c: "-" for c in _DASHES}, **{c: "'" for c in _SINGLE}, **{c: '"' for c in _DOUBLE}, "\u2044": "/"}
)
#: Markdown a rendered page does not show: emphasis and code marks, a link's target, a heading's hashes,
#: a list or quote marker at a line start (a task list's box with it: "- [x] ", drawn as a box), a
#: table's pipes
_MARKUP = re.compile(
    r"^[ \t]*[-+*][ \t]+\[[ xX]\][ \t]|\]\([^)\s]*\)|!?\[(?=[^\]\n]*\]\()|\*\*?|__|(?<!\w)_(?=\S)"
    r"|(?<=\S)_(?!\w)|`+|^[ \t]*#{1,6}[ \t]|^[ \t]*(?:[-+>]|\d+\.)[ \t]|\|",
    re.M,
)


#: a reference or footnote marker set against the text before it: "[15]", "[3][4]", a wiki's "[a]",
#: "[note 2]", "[citation needed]" and "[1]: 207" (a page of the source) after a word or a stop, raised
#: digits after a letter or a stop ("arXiv,²"); not "[1] Smith" opening a list, not "x²"'s power when it
#: is what the quote has (the first look keeps markers)
_MARKS = re.compile(
    r"(?<=[^\s\[\]\d])(?:\[(?:\d{1,3}|[a-z]|note \d{1,3}|citation needed)\]"
    r"(?::\s?\d+(?:[-\u2013]\d+)?)?)+(?![\w(])"
    r"|(?<=[^\s\d\u00b2\u00b3\u00b9\u2070-\u2079])[\u00b2\u00b3\u00b9\u2070\u2074-\u2079]+(?!\w)"
)


#: brackets: the space beside one does not count ("( 000's )" is "(000's)"): a page sets brackets
#: tight or loose (a full-width "（" carries its own space), and a reader types what they see
_BRACKETS = frozenset("()[]{}")


@lru_cache(maxsize=4096)
def _char(ch: str) -> str:
    """One character folded (possibly to several, or to none)."""
    if ch in _INVISIBLE:
        return ""
    if ch in _VULGAR:
        return _VULGAR[ch]
    return unicodedata.normalize("NFKC", ch.translate(_TABLE)).translate(_TABLE).casefold()


@lru_cache(maxsize=256)
def fold_with_index(text: str, marks: bool = True) -> tuple[str, tuple[int, ...]]:
    """``text`` folded (see the module), and for each folded character the offset in ``text`` it came
    from. Hyphens count as spaces ("ultra-high-speed" is "ultra high-speed"), whitespace runs as one,
    and none beside a bracket; without ``marks``, reference and footnote markers (:data:`_MARKS`) do not
    count either."""
    skip = bytearray(len(text))
    for m in _MARKUP.finditer(text):
        skip[m.start() : m.end()] = b"\x01" * (m.end() - m.start())
    for m in () if marks else _MARKS.finditer(text):
        skip[m.start() : m.end()] = b"\x02" * (m.end() - m.start())
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        out = (" " if ch == "|" and skip[i] == 1 else "") if skip[i] else _char(ch)
        for c in out:
            if c.isspace() or c == "-":
                if chars and chars[-1] != " ":
                    chars.append(" ")
                    index.append(i)
                continue
            chars.append(c)
            index.append(i)
    while chars and chars[-1] == " ":
        chars.pop()
        index.pop()
    if _BRACKETS.intersection(chars):  # "RPK ( 000's )" as typed from full-width "RPK（000's）"
        beside = {k for k, c in enumerate(chars) if c in _BRACKETS for k in (k - 1, k + 1)}
        keep = [k for k, c in enumerate(chars) if c != " " or k not in beside]
        chars, index = [chars[k] for k in keep], [index[k] for k in keep]
    return "".join(chars), tuple(index)


def fold(text: str, marks: bool = True) -> str:
    """``text`` folded for comparison (see :func:`fold_with_index`)."""
    return fold_with_index(text, marks)[0]


def find_folded(quote: str, text: str, marks: bool = False) -> tuple[int, int] | None:
    """``(start, end)`` in ``text`` of the first place that reads as ``quote`` once both are folded; where
    none does, of the first that does with the markers in either left out (unless ``marks``: then
    markers count)."""
    for keep in (True,) if marks else (True, False):
        target = fold(quote, keep)
        if len(target) < 3:
            return None
        folded, index = fold_with_index(text, keep)
        at = folded.find(target)
        if at != -1:
            return index[at], index[at + len(target) - 1] + 1
    return None
