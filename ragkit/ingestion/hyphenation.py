"""Re-joining words hyphenated at a line end, only where the joined word is the plausible one."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from pathlib import Path

_HYPHEN_BREAK = re.compile(r"([^\W\d_]+)-\n([a-z][^\W\d_]*)")


#: any word or number broken at a line end by a hyphen the PDF writer kept (resolved by ``resolve``)
_ANY_BREAK = re.compile(r"(\w+)-\n(\w+)")
_LEFT_BREAK = re.compile(r"(?<=\w)-\n(?=\S)")

_WORD = re.compile(r"[^\W\d_]+")


_HYPHENATED = re.compile(r"[^\W\d_]+-[^\W\d_]+")


_WORD_LIST: frozenset[str] | None = None
#: the least length of a word the text holds elsewhere for it to count as a compound's second word
_SEEN_LEN = 4


def english_words() -> frozenset[str]:
    """A lower-case English word list: the whole words of the MiniLM tokenizer's vocabulary (about 20k
    common words), kept in ``english_words.txt`` beside this module so no install needs the model."""
    global _WORD_LIST
    if _WORD_LIST is None:
        text = Path(__file__).with_name("english_words.txt").read_text(encoding="utf-8")
        _WORD_LIST = frozenset(text.split())
    return _WORD_LIST


#: endings a word list of whole words often lacks the derived word for ("read" but not "readable")
_SUFFIXES = ("able", "ible", "ing", "ed", "er", "ly", "ness", "ment", "es", "s")


def _worded(word: str, words: frozenset[str]) -> bool:
    """Whether ``word`` is in ``words`` or is one of them with a common ending ("readable": "read")."""
    return word in words or any(
        word.endswith(s) and len(word) - len(s) >= 3 and word[: -len(s)] in words for s in _SUFFIXES
    )


class _Hyphenation:
    """Re-joins words hyphenated at a line end only where the joined word is the more plausible one.

    For ``X-⏎Y``, the first rule that applies: join if ``XY`` occurs elsewhere in the document; keep
    ``X-Y`` if that hyphenated form occurs elsewhere; join if ``XY`` is in the word list; keep the hyphen
    after an acronym ("GROBID-parsed"); join if a known word starts like ``XY`` ("lever-aging":
    "leverage"); keep the hyphen if ``X`` and ``Y`` are both words, ``Y`` perhaps with a common ending
    the list lacks or a word the text holds elsewhere (a compound: "aggressively-cleaned",
    "machine-readable", "Alpha-hexabromocyclododecane");
    otherwise join (a syllable break: "classi-fication").
    """

    def __init__(self, texts: Iterable[str]) -> None:
        joined = "\n".join(texts).lower()
        unbroken = _HYPHEN_BREAK.sub(" ", joined)  # the broken fragments are not evidence
        self.seen = set(_WORD.findall(unbroken))
        self.seen_hyphenated = set(_HYPHENATED.findall(unbroken))
        self._sorted: list[str] | None = None
        self._seconds: set[str] | None = None  # the second words of the hyphenated forms, when asked

    def _known_prefix(self, prefix: str) -> bool:
        if self._sorted is None:
            self._sorted = sorted(self.seen | english_words())
        i = bisect.bisect_left(self._sorted, prefix)
        return i < len(self._sorted) and self._sorted[i].startswith(prefix)

    def _seen_word(self, word: str) -> bool:
        """Whether the text holds ``word`` after a hyphen, not at a line's end ("Alpha-⏎hexabromo…" beside
        "Beta-hexabromo…": a compound's second word, which the word list lacks; a name's second half,
        "Eun-⏎jeong" beside "Jeong", is none)."""
        if self._seconds is None:
            self._seconds = {h.rsplit("-", 1)[1] for h in self.seen_hyphenated}
        return len(word) >= _SEEN_LEN and word in self._seconds

    def _rejoin(self, m: re.Match[str]) -> str:
        x, y = m.group(1), m.group(2)
        joined, lx, ly = (x + y).lower(), x.lower(), y.lower()
        if joined in self.seen:
            return x + y
        if f"{lx}-{ly}" in self.seen_hyphenated:
            return f"{x}-{y}"
        words = english_words()
        if joined in words:
            return x + y
        if len(x) > 1 and x.isupper():
            return f"{x}-{y}"
        if len(ly) >= 3 and self._known_prefix(lx + ly[:2]):
            return x + y
        if len(lx) > 1 and len(ly) > 1 and lx in words and (_worded(ly, words) or self._seen_word(ly)):
            return f"{x}-{y}"
        return x + y

    def resolve(self, texts: list[str]) -> list[str]:
        """Each text with its line-end hyphen breaks (``X-\\nY``) resolved: a word broken in two joined
        where the joined word is the plausible one (as :meth:`join_lines` decides, capitals included:
        "SCI-⏎ENCEPARSE" is "SCIENCEPARSE" where the document writes it so, a heading's "RE-⏎LATED" is
        "RELATED", a known word), the hyphen kept otherwise
        ("4969-⏎4983", "Auto-⏎Encoding")."""
        return [_LEFT_BREAK.sub("-", _ANY_BREAK.sub(self._rejoin_any, t)) for t in texts]

    def _rejoin_any(self, m: re.Match[str]) -> str:
        x, y = m.group(1), m.group(2)
        capitals = x.isupper() and y.isupper()  # a heading set in capitals: "RE-⏎LATED MATTERS"
        if x.isalpha() and y.isalpha() and (y[0].islower() or capitals or (x + y).lower() in self.seen):
            return self._rejoin(m)
        return f"{x}-{y}"

    def join_lines(self, block_text: str) -> str:
        """One PDF text block -> one line: line-end hyphens resolved, whitespace folded."""
        return " ".join(_HYPHEN_BREAK.sub(self._rejoin, block_text).split())


def unbreak(text: str) -> str:
    """One text's line-end hyphen breaks resolved by its own words and the word list (a table cell's
    wrapped lines, "a con-⏎stant voltage", before they are put on one line): see
    :meth:`_Hyphenation.resolve`."""
    return _Hyphenation([text]).resolve([text])[0] if "-\n" in text else text
