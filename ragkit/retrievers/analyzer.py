"""BM25 text analysis: lowercase, Unicode word tokens, English stop words, Snowball stemming."""

from __future__ import annotations

import re
from functools import lru_cache

# Lucene's EnglishAnalyzer stop set (what Anserini's BEIR baselines use).
LUCENE_STOP_WORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their then there
    these they this to was will with
    """.split()
)
_TOKEN = re.compile(r"\w+", re.UNICODE)


class Analyzer:
    """Turns text into BM25 terms; cheap to build, the stemmer loads on first use."""

    def __init__(self, stemmer: str | None = "english", stop_words: frozenset[str] | None = None) -> None:
        self.stemmer_name = stemmer
        self.stop_words = LUCENE_STOP_WORDS if stop_words is None else stop_words
        self._stem = None

    def _stemmer(self):
        if self._stem is None and self.stemmer_name:
            import Stemmer  # PyStemmer: Snowball stemmers in C

            self._stem = lru_cache(maxsize=200_000)(Stemmer.Stemmer(self.stemmer_name).stemWord)
        return self._stem

    def __call__(self, text: str) -> list[str]:
        words = [w for w in _TOKEN.findall(text.lower()) if w not in self.stop_words]
        stem = self._stemmer()
        return [stem(w) for w in words] if stem else words

    def spec(self) -> dict:
        return {"stemmer": self.stemmer_name, "stop_words": len(self.stop_words)}
