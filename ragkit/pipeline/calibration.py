"""A fitted calibration map raw gauge -> probability (isotonic or Platt), stored in a config as JSON; fitting
lives in ``ragkit.evaluation.metrics.calibration``."""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass
from typing import Any

CALIBRATION_METHODS = ("isotonic", "platt")


def scope_name(collection: str | None, dataset: str) -> str:
    """Where a calibration map holds: ``collection:<name>`` over a collection, else ``dataset:<name>``."""
    return f"collection:{collection}" if collection else f"dataset:{dataset}"


@dataclass(frozen=True)
class CalibrationMap:
    """A fitted map from the raw gauge to a probability, stored as JSON with the config (no pickle).

    ``isotonic``: the step points ``(x, y)`` of scikit-learn's isotonic regression, applied by linear
    interpolation and clipped at the ends; ``platt``: ``sigmoid(a * c + b)``. ``fitted_on`` names the
    question set, ``target`` what "correct" meant, and ``ece_raw_cv`` / ``ece_calibrated_cv`` the
    cross-validated ECE before and after (never fitted and scored on the same questions). ``scope`` is the
    collection or dataset it holds for: elsewhere the raw gauge is used.
    """

    method: str
    x: tuple[float, ...] = ()
    y: tuple[float, ...] = ()
    a: float = 0.0
    b: float = 0.0
    fitted_on: str = ""
    target: str = ""
    n: int = 0
    folds: int = 0
    ece_raw_cv: float | None = None
    ece_calibrated_cv: float | None = None
    #: the collection (or dataset) it was fitted on: it is applied there only (empty: anywhere)
    scope: str = ""

    def applies_to(self, scope: str | None) -> bool:
        """Whether the map may be applied where ``scope`` is searched (None: the caller does not say)."""
        return not self.scope or scope is None or scope == self.scope

    def apply(self, confidence: float) -> float:
        """The calibrated probability for one raw confidence."""
        import math

        if self.method == "platt":
            z = self.a * confidence + self.b
            return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))
        if not self.x:
            return confidence
        import numpy as np

        return float(np.clip(np.interp(confidence, self.x, self.y), 0.0, 1.0))

    def describe(self) -> str:
        """One line for the gauge: what it was fitted on and what that bought, out of sample."""
        ece = ""
        if self.ece_raw_cv is not None and self.ece_calibrated_cv is not None:
            ece = f"; {self.folds}-fold ECE {self.ece_raw_cv:.3f} → {self.ece_calibrated_cv:.3f}"
        return f"calibrated ({self.method}) on {self.fitted_on or 'a labelled run'}, {self.n} questions{ece}"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["x"], d["y"] = list(self.x), list(self.y)
        return d

    @classmethod
    def from_dict(cls, d: Any) -> CalibrationMap:
        """Parse and validate a stored map (a config field a user may hand-edit): ValueError naming what
        is wrong."""
        if not isinstance(d, dict):
            raise ValueError(f"a calibration map is a JSON object, got {type(d).__name__}")
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown calibration keys {sorted(map(str, unknown))[:5]}")
        method = d.get("method")
        if method not in CALIBRATION_METHODS:
            raise ValueError(f"calibration method must be one of {', '.join(CALIBRATION_METHODS)}")
        try:
            x = tuple(float(v) for v in d.get("x", ()))
            y = tuple(float(v) for v in d.get("y", ()))
            a, b = float(d.get("a", 0.0)), float(d.get("b", 0.0))
        except (TypeError, ValueError):
            raise ValueError("calibration x, y, a and b must be numbers") from None
        import math

        if len(x) != len(y) or len(x) > 10_000:
            raise ValueError("calibration x and y must be lists of the same length (at most 10,000)")
        if any(not math.isfinite(v) for v in (*x, *y, a, b)):
            raise ValueError("calibration points must be finite numbers")
        if method == "isotonic":
            if not x:
                raise ValueError("an isotonic calibration needs its points")
            if any(p > q for v in (x, y) for p, q in itertools.pairwise(v)):
                raise ValueError("isotonic calibration points must be non-decreasing")
            if not all(0.0 <= v <= 1.0 for v in (*x, *y)):
                raise ValueError("isotonic calibration points must lie in [0, 1]")
        extra = {k: d[k] for k in ("fitted_on", "target", "scope") if k in d}
        if not all(isinstance(v, str) for v in extra.values()):
            raise ValueError("calibration fitted_on, target and scope must be strings")

        def opt(k: str) -> float | None:
            v = d.get(k)
            return None if v is None else float(v)

        return cls(
            method,
            x,
            y,
            a,
            b,
            str(d.get("fitted_on", ""))[:300],
            str(d.get("target", ""))[:300],
            int(d.get("n", 0)),
            int(d.get("folds", 0)),
            opt("ece_raw_cv"),
            opt("ece_calibrated_cv"),
            str(d.get("scope", ""))[:300],
        )
