"""Cross-encoder reranking as a wrapper over any retriever."""

from __future__ import annotations

import os
import threading
from typing import Any

from ragkit.core.errors import ConfigError, ModelNotAvailableError
from ragkit.core.optional import require
from ragkit.core.options import Component, Option
from ragkit.core.types import Hit
from ragkit.retrievers.base import Retriever, Timings, timed, warm_up

DEFAULT_RERANKER = "cross-encoder/ms-marco-MiniLM-L-6-v2"


class CrossEncoderReranker:
    """Scores (query, passage) pairs with a sentence-transformers ``CrossEncoder``; loads lazily."""

    component = Component(
        "reranker",
        "cross-encoder",
        "a sentence-transformers cross-encoder reorders the first stage's candidates",
        options=(
            Option("enabled", "bool", False, field="rerank", flag="--rerank", label="Cross-encoder rerank",
                   help="rerank with a cross-encoder"),
            Option("model", "str", DEFAULT_RERANKER, field="rerank_model", requires="rerank",
                   label="Cross-encoder (name or local path)",
                   help=f"cross-encoder name or local path (default {DEFAULT_RERANKER})"),
            Option("candidates", "int", 50, 1, 100_000, field="rerank_candidates", requires="rerank",
                   label="Rerank candidates", help="how many candidates to rerank"),
        ),
        default_model=DEFAULT_RERANKER,
        in_process=True,
    )  # fmt: skip

    def __init__(self, model: str = DEFAULT_RERANKER, batch_size: int = 32, device: str = "cpu") -> None:
        self.model_name = model
        self.batch_size = batch_size
        self.device = device
        self._model = None
        self._lock = threading.Lock()

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self):
        CrossEncoder = require("sentence_transformers", "the cross-encoder reranker").CrossEncoder

        name = os.path.expanduser(self.model_name)
        is_path = name.startswith(("/", "./", "../")) or os.path.exists(name)
        if is_path and not os.path.isdir(name):
            raise ModelNotAvailableError(
                f"cannot load cross-encoder {self.model_name!r}: no such directory. Point the "
                "reranker at a directory saved with CrossEncoder.save (--rerank-model /path/to/model)."
            )
        try:
            # Hub names load from the local Hugging Face cache only: nothing is downloaded at run time.
            return CrossEncoder(name, device=self.device, local_files_only=not is_path)
        except Exception as e:
            where = "that directory" if is_path else "the local Hugging Face cache (downloads are off)"
            raise ModelNotAvailableError(
                f"cannot load cross-encoder {self.model_name!r} from {where}: "
                f"{type(e).__name__}: {' '.join(str(e).split())[:300]} Point the reranker at a local copy: "
                "--rerank-model /path/to/model (a directory saved with CrossEncoder.save), "
                "or pre-fill the Hugging Face cache on a machine with internet access."
            ) from None

    def warm_up(self) -> None:
        _ = self.model

    def score(self, query: str, passages: list[str]) -> list[float]:
        if not passages:
            return []
        scores = self.model.predict(
            [(query, p) for p in passages], batch_size=self.batch_size, show_progress_bar=False
        )
        return [float(s) for s in scores]


class RerankRetriever:
    """Takes the top ``candidates`` of ``base`` and reorders them by cross-encoder score."""

    name = "rerank"

    def __init__(self, base: Retriever, reranker: Any | None = None, candidates: int = 50) -> None:
        if candidates < 1:
            raise ConfigError(f"rerank candidates must be >= 1, got {candidates}")
        self.base = base
        self.reranker = reranker if reranker is not None else CrossEncoderReranker()
        self.candidates = candidates

    def warm_up(self) -> None:
        warm_up(self.base)
        if hasattr(self.reranker, "warm_up"):
            self.reranker.warm_up()

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]:
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}")
        pool = self.base.search(query, max(self.candidates, top_k), timings)
        with timed(timings, "rerank"):
            scores = self.reranker.score(query, [h.chunk.text for h in pool])
        order = sorted(range(len(pool)), key=lambda i: (-scores[i], pool[i].rank))
        out = []
        for rank, i in enumerate(order[:top_k], start=1):
            h = pool[i]
            out.append(
                Hit(
                    h.chunk,
                    rank,
                    scores[i],
                    "rerank",
                    {**h.scores, "rerank": scores[i]},
                    {**h.ranks, "rerank": rank},
                    h.cosine,
                )
            )
        return out
