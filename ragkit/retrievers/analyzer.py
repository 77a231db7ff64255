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
#: words: a raised digit (a footnote mark "pipeline⁸", an exponent "10⁶") is not part of one; a lowered
#: digit is read as a digit ("H₂O" is "h2o", as a query types it)
_TOKEN = re.compile(r"[^\W\u00b2\u00b3\u00b9\u2070-\u2079]+", re.UNICODE)
_LOWERED = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")

#: languages the BM25 analyzer supports: PyStemmer's Snowball stemmers with a stop-word list
#: (Lucene's for English; bm25s's lists for the others)
LANGUAGES = (
    "english", "danish", "dutch", "french", "german", "italian", "norwegian", "portuguese", "russian",
    "spanish", "swedish", "turkish",
)  # fmt: skip
_BM25S_STOPWORDS = {
    "danish": "STOPWORDS_DANISH", "dutch": "STOPWORDS_DUTCH", "french": "STOPWORDS_FRENCH",
    "german": "STOPWORDS_GERMAN", "italian": "STOPWORDS_ITALIAN", "norwegian": "STOPWORDS_NORWEGIAN",
    "portuguese": "STOPWORDS_PORTUGUESE", "russian": "STOPWORDS_RUSSIAN", "spanish": "STOPWORDS_SPANISH",
    "swedish": "STOPWORDS_SWEDISH", "turkish": "STOPWORDS_TURKISH",
}  # fmt: skip


def stop_words_for(language: str) -> frozenset[str]:
    """The stop words of ``language``: Lucene's English set, or bm25s's list for another language."""
    if language == "english":
        return LUCENE_STOP_WORDS
    import bm25s.stopwords

    return frozenset(w.lower() for w in getattr(bm25s.stopwords, _BM25S_STOPWORDS[language]))


class Analyzer:
    """Turns text into BM25 terms; cheap to build, the stemmer loads on first use.

    Args:
        stemmer: a PyStemmer algorithm name (usually the language) or ``None``.
        stop_words: the words to drop; default: those of ``language``.
        language: one of :data:`LANGUAGES`; sets the stemmer and stop words unless given.
    """

    def __init__(
        self,
        stemmer: str | None = "english",
        stop_words: frozenset[str] | None = None,
        language: str | None = None,
    ) -> None:
        if language is not None:
            if language not in LANGUAGES:
                from ragkit.core.errors import ConfigError

                raise ConfigError(f"BM25 language must be one of {', '.join(LANGUAGES)}, got {language!r}")
            stemmer = language
            if stop_words is None:
                stop_words = stop_words_for(language)
        self.stemmer_name = stemmer
        self.stop_words = LUCENE_STOP_WORDS if stop_words is None else stop_words
        self._stem = None

    def _stemmer(self):
        if self._stem is None and self.stemmer_name:
            import Stemmer  # PyStemmer: Snowball stemmers in C

            self._stem = lru_cache(maxsize=200_000)(Stemmer.Stemmer(self.stemmer_name).stemWord)
        return self._stem

    def __call__(self, text: str) -> list[str]:
        words = [w for w in _TOKEN.findall(text.lower().translate(_LOWERED)) if w not in self.stop_words]
        stem = self._stemmer()
        return [stem(w) for w in words] if stem else words

    def spec(self) -> dict:
        # "tokens": how words are cut (2: a raised digit ends a word, a lowered one is a digit), part of
        # every key of analysed text and saved BM25 states
        return {"stemmer": self.stemmer_name, "stop_words": len(self.stop_words), "tokens": 2}
