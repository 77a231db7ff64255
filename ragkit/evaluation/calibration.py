"""Is the confidence gauge trustworthy? Reliability bins, expected calibration error, risk-coverage.

``confidences`` are in [0, 1]; ``correct`` says whether each answer was right (1) or not (0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ReliabilityBin:
    lo: float
    hi: float
    count: int
    mean_confidence: float | None
    accuracy: float | None


def reliability_bins(
    confidences: Sequence[float], correct: Sequence[float], n_bins: int = 10
) -> list[ReliabilityBin]:
    """Equal-width bins over [0, 1] (the last one closed): count, mean confidence and accuracy in each."""
    if len(confidences) != len(correct):
        raise ValueError("confidences and correct must have the same length")
    bins: list[list[int]] = [[] for _ in range(n_bins)]
    for i, c in enumerate(confidences):
        bins[min(int(c * n_bins), n_bins - 1)].append(i)
    out = []
    for b, members in enumerate(bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        if members:
            mc = sum(confidences[i] for i in members) / len(members)
            acc = sum(correct[i] for i in members) / len(members)
            out.append(ReliabilityBin(lo, hi, len(members), mc, acc))
        else:
            out.append(ReliabilityBin(lo, hi, 0, None, None))
    return out


def expected_calibration_error(
    confidences: Sequence[float], correct: Sequence[float], n_bins: int = 10
) -> float:
    """ECE = sum over bins of (bin size / n) * |accuracy - mean confidence|."""
    n = len(confidences)
    if n == 0:
        return 0.0
    return sum(
        b.count / n * abs(b.accuracy - b.mean_confidence)  # type: ignore[operator]
        for b in reliability_bins(confidences, correct, n_bins)
        if b.count
    )


def risk_coverage(confidences: Sequence[float], correct: Sequence[float]) -> list[tuple[float, float, float]]:
    """``(threshold, coverage, accuracy of the kept answers)`` as the threshold rises through every
    distinct confidence: answers with confidence >= threshold are kept."""
    n = len(confidences)
    out = []
    for t in sorted(set(confidences)):
        kept = [i for i in range(n) if confidences[i] >= t]
        acc = sum(correct[i] for i in kept) / len(kept)
        out.append((t, len(kept) / n, acc))
    return out
