"""Retrieval confidence: a number in [0, 1] from the retrieval evidence alone (no LLM involved).

Formula, over the top ``m`` hits (default 3):

1. **Calibrated strength per hit.** ``p_i = sigmoid((r_i - c_r) / s_r)`` when the hit has a cross-encoder
   score ``r_i`` (an MS MARCO cross-encoder emits a relevance logit, so ``c_r = 0, s_r = 1`` gives its own
   probability), else ``p_i = sigmoid((cos_i - c_c) / s_c)`` from the query-chunk cosine similarity
   (every ragkit retriever records it, whichever stage ranked the hit). ``c_c``/``s_c`` are calibrated for
   all-MiniLM-L6-v2 on question-passage pairs (set by hand in round 1: a question and its passage
   score around 0.45-0.6, an unrelated passage below 0.3; ``bench/calibration.py`` measures how
   far the resulting gauge is from a probability, and ``ragkit calibrate`` fits a map); a hit with
   neither score contributes ``p_i = 0``.
2. **Strength** ``S = w * p_1 + (1 - w) * mean(p_1..p_m)`` (``w = 0.7``): the best chunk dominates, the
   runners-up can lift or drag it.
3. **Agreement** ``A`` in [0, 1], the mean of the signals that apply:
   - *source agreement*: share of hits 2..m from the same document as hit 1 (chunks that support each
     other tend to come from the same place);
   - *retriever agreement* (hybrid): share of the fused retrievers that rank hit 1 in their top 3;
   - *rerank agreement*: 1 if the reranker's top chunk was in the first stage's top 3, else 0.
   With a single hit and no stage information ``A = 0.5`` (unknown).
4. **Confidence** ``C = S * ((1 - a) + a * A)`` with ``a = 0.25``: agreement can lower strong-but-lonely
   evidence by at most a quarter; it can never create confidence without strength.

``C`` is non-decreasing in every hit's score and in every agreement signal, and 0 with no hits.
Bands: high ``C >= 0.66``, medium ``C >= 0.33``, else low. The pipeline abstains when ``C < threshold``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Option
from ragkit.core.types import Hit


def _check_calibration(owner: str, value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    from ragkit.pipeline.calibration import CalibrationMap

    try:
        return CalibrationMap.from_dict(value).to_dict()
    except ValueError as e:
        raise ConfigError(f"{owner}: confidence_calibration: {e}") from None


#: the config fields of the gauge: the abstention threshold and an optional fitted calibration map
OPTIONS = (
    Option("confidence_threshold", "float", 0.25, 0.0, 1.0, field="confidence_threshold", flag="--threshold",
           widget="slider", step=0.05, label="Abstain below confidence",
           help="abstain below this retrieval confidence"),
    Option("confidence_calibration", "any", None, field="confidence_calibration", widget="custom",
           added_later=True, validate=_check_calibration,
           help="a fitted map raw gauge -> probability (ragkit calibrate), or none"),
)  # fmt: skip


@dataclass(frozen=True)
class ConfidenceConfig:
    cosine_center: float = 0.35
    cosine_scale: float = 0.08
    rerank_center: float = 0.0
    rerank_scale: float = 1.0
    top_m: int = 3
    top_weight: float = 0.7
    agreement_weight: float = 0.25
    high: float = 0.66
    medium: float = 0.33
    threshold: float = 0.25

    def __post_init__(self) -> None:
        if self.cosine_scale <= 0 or self.rerank_scale <= 0:
            raise ConfigError("confidence scales must be > 0")
        if self.top_m < 1:
            raise ConfigError("confidence top_m must be >= 1")
        for name in ("top_weight", "agreement_weight", "high", "medium", "threshold"):
            if not 0 <= getattr(self, name) <= 1:
                raise ConfigError(f"confidence {name} must be in [0, 1]")
        if self.medium > self.high:
            raise ConfigError("confidence medium band must not exceed the high band")


DEFAULT_CONFIDENCE = ConfidenceConfig()


@dataclass(frozen=True)
class Confidence:
    """The confidence value, its band, whether to abstain, and every input that produced it."""

    value: float
    band: str
    abstain: bool
    threshold: float
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def calibration(self) -> str | None:
        """What the value was calibrated on (None: the raw gauge, a score rather than a probability)."""
        return self.inputs.get("calibration")

    @property
    def reason(self) -> str:
        """One sentence a user can read next to an abstention."""
        if not self.inputs.get("hits"):
            return "nothing was retrieved for this question"
        basis = self.inputs.get("basis", "score")
        top = self.inputs.get("top_signal")
        sig = f" (top chunk {basis} {top:.2f})" if isinstance(top, float) else ""
        relation = "below" if self.abstain else "at or above"
        raw = self.inputs.get("raw_value")
        if isinstance(raw, float):  # calibrated: the decision is the raw gauge's
            return (
                f"retrieval confidence {raw:.2f} (raw; calibrated probability {self.value:.2f}) is "
                f"{relation} the threshold {self.threshold:.2f}{sig}"
            )
        return f"retrieval confidence {self.value:.2f} is {relation} the threshold {self.threshold:.2f}{sig}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "reason": self.reason}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Confidence:
        return cls(
            float(d["value"]), d["band"], bool(d["abstain"]), float(d["threshold"]), d.get("inputs", {})
        )


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def hit_strength(hit: Hit, config: ConfidenceConfig = DEFAULT_CONFIDENCE) -> tuple[float, str | None]:
    """Calibrated probability-like strength of one hit, and which score it came from."""
    if "rerank" in hit.scores:
        r = hit.scores["rerank"]
        return _sigmoid((r - config.rerank_center) / config.rerank_scale), "rerank"
    if hit.cosine is not None:
        return _sigmoid((hit.cosine - config.cosine_center) / config.cosine_scale), "cosine"
    return 0.0, None


def retrieval_confidence(hits: Sequence[Hit], config: ConfidenceConfig = DEFAULT_CONFIDENCE) -> Confidence:
    """Confidence that ``hits`` hold the answer; a pure function of the hits (see the module docstring)."""
    if not hits:
        return Confidence(0.0, "low", True, config.threshold, {"hits": 0})  # nothing to answer from
    top = sorted(hits, key=lambda h: h.rank)[: config.top_m]
    strengths = [hit_strength(h, config) for h in top]
    p = [s for s, _ in strengths]
    strength = config.top_weight * p[0] + (1 - config.top_weight) * (sum(p) / len(p))

    signals: dict[str, float] = {}
    if len(top) > 1:
        signals["source"] = sum(h.chunk.doc_id == top[0].chunk.doc_id for h in top[1:]) / (len(top) - 1)
    components = [s for s in ("dense", "bm25") if s in top[0].ranks or any(s in h.ranks for h in top)]
    if "rrf" in top[0].ranks and len(components) > 1:
        signals["retrievers"] = sum(top[0].ranks.get(s, 10**9) <= 3 for s in components) / len(components)
    if "rerank" in top[0].ranks:
        first = next((s for s in ("rrf", "dense", "bm25") if s in top[0].ranks), None)
        if first is not None:
            signals["rerank"] = float(top[0].ranks[first] <= 3)
    agreement = sum(signals.values()) / len(signals) if signals else 0.5

    value = strength * ((1 - config.agreement_weight) + config.agreement_weight * agreement)
    value = min(max(value, 0.0), 1.0)
    band = "high" if value >= config.high else "medium" if value >= config.medium else "low"
    basis = strengths[0][1]
    top_signal = top[0].scores.get("rerank") if basis == "rerank" else top[0].cosine
    inputs = {
        "hits": len(hits),
        "top_m": len(top),
        "basis": basis,
        "top_signal": top_signal,
        "strengths": p,
        "strength": strength,
        "agreement": agreement,
        "agreement_signals": signals,
    }
    return Confidence(value, band, value < config.threshold, config.threshold, inputs)


def apply_calibration(
    confidence: Confidence, cmap: Any, config: ConfidenceConfig = DEFAULT_CONFIDENCE
) -> Confidence:
    """The gauge after a fitted calibration map (``evaluation.calibration.CalibrationMap``): the value
    becomes the estimated probability that the retrieved chunks hold the evidence and the band follows
    it; the raw value and what the map was fitted on stay in ``inputs``.

    **Abstention stays with the raw gauge** and its threshold (the scale the threshold was chosen on): a
    map fitted where every question had evidence never goes below, say, 0.67, and deciding on it would
    remove the possibility to abstain altogether."""
    if not confidence.inputs.get("hits"):
        return confidence  # nothing retrieved: 0 stays 0, whatever the map says
    value = min(max(cmap.apply(confidence.value), 0.0), 1.0)
    band = "high" if value >= config.high else "medium" if value >= config.medium else "low"
    inputs = {**confidence.inputs, "raw_value": confidence.value, "calibration": cmap.describe()}
    return Confidence(value, band, confidence.abstain, config.threshold, inputs)
