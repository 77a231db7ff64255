"""Paragraphs, then sentences, then windows of ``n`` sentences.

The sentence splitter is rule-based and punctuation-aware: it does not split after abbreviations
("e.g.", "Fig. 3", "et al."), initials ("J. Smith"), dotted acronyms ("U.S.") or inside decimals.
Each row of a Markdown table is a sentence of its own (a table has no sentence punctuation). The
splitter is linear in the text length: a match can only start at the beginning of a run of
punctuation, and its quantifiers are possessive, so a 100 KB run of dots is one step, not n².
"""

from __future__ import annotations

import re

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option, Settings
from ragkit.ingestion.chunkers.base import BaseChunker, Segment

ABBREVIATIONS = frozenset(
    """
    al approx apr aug ca cf ch chap co col corp dec dept dr ed eds eg eq eqs esp est etc ex fig figs
    feb gen gov ie inc jan jr jul jun lt ltd mar messrs mr mrs ms mt no nos nov oct pp prof ref refs
    resp rev sec sect sep sept sgt sr st supp tab tabs vol vols vs viz
    """.split()
)
# Sentence end: . ! ? (or an ellipsis), optional closing quotes/brackets, then whitespace.
_END = re.compile(r"(?<![.!?])(?:\.{3}(?![.!?])|[.!?]++)['\"”’)\]]*+(?=\s)")
_TABLE_LINE = re.compile(r"[ \t]*\|")
_PARA = re.compile(r"\n[ \t]*\n\s*")


def paragraphs(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each blank-line separated paragraph in ``text[start:end]``."""
    end = len(text) if end is None else end
    out, pos = [], start
    for m in _PARA.finditer(text, start, end):
        if text[pos : m.start()].strip():
            out.append((pos, m.start()))
        pos = m.end()
    if text[pos:end].strip():
        out.append((pos, end))
    return out


def sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence in ``text[start:end]`` (offsets into ``text``); a Markdown table
    row (a line starting with ``|``) is a sentence of its own."""
    end = len(text) if end is None else end
    if text.find("|", start, end) == -1:
        return _prose_sentences(text, start, end)
    out: list[tuple[int, int]] = []
    prose = start  # start of the current run of non-table lines
    pos = start
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl == -1 else nl
        if _TABLE_LINE.match(text, pos, line_end):
            if prose < pos:
                out.extend(_prose_sentences(text, prose, pos))
            if text[pos:line_end].strip():
                out.append((pos, line_end))
            prose = line_end + 1
        pos = line_end + 1
    if prose < end:
        out.extend(_prose_sentences(text, prose, end))
    return out


def _prose_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out, pos = [], start
    for m in _END.finditer(text, start, end):
        if _is_boundary(text, m.start(), m.end(), end):
            out.append((pos, m.end()))
            pos = m.end()
    if text[pos:end].strip():
        out.append((pos, end))
    # drop whitespace-only pieces and strip leading whitespace from each
    cleaned = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        if s < e:
            cleaned.append((s, e))
    return cleaned


def _is_boundary(text: str, punct_start: int, punct_end: int, end: int) -> bool:
    punct = text[punct_start:punct_end]
    nxt = punct_end
    while nxt < end and text[nxt].isspace():
        nxt += 1
    if nxt >= end:
        return True
    following = text[nxt]
    if punct.startswith(".") and not punct.startswith("..."):
        word_start = punct_start
        while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in "([\"'":
            word_start -= 1
        word = text[word_start:punct_start]
        bare = word.replace(".", "").lower()
        if bare in ABBREVIATIONS:
            # "etc." and "al." may end a sentence: only trust that before a capitalised common word
            return bool(bare in {"etc"} and following.isupper())
        if len(word) == 1 and word.isalpha() and word.isupper():
            return False  # an initial: "J. Smith"
        if "." in word and all(len(part) <= 2 for part in word.split(".") if part):
            return False  # dotted acronym or abbreviation: "U.S.", "e.g.", "i.e."
    # a sentence starts with a capital, digit, quote or bracket; "e.g. the" continues the sentence
    return following.isupper() or following.isdigit() or following in "\"'“‘([" or not following.isalpha()


class SentenceChunker(BaseChunker):
    """Windows of ``n`` consecutive sentences inside a paragraph, stepping ``n - overlap``."""

    component = Component(
        "chunker",
        "sentence",
        "windows of n sentences inside a paragraph (each table row is a sentence)",
        options=(
            Option("n", "int", 3, 1, 100_000, flag="--window", help="sentences per chunk", suggest=(2, 3, 5)),
            Option("overlap", "int", 0, 0, 100_000, suggest=(0, 1),
                   help="characters a window shares with the previous one (sentence: sentences)"),
        ),
    )  # fmt: skip

    def check(self, settings: Settings) -> None:
        if not settings.overlap < settings.n:
            raise ConfigError(
                f"sentence: overlap must be >= 0 and below n ({settings.n}), got {settings.overlap}"
            )

    def segments(self, text: str) -> list[Segment]:
        n, step = self.config.n, self.config.n - self.config.overlap
        out: list[Segment] = []
        for p_start, p_end in paragraphs(text):
            if _END.search(text, p_start, p_end) is None and text.find("|", p_start, p_end) == -1:
                out.append(Segment(p_start, p_end))  # one sentence (no inner sentence end): the paragraph
                continue
            sents = sentences(text, p_start, p_end)
            for i in range(0, len(sents), step):
                window = sents[i : i + n]
                out.append(Segment(window[0][0], window[-1][1]))
                if i + n >= len(sents):
                    break
        return out
