"""The numbers Word draws before numbered headings and list items ("1.1 Scope", "3. Submit the form",
"(b) the operator"), counted as Word counts them from ``word/numbering.xml``. They are not in the
paragraph's text runs, so without this "1.1 Section 1.1" read "Section 1.1" and every numbered item
read as a bullet. Bullets stay bullets (``None``)."""

from __future__ import annotations

import re
from typing import Any

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_LEVELS = 9
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))  # fmt: skip


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out, n = out + letters, n - value
    return out


def _letters(n: int) -> str:
    """Word's letter numbering: a … z, then aa … zz."""
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else ""


def number_format(n: int, fmt: str) -> str:
    """``n`` written in Word's number format ``fmt`` (decimal, lowerLetter, upperRoman, …)."""
    if fmt in ("lowerLetter", "upperLetter"):
        return _letters(n) if fmt == "lowerLetter" else _letters(n).upper()
    if fmt in ("lowerRoman", "upperRoman"):
        return _roman(n) if fmt == "lowerRoman" else _roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def _int(el: Any, default: int, attr: str = "val") -> int:
    """The integer in ``el``'s ``w:`` attribute ``attr`` (``default`` when ``el`` or the value is missing
    or no integer)."""
    try:
        return int(el.get(f"{W}{attr}")) if el is not None else default
    except (TypeError, ValueError):
        return default


class Numbering:
    """The document's numbering definitions and Word's running counters; ``label`` is called once per
    numbered paragraph, in document order."""

    def __init__(self, numbering: Any, styles: Any) -> None:
        self.levels: dict[
            str, dict[int, tuple[int, str, str]]
        ] = {}  # abstract id -> level -> start, fmt, text
        self.style_level: dict[tuple[str, str], int] = {}  # (abstract id, style id) -> level
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}  # num id -> abstract id, start overrides
        self.counts: dict[str, list[int]] = {}
        self.style_num: dict[str, tuple[str, int | None]] = {}
        for ab in numbering.iter(f"{W}abstractNum") if numbering is not None else ():
            aid, levels = ab.get(f"{W}abstractNumId", ""), {}
            for lvl in ab.findall(f"{W}lvl"):
                k = _int(lvl, 0, "ilvl")
                fmt, text = lvl.find(f"{W}numFmt"), lvl.find(f"{W}lvlText")
                levels[k] = (_int(lvl.find(f"{W}start"), 1), fmt.get(f"{W}val", "decimal") if fmt is not None
                             else "decimal", text.get(f"{W}val", "") if text is not None else "")  # fmt: skip
                if (style := lvl.find(f"{W}pStyle")) is not None:
                    self.style_level[(aid, style.get(f"{W}val", ""))] = k
            self.levels[aid] = levels
        for num in numbering.iter(f"{W}num") if numbering is not None else ():
            ab = num.find(f"{W}abstractNumId")
            overrides = [o for o in num.findall(f"{W}lvlOverride") if o.find(f"{W}startOverride") is not None]
            starts = {_int(o, 0, "ilvl"): _int(o.find(f"{W}startOverride"), 1) for o in overrides}
            self.nums[num.get(f"{W}numId", "")] = (ab.get(f"{W}val", "") if ab is not None else "", starts)
        for style in styles.iter(f"{W}style") if styles is not None else ():
            pr = style.find(f"{W}pPr/{W}numPr")
            if pr is not None and (num_id := pr.find(f"{W}numId")) is not None:
                ilvl = pr.find(f"{W}ilvl")
                level = _int(ilvl, 0) if ilvl is not None else None
                self.style_num[style.get(f"{W}styleId", "")] = (num_id.get(f"{W}val", ""), level)

    def label(self, num_pr: Any, style_id: str) -> str | None:
        """The number Word draws before a paragraph with numbering ``num_pr`` (its ``w:numPr``, or None)
        and style ``style_id``; None for a bullet, no numbering, or an unknown list."""
        if num_pr is not None and num_pr.find(f"{W}numId") is not None:
            num_id, level = num_pr.find(f"{W}numId").get(f"{W}val", ""), _int(num_pr.find(f"{W}ilvl"), 0)
        elif style_id in self.style_num:
            num_id, level = self.style_num[style_id]
        else:
            return None
        if num_id not in self.nums:
            return None  # numId 0 (numbering removed) or a list with no definition
        aid, starts = self.nums[num_id]
        if level is None:
            level = self.style_level.get((aid, style_id), 0)
        levels = self.levels.get(aid, {})
        if level not in levels or levels[level][1] in ("bullet", "none"):
            return None
        key = num_id if starts else aid  # a list restarted by an override counts on its own
        counts = self.counts.setdefault(key, [0] * _LEVELS)
        start = starts.get(level, levels[level][0])
        counts[level] = counts[level] + 1 if counts[level] else start
        counts[level + 1 :] = [0] * (_LEVELS - level - 1)
        for k in range(level):  # a level skipped ("1." then "1.1.1.") shows, and counts as, its start
            counts[k] = counts[k] or (levels[k][0] if k in levels else 1)

        def one(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            return number_format(counts[k], levels[k][1]) if k in levels else ""

        return re.sub(r"%(\d)", one, levels[level][2]).strip() or None
