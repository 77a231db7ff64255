"""Quality against latency: each config as a point with its intervals, and the Pareto front of the points
that are better beyond their intervals, not by noise.

A point is ``(name, latency, quality)`` with the spread of each: latency is the median per-question
latency with its interquartile range; quality is the metric's mean with its 95 % bootstrap interval
(resampling questions). One config *dominates* another when it is no worse on both axes and better on
one, where "better" means the intervals do not overlap and "no worse" means better or overlapping. So two
configs whose latencies differ by less than their spread are equally fast here, and the front does not
follow the noise of a run (two identical runs gave p50 89 ms and 499 ms once).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any, NamedTuple

from ragkit.evaluation.metrics.stats import mean_ci


class Point(NamedTuple):
    name: str
    latency: float
    quality: float
    latency_lo: float | None = None  # interquartile range of the per-question latency
    latency_hi: float | None = None
    quality_lo: float | None = None  # 95 % bootstrap interval of the mean
    quality_hi: float | None = None
    size: float | None = None  # a third axis where it is known (a sweep's index size): lower is better


def _interval(value: float, lo: float | None, hi: float | None) -> tuple[float, float]:
    return (value if lo is None else lo, value if hi is None else hi)


def _compare(a: tuple[float, float], b: tuple[float, float], lower_better: bool) -> int:
    """1 when interval ``a`` is better than ``b`` beyond overlap, -1 when worse, 0 when they overlap
    (points without intervals compare by value)."""
    if a[1] < b[0]:
        return 1 if lower_better else -1
    if b[1] < a[0]:
        return -1 if lower_better else 1
    return 0


def dominates(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Whether point ``a`` is no worse than ``b`` on latency and quality (and size, when both have one)
    and better on one of them. Sizes are exact, so they compare by value."""
    pa, pb = Point(*a), Point(*b)
    lat = _compare(
        _interval(pa.latency, pa.latency_lo, pa.latency_hi),
        _interval(pb.latency, pb.latency_lo, pb.latency_hi),
        lower_better=True,
    )
    qual = _compare(
        _interval(pa.quality, pa.quality_lo, pa.quality_hi),
        _interval(pb.quality, pb.quality_lo, pb.quality_hi),
        lower_better=False,
    )
    size = 0
    if pa.size is not None and pb.size is not None and pa.size != pb.size:
        size = 1 if pa.size < pb.size else -1
    return lat >= 0 and qual >= 0 and size >= 0 and (lat > 0 or qual > 0 or size > 0)


def pareto_front(points: Sequence[Sequence[Any]]) -> list[str]:
    """Names of the points no other point dominates (see :func:`dominates`); ``points`` are
    :class:`Point` or ``(name, latency, quality)`` tuples."""
    return [p[0] for p in points if not any(dominates(q, p) for q in points if q[0] != p[0])]


def overlapping(points: Sequence[Sequence[Any]]) -> list[tuple[str, str]]:
    """Pairs of points whose intervals overlap on both axes: on this run neither is faster or better."""
    out = []
    for i, a in enumerate(points):
        for b in points[i + 1 :]:
            pa, pb = Point(*a), Point(*b)
            lat = _compare(
                _interval(pa.latency, pa.latency_lo, pa.latency_hi),
                _interval(pb.latency, pb.latency_lo, pb.latency_hi),
                True,
            )
            qual = _compare(
                _interval(pa.quality, pa.quality_lo, pa.quality_hi),
                _interval(pb.quality, pb.quality_lo, pb.quality_hi),
                False,
            )
            if lat == 0 and qual == 0:
                out.append((pa.name, pb.name))
    return out


def quality_latency_points(result: dict[str, Any], metric: str) -> list[Point]:
    """Each config's median latency (with its interquartile range over the questions) and mean ``metric``
    (with its 95 % bootstrap interval)."""
    points = []
    for c in result["configs"]:
        if metric not in c["metrics"]:
            continue
        rows = c.get("per_question", {}).values()
        lat = sorted(float(v["latency_ms"]) for v in rows if v.get("latency_ms") is not None)
        vals = [float(v[metric]) for v in rows if v.get(metric) is not None]
        lo = hi = qlo = qhi = None
        if len(lat) >= 4:
            q1, _, q3 = statistics.quantiles(lat, n=4, method="inclusive")
            lo, hi = q1, q3
        if len(vals) >= 2:
            _, qlo, qhi = mean_ci(vals)
        points.append(Point(c["name"], c["latency_ms"]["p50"], c["metrics"][metric], lo, hi, qlo, qhi))
    return points
