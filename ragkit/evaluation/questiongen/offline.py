"""Offline questions, no model: a keyword query of a passage's most salient words.

For each passage the sentence with the highest mean inverse document frequency (over every passage of
the collection) is the evidence; the question is its ``TERMS`` most salient words (tf·idf), most salient
first, and the gold answer is the sentence. The method is lexical by construction: the query's words are
the evidence's words, so it favours BM25 over dense retrieval. How far its ranking of set-ups agrees with
real questions is measured (``bench/question_agreement.py``) and shown beside the method.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from ragkit.evaluation.questiongen.passages import Passage
from ragkit.evaluation.questiongen.records import GeneratedQuestion
from ragkit.ingestion.chunkers.sentence import sentences

GENERATOR = "offline:salient-terms"
TERMS = 6
MIN_WORDS, MAX_WORDS = 8, 80
NO_PROSE = "passage skipped: no prose sentence of 8-80 words"
BIAS_NOTE = (
    "Offline questions are keyword queries made of each passage's rarest words: they share words with "
    "their evidence by construction, so BM25 finds nearly all of them and they favour lexical set-ups. "
    "Measured against real questions they do not rank set-ups the same way: use them as a smoke test "
    "(a broken index, a regression), not to choose a set-up; for that, write or label real questions, or "
    "generate them with an LLM."
)
_WORD = re.compile(r"\d+(?:[.,]\d+)*|[^\W_]+(?:[-'][^\W_]+)*")  # "6.5" is one word
_MARKUP = re.compile(r"(?m)^\s*(?:#|\||>|[-*] )|\*\*|_\{|@|\|\s*---")
_ALPHA = re.compile(r"[(\"']?[^\W\d_]{2,}(?:[-'][^\W\d_]+)*[)\"',.;:]*")
PROSE_SHARE = 0.7


def prompt_hash() -> str:
    """What stands in for a prompt: the method and its settings."""
    return hashlib.sha256(f"{GENERATOR}:{TERMS}:{MIN_WORDS}:{MAX_WORDS}".encode()).hexdigest()[:12]


class IdfTable:
    """Inverse document frequency of analysed terms over passages (the collection's, not one chunker's)."""

    def __init__(self, passages: Sequence[Passage], analyzer: Any) -> None:
        self.analyzer = analyzer
        self._count([set(analyzer(p.text)) for p in passages])

    @classmethod
    def of_terms(cls, term_sets: Sequence[set[str]], analyzer: Any) -> IdfTable:
        """The table from each passage's analysed terms, when the caller has them already."""
        table = cls.__new__(cls)
        table.analyzer = analyzer
        table._count(term_sets)
        return table

    def _count(self, term_sets: Sequence[set[str]]) -> None:
        df: Counter[str] = Counter()
        for terms in term_sets:
            df.update(terms)
        self.n = max(1, len(term_sets))
        self.df = df

    def idf(self, term: str) -> float:
        return math.log(1 + (self.n - self.df.get(term, 0) + 0.5) / (self.df.get(term, 0) + 0.5))


def _terms(text: str, analyzer: Any) -> list[tuple[str, str]]:
    """``(surface word, analysed term)`` per word that is not a stop word."""
    out = []
    for w in _WORD.findall(text):
        if len(w) < 3 and not w.isdigit():
            continue  # initials and particles ("Y. p.") are rare, not salient
        t = analyzer(w)
        if t:
            out.append((w, t[0]))
    return out


def prose(sentence: str) -> bool:
    """A sentence of running text: 8-80 words, mostly words, no heading, table row or Markdown markup
    (an affiliation block or a table row is rare text, not a question's subject)."""
    tokens = sentence.split()
    if not MIN_WORDS <= len(tokens) <= MAX_WORDS or _MARKUP.search(sentence):
        return False
    return sum(bool(_ALPHA.fullmatch(t)) for t in tokens) >= PROSE_SHARE * len(tokens)


def offline_question(
    passage: Passage, page_text: str, idf: IdfTable, terms: int = TERMS, skip: int = 0
) -> GeneratedQuestion | None:
    """The keyword question of one passage, or None when no sentence has enough words."""
    best: tuple[float, int, int] | None = None
    for s, e in sentences(page_text, passage.start, passage.end):
        if not prose(page_text[s:e]):
            continue
        words = _terms(page_text[s:e], idf.analyzer)
        if len(words) < 3:
            continue
        score = sum(idf.idf(t) for _, t in words) / len(words)
        if best is None or score > best[0]:
            best = (score, s, e)
    if best is None:
        return None
    _, s, e = best
    sentence = page_text[s:e].strip()
    tf = Counter(t for _, t in _terms(sentence, idf.analyzer))
    surface: dict[str, str] = {}
    for w, t in _terms(sentence, idf.analyzer):
        surface.setdefault(t, w.lower())
    ranked = sorted(tf, key=lambda t: (-tf[t] * idf.idf(t), surface[t]))[skip : skip + terms]
    question = " ".join(surface[t] for t in ranked)
    return GeneratedQuestion(
        question,
        sentence,
        "factual",
        ((passage.source, ((passage.page, s, e),)),),
        (sentence,),
        ((passage.source, passage.page, passage.start, passage.end),),
        GENERATOR,
        prompt_hash(),
    )
