"""The ``Retriever`` protocol and helpers shared by the retrievers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

import numpy as np

from ragkit.core.types import Hit

#: stage name -> milliseconds; a retriever adds its own stages when given one.
Timings = dict[str, float]


@runtime_checkable
class Retriever(Protocol):
    """Ranks chunks for a query; every hit carries its score and rank per stage."""

    name: str

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]: ...


def warm_up(retriever: object) -> None:
    """Load models and build search structures now, if the retriever can (a test double may not)."""
    fn = getattr(retriever, "warm_up", None)
    if fn is not None:
        fn()


@contextmanager
def timed(timings: Timings | None, stage: str) -> Iterator[None]:
    """Add the block's wall time in ms to ``timings[stage]`` (if a dict was given)."""
    t = time.perf_counter()
    try:
        yield
    finally:
        if timings is not None:
            timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - t) * 1000


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first (stable for ties: lower index first)."""
    k = min(k, scores.shape[0])
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    part = np.argpartition(-scores, k - 1)[:k] if k < scores.shape[0] else np.arange(scores.shape[0])
    return part[np.lexsort((part, -scores[part]))]
