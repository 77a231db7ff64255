"""Lexical retrieval with rank-bm25's ``BM25Okapi`` over analysed chunk text.

The idf is Lucene's, ``log(1 + (N - n + 0.5) / (n + 0.5))``, instead of rank-bm25's Okapi idf
``log((N - n + 0.5) / (n + 0.5))``: the latter is zero or negative for any term found in half the chunks
or more, so on a small collection (a handful of uploaded pages) real matches score <= 0 and vanish.
Lucene's form is always positive and is what Anserini's BEIR baselines use.

The BM25 state is rebuilt from the stored chunks on first search (and after the index changes) rather
than persisted: ``bench/retrieval_latency.py`` measures the rebuild (see BENCHMARKS.md), and it is fast
enough that a second on-disk format is not worth its staleness risk.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ragkit.errors import ConfigError
from ragkit.retrievers.analyzer import Analyzer
from ragkit.retrievers.base import Timings, timed, top_indices
from ragkit.store import IndexStore
from ragkit.types import Hit


class BM25Retriever:
    """BM25 (Okapi) with ``k1``/``b`` (defaults 0.9/0.4, Anserini's BEIR settings).

    Args:
        store: the index whose chunks are searched.
        embedder: optional; when given, each hit also gets its query-chunk cosine (for confidence).
        k1, b: BM25 term-frequency saturation and length normalisation.
        stemmer: a PyStemmer algorithm name (``"english"`` = Snowball, ``"porter"``) or ``None``.
        language: one of the analyzer's languages (German, French, …): its stemmer and stop words.
    """

    name = "bm25"

    def __init__(
        self,
        store: IndexStore,
        embedder: Any | None = None,
        k1: float = 0.9,
        b: float = 0.4,
        stemmer: str | None = "english",
        language: str | None = None,
    ) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise ConfigError(f"bm25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.store = store
        self.embedder = embedder
        self.k1, self.b = k1, b
        # a language sets both the stemmer and the stop words (English: Lucene's set, as before)
        self.analyzer = Analyzer(stemmer, language=language if language not in (None, "english") else None)
        self._bm25 = None
        self._generation = -1

    def build(self):
        """(Re)build the BM25 statistics from the store's chunks; returns the ``BM25Okapi``."""
        if self._bm25 is None or self._generation != self.store.generation:
            corpus = [self.analyzer(c.text) for c in self.store.chunks]
            # rank-bm25 divides by the average length: an empty or all-stop-word corpus has none
            self._bm25 = _okapi_class()(corpus, k1=self.k1, b=self.b) if any(corpus) else None
            self._generation = self.store.generation
        return self._bm25

    def warm_up(self) -> None:
        """Build the BM25 statistics (and load the embedder used for cosines) now."""
        self.build()
        if self.embedder is not None:
            _ = self.embedder.dimension

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]:
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}")
        with timed(timings, "bm25"):
            bm25 = self.build()
            terms = self.analyzer(query)
            if bm25 is None or not terms:
                return []
            scores = np.asarray(bm25.get_scores(terms), dtype=np.float64)
            rows = [r for r in top_indices(scores, top_k) if scores[r] > 0]
        cos = cosines(self.store, self.embedder, query, rows, timings)
        chunks = self.store.chunks
        return [
            Hit(
                chunks[r],
                rank,
                float(scores[r]),
                "bm25",
                {"bm25": float(scores[r])},
                {"bm25": rank},
                cosine=cos[i] if cos else None,
            )
            for i, (rank, r) in enumerate(zip(range(1, len(rows) + 1), rows, strict=True))
        ]


_OKAPI = None


def _okapi_class():
    """``BM25Okapi`` with Lucene's non-negative idf (built on first use: rank-bm25 loads lazily)."""
    global _OKAPI
    if _OKAPI is None:
        import math

        from rank_bm25 import BM25Okapi

        class LuceneIdfBM25Okapi(BM25Okapi):
            def _calc_idf(self, nd: dict[str, int]) -> None:
                n = self.corpus_size
                self.idf = {w: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for w, f in nd.items()}
                self.average_idf = sum(self.idf.values()) / len(self.idf) if self.idf else 0.0

        _OKAPI = LuceneIdfBM25Okapi
    return _OKAPI


def cosines(
    store: IndexStore, embedder: Any | None, query: str, rows: list[int], timings: Timings | None
) -> list[float] | None:
    """Query-chunk cosine for the given store rows (vectors are unit-norm), or None without an embedder."""
    if embedder is None or not rows:
        return None
    with timed(timings, "embed_query"):
        q = embedder.embed_query(query)
    return [float(x) for x in store.vectors[rows] @ q]
