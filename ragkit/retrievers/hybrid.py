"""Hybrid retrieval by composition: reciprocal rank fusion over any named retrievers.

Raw BM25 and cosine scores live on different scales, so they are never averaged; only ranks are fused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option, check_value, short_repr
from ragkit.core.types import Hit
from ragkit.retrievers.base import Retriever, Timings, timed, warm_up
from ragkit.retrievers.fusion import reciprocal_rank_fusion
from ragkit.retrievers.intent import INTENT_WEIGHTS, classify_intent


class HybridRetriever:
    """RRF of several retrievers: ``score = sum_i w_i / (k + rank_i)``.

    Args:
        retrievers: name -> retriever (e.g. ``{"bm25": ..., "dense": ...}``).
        weights: name -> weight (default 1.0 each).
        k: the RRF constant.
        depth: candidates taken from each retriever.
        intent_routing: classify each query (FACT / CONCEPT / COMPARISON) and use that intent's
            bm25/dense weights instead of ``weights``.
    """

    component = Component(
        "retriever",
        "hybrid",
        "reciprocal rank fusion of bm25 and dense",
        options=(
            Option("k", "float", 60.0, 0.0, 1e6, field="rrf_k", flag="--rrf-k", label="RRF k",
                   help="hybrid: RRF constant k", step=1, suggest=(10, 60)),
            Option("depth", "int", 50, 1, 100_000, field="hybrid_depth", flag="--depth", label="Depth",
                   help="hybrid: candidates per retriever", suggest=(20, 50, 100)),
            Option("weights", "any", {"bm25": 1.0, "dense": 1.0}, field="hybrid_weights", flag="--weights",
                   widget="custom", validate=lambda owner, v: check_weights(owner, v, ("bm25", "dense")),
                   help="hybrid: weight per retriever, e.g. bm25=0.6,dense=0.4", sweep="main",
                   suggest=({"bm25": 1, "dense": 1}, {"bm25": 2, "dense": 1}, {"bm25": 1, "dense": 2})),
            Option("intent_routing", "bool", False, field="intent_routing",
                   label="Intent routing (FACT/CONCEPT/COMPARISON)",
                   help="hybrid: weight bm25/dense by query intent (FACT/CONCEPT/COMPARISON)"),
        ),
        parts=("bm25", "dense"),
    )  # fmt: skip
    name = "hybrid"

    def __init__(
        self,
        retrievers: Mapping[str, Retriever],
        weights: Mapping[str, float] | None = None,
        k: float = component.default("k"),
        depth: int = component.default("depth"),
        intent_routing: bool = False,
    ) -> None:
        if not retrievers:
            raise ConfigError("hybrid needs at least one retriever")
        if k < 0 or depth < 1:
            raise ConfigError(f"hybrid needs k >= 0 and depth >= 1, got k={k}, depth={depth}")
        weights = dict(weights or {})
        unknown = set(weights) - set(retrievers)
        if unknown:
            raise ConfigError(f"hybrid weights name unknown retrievers: {sorted(unknown)}")
        if any(w < 0 for w in weights.values()):
            raise ConfigError("hybrid weights must be >= 0")
        self.retrievers = dict(retrievers)
        self.weights = {n: float(weights.get(n, 1.0)) for n in self.retrievers}
        self.k, self.depth, self.intent_routing = k, depth, intent_routing
        self.settings = {"k": k, "depth": depth, "weights": self.weights, "intent_routing": intent_routing}
        self.last_intent: str | None = None

    def weights_for(self, query: str) -> tuple[dict[str, float], str | None]:
        """The weights used for ``query`` and the intent that chose them (None without routing)."""
        if not self.intent_routing:
            return self.weights, None
        intent = classify_intent(query)
        bm25_w, dense_w = INTENT_WEIGHTS[intent]
        routed = {**self.weights, "bm25": bm25_w, "dense": dense_w}
        return {n: routed[n] for n in self.retrievers}, intent

    def warm_up(self) -> None:
        for r in self.retrievers.values():
            warm_up(r)

    def search(self, query: str, top_k: int = 10, timings: Timings | None = None) -> list[Hit]:
        if top_k < 1:
            raise ConfigError(f"top_k must be >= 1, got {top_k}")
        per: dict[str, list[Hit]] = {
            name: r.search(query, max(self.depth, 1), timings) for name, r in self.retrievers.items()
        }
        weights, self.last_intent = self.weights_for(query)
        with timed(timings, "rrf"):
            fused = reciprocal_rank_fusion(
                {n: [h.chunk_id for h in hits] for n, hits in per.items()}, weights, self.k
            )
            by_id: dict[str, list[Hit]] = {}
            for hits in per.values():
                for h in hits:
                    by_id.setdefault(h.chunk_id, []).append(h)
            out = []
            for rank, (cid, score) in enumerate(fused[:top_k], start=1):
                parts = by_id[cid]
                scores = {s: v for h in parts for s, v in h.scores.items()}
                ranks = {s: v for h in parts for s, v in h.ranks.items()}
                cosine = next((h.cosine for h in parts if h.cosine is not None), None)
                scores["rrf"], ranks["rrf"] = score, rank
                out.append(Hit(parts[0].chunk, rank, score, "rrf", scores, ranks, cosine))
        return out


def check_weights(owner: str, weights: Any, parts: tuple[str, ...]) -> dict[str, float]:
    """Fusion weights per part: an object of non-negative numbers, not all zero."""
    if not isinstance(weights, dict):
        raise ConfigError(
            f'{owner}: hybrid_weights must be an object like {{"bm25": 1, "dense": 1}}, '
            f"got {short_repr(weights)}"
        )
    unknown = sorted(str(k) for k in weights if k not in parts)
    if unknown:
        raise ConfigError(
            f"{owner}: hybrid_weights names unknown retrievers {unknown[:5]}; use {', '.join(parts)}"
        )
    out = {k: check_value(owner, f"hybrid_weights.{k}", v, "float", 0.0, 1e6) for k, v in weights.items()}
    if out and not any(out.values()):
        raise ConfigError(f"{owner}: hybrid_weights are all zero: nothing would be retrieved")
    return out
