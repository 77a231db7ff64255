"""Plotly figures for the dashboard (built here so pages stay layout-only and figures are testable)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.core.optional import require
from ragkit.pipeline.confidence import DEFAULT_CONFIDENCE, Confidence, ConfidenceConfig

BAND_COLOURS = {"low": "#f8d7da", "medium": "#fff3cd", "high": "#d1e7dd"}
STAGE_ORDER = ("rewrite", "embed_query", "bm25", "dense", "rrf", "rerank", "generate")


def confidence_gauge(
    confidence: Confidence | None,
    config: ConfidenceConfig = DEFAULT_CONFIDENCE,
    title: str = "Retrieval confidence",
) -> Any:
    """A gauge over [0, 1] with the low/medium/high bands and the abstention threshold marked."""
    go = require("plotly.graph_objects", "the app's charts")

    value = confidence.value if confidence is not None else 0.0
    threshold = confidence.threshold if confidence is not None else config.threshold
    band = confidence.band if confidence is not None else "n/a"
    if confidence is not None and confidence.value > 0:
        # a reader takes a gauge for a probability: say whether it is one
        raw = confidence.inputs.get("raw_value")
        band += (
            f" · calibrated (raw {raw:.2f})"
            if confidence.calibration and raw is not None
            else " · raw score, not calibrated"
        )
    fig = go.Figure(
        go.Indicator(
            mode="gauge+number",
            value=round(value, 3),
            number={"valueformat": ".2f"},
            title={"text": f"{title}<br><span style='font-size:0.8em'>{band}</span>"},
            gauge={
                "axis": {"range": [0, 1]},
                "bar": {"color": "#0d6efd"},
                "steps": [
                    {"range": [0, config.medium], "color": BAND_COLOURS["low"]},
                    {"range": [config.medium, config.high], "color": BAND_COLOURS["medium"]},
                    {"range": [config.high, 1], "color": BAND_COLOURS["high"]},
                ],
                "threshold": {
                    "line": {"color": "#dc3545", "width": 4},
                    "thickness": 0.85,
                    "value": threshold,
                },
            },
        )
    )
    fig.update_layout(height=250, margin={"l": 20, "r": 20, "t": 85, "b": 10})
    return fig


def answer_confidence_gauge(answerability: Any, title: str = "Answer confidence") -> Any:
    """The second gauge, beside the retrieval gauge: the probability that the *answer* is right (the
    reader's measures and the gauge, through the model fitted on dev sets), with the abstention
    threshold; its note gives the reader's answerability. "not measured" for a backend that reports
    nothing."""
    go = require("plotly.graph_objects", "the app's charts")

    value = getattr(answerability, "answer_confidence", None)
    basis = {"reader": "extractive reader", "llm": "the model's own answer", "grader": "graded chunks"}
    note = basis.get(getattr(answerability, "basis", ""), "not measured")
    if answerability is not None and answerability.value is not None:
        note += f" · answerability {answerability.value:.2f}"
    fig = go.Figure(
        go.Indicator(
            mode="gauge+number",
            value=round(value, 3) if value is not None else 0.0,
            number={"valueformat": ".2f"},
            title={"text": f"{title}<br><span style='font-size:0.8em'>{note}</span>"},
            gauge={
                "axis": {"range": [0, 1]},
                "bar": {"color": "#6f42c1" if value is not None else "#adb5bd"},
                "threshold": {
                    "line": {"color": "#dc3545", "width": 4},
                    "thickness": 0.85,
                    "value": answerability.threshold if answerability is not None else 0.4,
                },
            },
        )
    )
    fig.update_layout(height=250, margin={"l": 20, "r": 20, "t": 85, "b": 10})
    return fig


def latency_bar(
    timings_ms: Mapping[str, float], title: str = "Latency per stage (ms)", x_max: float | None = None
) -> Any:
    """Horizontal bars of the time each stage took (``total`` and the one-off model ``load`` left out:
    neither is a stage of this question). ``x_max`` puts two charts on the same scale."""
    go = require("plotly.graph_objects", "the app's charts")

    stages = [s for s in STAGE_ORDER if s in timings_ms] + [
        s for s in timings_ms if s not in STAGE_ORDER and s not in ("total", "load")
    ]
    fig = go.Figure(
        go.Bar(
            x=[timings_ms[s] for s in stages],
            y=stages,
            orientation="h",
            text=[f"{timings_ms[s]:.0f}" for s in stages],
            textposition="auto",
        )
    )
    fig.update_layout(
        title=title,
        height=60 + 28 * max(len(stages), 1),
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        yaxis={"autorange": "reversed"},
    )
    if x_max:
        fig.update_xaxes(range=[0, x_max * 1.05])
    return fig


def chunk_length_histogram(lengths: Sequence[int], title: str = "Chunk length (characters)") -> Any:
    go = require("plotly.graph_objects", "the app's charts")

    fig = go.Figure(go.Histogram(x=list(lengths), nbinsx=30))
    fig.update_layout(
        title=title,
        height=280,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
        xaxis_title="characters",
        yaxis_title="chunks",
        bargap=0.05,
    )
    return fig


# ------------------------------------------------------------------ evaluation figures


def reliability_diagram(configs: Sequence[Mapping[str, Any]]) -> Any:
    """Observed accuracy per confidence bin for each config, against the diagonal of perfect calibration;
    marker size follows the number of questions in the bin. ``configs`` are result config entries."""
    go = require("plotly.graph_objects", "the app's charts")

    fig = go.Figure(
        go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="perfectly calibrated", line={"dash": "dot"})
    )
    for c in configs:
        cal = c.get("calibration")
        if not cal:
            continue
        bins = [b for b in cal["bins"] if b["count"]]
        fig.add_trace(
            go.Scatter(
                x=[b["mean_confidence"] for b in bins],
                y=[b["accuracy"] for b in bins],
                mode="lines+markers",
                name=f"{c['name']} (ECE {cal['ece']:.3f})",
                marker={"size": [6 + 14 * (b["count"] / max(cal.get("n", 1), 1)) ** 0.5 for b in bins]},
                text=[f"n = {b['count']}" for b in bins],
            )
        )
    fig.update_layout(
        title="Reliability of the retrieval confidence",
        xaxis={"title": "mean confidence in bin", "range": [0, 1]},
        yaxis={"title": "share with the evidence retrieved", "range": [0, 1.02]},
        height=360,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig


def risk_coverage_chart(configs: Sequence[Mapping[str, Any]]) -> Any:
    """Accuracy of the answers kept against the share kept, as the abstention threshold rises."""
    go = require("plotly.graph_objects", "the app's charts")

    fig = go.Figure()
    for c in configs:
        cal = c.get("calibration")
        if not cal or not cal["risk_coverage"]:
            continue
        pts = cal["risk_coverage"]
        fig.add_trace(
            go.Scatter(
                x=[p[1] for p in pts],
                y=[p[2] for p in pts],
                mode="lines",
                name=c["name"],
                text=[f"threshold {p[0]:.2f}" for p in pts],
                line={"shape": "hv"},
            )
        )
    fig.update_layout(
        title="Risk–coverage: accuracy of kept answers as the threshold rises",
        xaxis={
            "title": "coverage (share of questions answered)",
            "range": [0, 1.02],
            "autorange": "reversed",
        },
        yaxis={"title": "accuracy of kept answers", "range": [0, 1.02]},
        height=360,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig


def quality_latency_chart(points: Sequence[Sequence[Any]], front: Sequence[str], metric: str) -> Any:
    """Each config at (p50 latency, quality) with its intervals as error bars (latency interquartile range,
    95 % interval of the mean); the Pareto-optimal ones are marked and joined by a line."""
    go = require("plotly.graph_objects", "the app's charts")

    on = sorted((p for p in points if p[0] in front), key=lambda p: p[1])

    def bars(i: int, lo: int, hi: int) -> dict[str, Any] | None:
        if not all(len(p) > hi and p[lo] is not None and p[hi] is not None for p in points):
            return None
        return {
            "type": "data",
            "symmetric": False,
            "array": [p[hi] - p[i] for p in points],
            "arrayminus": [p[i] - p[lo] for p in points],
        }

    fig = go.Figure(
        go.Scatter(
            x=[p[1] for p in points],
            y=[p[2] for p in points],
            error_x=bars(1, 3, 4),
            error_y=bars(2, 5, 6),
            mode="markers+text",
            text=[p[0] for p in points],
            textposition="top center",
            marker={
                "size": 14,
                "symbol": ["star" if p[0] in front else "circle" for p in points],
                "color": ["#198754" if p[0] in front else "#6c757d" for p in points],
            },
            name="configs",
        )
    )
    fig.add_trace(
        go.Scatter(
            x=[p[1] for p in on],
            y=[p[2] for p in on],
            mode="lines",
            name="Pareto front",
            line={"dash": "dash"},
        )
    )
    fig.update_layout(
        title=f"{metric} vs p50 latency (stars: Pareto front)",
        xaxis={"title": "p50 latency (ms)"},
        yaxis={"title": metric},
        height=360,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig


def intent_chart(slices: Sequence[Mapping[str, Any]], names: Sequence[str], metric: str) -> Any:
    """Grouped bars: ``metric`` per config within each query intent."""
    go = require("plotly.graph_objects", "the app's charts")

    fig = go.Figure()
    for n in names:
        fig.add_trace(
            go.Bar(
                x=[f"{s['intent']} ({s['questions']})" for s in slices],
                y=[s[n] for s in slices],
                name=n,
            )
        )
    fig.update_layout(
        title=f"{metric} by query intent (questions per intent)",
        barmode="group",
        yaxis={"title": metric},
        height=320,
        margin={"l": 10, "r": 10, "t": 40, "b": 10},
    )
    return fig
