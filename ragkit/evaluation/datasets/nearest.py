"""For an evidence quote that is not in the collection: the passage that comes closest, and why the two
differ, so a question set with a few mistyped quotes is fixed in one pass instead of one error per try."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ragkit.core.folding import fold, fold_with_index

_WORD = re.compile(r"\S+")
_EDGE = ".,;:!?\"'()[]"
#: below this share of the quote's words, the nearest window is no match at all
MIN_SHARED = 0.3


@dataclass(frozen=True)
class Nearest:
    """The closest passage to a quote: where it is, its text as stored, the share of the quote's words it
    holds, and the differences that kept it from matching."""

    source: str
    page: int
    start: int
    end: int
    text: str
    shared: float
    why: str

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("source", "page", "start", "end", "text", "shared", "why")}


def _best_window(words: list[str], quote: list[str]) -> tuple[int, int, int]:
    """(shared words, start, end) of the passage of ``words`` closest to ``quote``: the tightest window
    of the quote's length with the most words in common, then aligned with the quote (its edges moved
    out by as many words as the quote has beyond its first and last shared word), so that "the rotor is
    checked every week" meets "rpm and is checked every month"."""
    want, size = Counter(quote), len(quote)
    have: Counter[str] = Counter()
    overlap, best = 0, (0, 0, size + 1)
    for i, w in enumerate(words):
        if have[w] < want[w]:
            overlap += 1
        have[w] += 1
        if i >= size:
            old = words[i - size]
            have[old] -= 1
            if have[old] < want[old]:
                overlap -= 1
        if overlap and overlap >= best[0]:
            start = max(0, i - size + 1)
            shared = [k for k in range(start, i + 1) if words[k] in want]
            tight = shared[-1] - shared[0]
            if overlap > best[0] or tight < best[2]:
                best = (overlap, start, tight)
    if not best[0]:
        return 0, 0, 0
    window = range(best[1], min(best[1] + size, len(words)))
    first = next(k for k in window if words[k] in want)
    last = next(k for k in reversed(window) if words[k] in want)
    before = quote.index(words[first])
    after = quote[::-1].index(words[last])  # the quote's words after its last shared one
    return best[0], max(0, first - before), min(len(words), last + 1 + after)


def why_not(quote: str, passage: str) -> str:
    """The first differences between a quote and a passage, word by word, as compared (folded); words
    are aligned without their edge punctuation, and a word whose punctuation alone differs is named."""
    raw_a, raw_b = fold(quote).split(), fold(passage).split()
    a, b = [w.strip(_EDGE) for w in raw_a], [w.strip(_EDGE) for w in raw_b]
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        q, p = " ".join(a[i1:i2]), " ".join(b[j1:j2])
        if op == "replace":
            out.append(f"the quote has “{q}” where the page has “{p}”")
        elif op == "delete":
            out.append(f"“{q}” is not on the page")
        elif op == "insert" and 0 < i1 < len(a):
            out.append(f"the page has “{p}” in between")
        elif op == "equal":
            # marks the page sets round the quote's ends ("order," for a quote ending "order") do not count
            for k, x, y in zip(range(i1, i2), raw_a[i1:i2], raw_b[j1:j2], strict=True):
                round_ends = (k == len(a) - 1 and y.startswith(x)) or (k == 0 and y.endswith(x))
                if x != y and not round_ends:
                    out.append(f"the quote has “{x}” where the page has “{y}”")
    return "; ".join(out[:3]) + ("; …" if len(out) > 3 else "") if out else "only spacing or case differ"


def nearest_passage(quote: str, documents: Iterable[Any], source: str | None = None) -> Nearest | None:
    """The window of the documents' pages (as many words as the quote) that shares most of its words;
    None when no window holds ``MIN_SHARED`` of them."""
    qwords = fold(quote).split()
    if not qwords:
        return None
    best: tuple[int, Any, Any, int, int] | None = None
    for doc in documents:
        if source is not None and doc.source != source:
            continue
        for page in doc.pages:
            words = fold_with_index(page.text)[0].split()
            overlap, start, end = _best_window(words, qwords)
            if overlap and (best is None or overlap > best[0]):
                best = (overlap, doc, page, start, end)
    if best is None or best[0] / len(qwords) < MIN_SHARED:
        return None
    overlap, doc, page, start, end = best
    folded, index = fold_with_index(page.text)
    spans = [m.span() for m in _WORD.finditer(folded)][start:end]
    a, b = index[spans[0][0]], index[spans[-1][1] - 1] + 1
    text = page.text[a:b]
    return Nearest(doc.source, page.number, a, b, text, round(overlap / len(qwords), 2), why_not(quote, text))
