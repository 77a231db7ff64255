"""Lexical retrieval: BM25 over analysed chunk text, on one of two engines.

- ``bm25s`` (default): bm25s's eager sparse index (``method="lucene"``), scored in a few sparse-array
  operations per query instead of a Python loop over every chunk. Its state is saved next to the index
  (``<index>/bm25/``, bm25s's own ``.npy``/JSON files, never pickle) and reused while the index is at the
  same generation; a stale or missing state is rebuilt from the stored chunks.
- ``rank_bm25``: rank-bm25's ``BM25Okapi``, the reference engine, rebuilt in memory on first search.

Both use the same analyzer, ``k1``/``b`` and Lucene's idf, ``log(1 + (N - n + 0.5) / (n + 0.5))``
(rank-bm25's Okapi idf is zero or negative for a term found in half the chunks or more, so on a small
collection real matches would vanish). bm25s's Lucene scores are the classic ones divided by ``k1 + 1``:
ragkit multiplies them back, so both engines report the same score for the same chunk (parity test in
``tests/unit/test_bm25_engines.py``, figures in BENCHMARKS.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
import weakref
from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.core.types import Hit
from ragkit.index.lexical import holds_no_vectors
from ragkit.index.store import IndexStore
from ragkit.retrievers.analyzer import LANGUAGES, Analyzer
from ragkit.retrievers.base import Timings, timed, top_indices

logger = logging.getLogger(__name__)


BM25_ENGINES = ("bm25s", "rank_bm25")


class BM25Retriever:
    """BM25 (Okapi) with ``k1``/``b`` (defaults 0.9/0.4, Anserini's BEIR settings).

    Args:
        store: the index whose chunks are searched.
        embedder: optional; when given, each hit also gets its query-chunk cosine (for confidence).
        k1, b: BM25 term-frequency saturation and length normalisation.
        stemmer: a PyStemmer algorithm name (``"english"`` = Snowball, ``"porter"``) or ``None``.
        language: one of the analyzer's languages (German, French, …): its stemmer and stop words.
        engine: ``"bm25s"`` (fast, persisted) or ``"rank_bm25"`` (the reference).
    """

    component = Component(
        "retriever",
        "bm25",
        "BM25 over analysed words: Lucene's idf, stop words and Snowball stemming",
        options=(
            Option("k1", "float", 0.9, 0.0, 100.0, field="bm25_k1", flag="--k1", step=0.1,
                   advanced=True, label="BM25 k1", help="bm25 term saturation",
                   suggest=(0.9, 1.2, 1.5, 2.0), typical=(0.9, 2.0), sweep="main"),
            Option("b", "float", 0.4, 0.0, 1.0, field="bm25_b", flag="--b", step=0.05,
                   advanced=True, label="BM25 b", help="bm25 length normalisation",
                   suggest=(0.3, 0.5, 0.75), sweep="main"),
            Option("language", "choice", "english", choices=LANGUAGES, field="bm25_language",
                   added_later=True, advanced=True, label="BM25 language",
                   help="stemmer and stop words of the analyzer"),
            Option("engine", "choice", "bm25s", choices=BM25_ENGINES, field="bm25_engine", added_later=True,
                   advanced=True, label="BM25 engine", sweep="no",
                   help="bm25s (default: fast, state saved with the index) or rank_bm25 (the reference "
                   "engine, slow on large collections); same scores"),
        ),
    )  # fmt: skip
    name = "bm25"

    def __init__(
        self,
        store: IndexStore,
        embedder: Any | None = None,
        k1: float = component.default("k1"),
        b: float = component.default("b"),
        stemmer: str | None = "english",
        language: str | None = None,
        engine: str = component.default("engine"),
    ) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise ConfigError(f"bm25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        if engine not in BM25_ENGINES:
            raise ConfigError(f"bm25 engine must be one of {', '.join(BM25_ENGINES)}, got {engine!r}")
        self.engine = engine
        self.settings = {"k1": k1, "b": b, "language": language or "english", "engine": engine}
        self.store = store
        self.embedder = embedder
        self.k1, self.b = k1, b
        # a language sets both the stemmer and the stop words (English: Lucene's set, as before)
        self.analyzer = Analyzer(stemmer, language=language if language not in (None, "english") else None)
        self._bm25 = None
        self._generation = -1

    def build(self):
        """(Re)build the BM25 state for the store's current chunks (bm25s: load it from the index when
        it was saved for this generation); returns the engine object, or None for an empty corpus."""
        version = (self.store.generation, getattr(self.store, "changes", 0))
        if self._bm25 is None or self._generation != version:
            if self.engine == "bm25s":
                self._bm25 = _Bm25sIndex.for_store(self.store, self.analyzer, self.k1, self.b)
            else:
                corpus = analysed(self.store, self.analyzer)
                # rank-bm25 divides by the average length: an empty or all-stop-word corpus has none
                self._bm25 = _okapi_class()(corpus, k1=self.k1, b=self.b) if any(corpus) else None
            self._generation = version
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


class _Bm25sIndex:
    """bm25s's index behind rank-bm25's ``get_scores(terms)``, with classic (rank-bm25) score scale."""

    def __init__(self, model: Any, k1: float) -> None:
        self.model, self.scale = model, k1 + 1.0

    def get_scores(self, terms: list[str]) -> np.ndarray:
        ids = self.model.get_tokens_ids(terms)
        if not ids:
            return np.zeros(self.model.scores["num_docs"], dtype=np.float64)
        return np.asarray(self.model.get_scores_from_ids(ids), dtype=np.float64) * self.scale

    @classmethod
    def for_store(cls, store: IndexStore, analyzer: Analyzer, k1: float, b: float) -> _Bm25sIndex | None:
        import bm25s

        # bm25s sets its own logger to DEBUG on import, which prints "Building index" on every CLI run
        logging.getLogger("bm25s").setLevel(max(logger.getEffectiveLevel(), logging.INFO))

        n = len(store.chunks)
        cache = _state_dir(store, analyzer, k1, b)
        if cache is not None and (cache / "params.index.json").is_file():
            try:
                model = bm25s.BM25.load(str(cache), allow_pickle=False)
                if int(model.scores["num_docs"]) == n:
                    return cls(model, k1)
            except (OSError, ValueError, KeyError) as e:  # a damaged state is rebuilt, not trusted
                logger.warning("bm25 state in %s is unreadable (%s); rebuilding it", cache, e)
        corpus = analysed(store, analyzer)
        if not any(corpus):
            return None
        model = bm25s.BM25(k1=k1, b=b, method="lucene")
        model.index(corpus, show_progress=False)
        if cache is not None:
            _save_state(model, cache)
        return cls(model, k1)


#: the analysed chunks of in-memory stores, by analyzer: BM25 set-ups that differ only in k1 and b (a
#: sweep's) analyse the corpus once; the entry goes with its store
_ANALYSED: weakref.WeakKeyDictionary[Any, dict[str, list[list[str]]]] = weakref.WeakKeyDictionary()


def analysed(store: Any, analyzer: Analyzer) -> list[list[str]]:
    """Every chunk's terms; kept with a store that is never saved (an index on disk keeps its BM25 state
    instead, and holding a large collection's terms for the life of the app would cost memory)."""
    per_store: dict[str, list[list[str]]] | None = None
    if getattr(store, "path", None) is None and not getattr(store, "changes", 0):
        with contextlib.suppress(TypeError):  # a store that cannot be weakly keyed: analysed every time
            per_store = _ANALYSED.setdefault(store, {})
    if per_store is None:
        return [analyzer(c.text) for c in store.chunks]
    from ragkit.core.hashing import config_key

    key = config_key(_analyzer_spec(analyzer))
    if key not in per_store:
        per_store[key] = [analyzer(c.text) for c in store.chunks]
    return per_store[key]


def _analyzer_spec(analyzer: Analyzer) -> dict[str, Any]:
    """Everything that decides an analyzer's terms (a key of analysed text and of saved BM25 states)."""
    return {**analyzer.spec(), "stop_words": sorted(analyzer.stop_words)}


def _state_dir(store: IndexStore, analyzer: Analyzer, k1: float, b: float) -> Any:
    """Where the bm25s state of this store generation lives, or None when it cannot be saved (an index
    not on disk, or chunks added or removed in memory since the last save)."""
    from pathlib import Path

    from ragkit.core.hashing import config_key

    path = getattr(store, "path", None)
    if path is None or getattr(store, "changes", 0) or not (Path(path) / "manifest.json").is_file():
        return None
    key = config_key({"analyzer": _analyzer_spec(analyzer), "k1": k1, "b": b, "engine": "bm25s-lucene"})[:12]
    return Path(path) / "bm25" / f"{key}-g{store.generation:06d}"


def _save_state(model: Any, target: Any) -> None:
    """Save to a temp directory, then rename it into place (a reader never sees half a state); drop
    this key's states of older generations. Failures only cost a rebuild next time."""
    import shutil
    import tempfile

    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=target.parent, prefix=".tmp-")
        model.save(tmp, show_progress=False, allow_pickle=False)
        try:
            os.rename(tmp, target)
        except OSError:  # another process saved the same state first
            shutil.rmtree(tmp, ignore_errors=True)
        key = target.name.rsplit("-g", 1)[0]
        for old in target.parent.glob(f"{key}-g*"):
            if old != target and old.name < target.name:
                shutil.rmtree(old, ignore_errors=True)
    except OSError as e:
        logger.info("bm25 state not saved in %s (%s); it will be rebuilt when needed", target, e)


_OKAPI = None


def _okapi_class():
    """``BM25Okapi`` with Lucene's non-negative idf (built on first use: rank-bm25 loads lazily)."""
    global _OKAPI
    if _OKAPI is None:
        import math

        from rank_bm25 import BM25Okapi  # a core dependency, like bm25s

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
    """Query-chunk cosine for the given store rows (vectors are unit-norm), or None without an embedder.
    A store without vectors (indexed for BM25 alone) has only these rows' chunks embedded, now: the
    gauge reads the same cosines as over an embedded index, and nothing else is embedded."""
    if embedder is None or not rows:
        return None
    with timed(timings, "embed_query"):
        q = embedder.embed_query(query)
    if holds_no_vectors(store):
        chunks = store.chunks
        with timed(timings, "embed_chunks"):
            vectors = embedder.embed([chunks[r].text for r in rows])
    else:
        vectors = store.vectors_at(rows)
    return [float(x) for x in vectors @ q]
