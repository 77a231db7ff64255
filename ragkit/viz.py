"""Plotly figures for the dashboard (built here so pages stay layout-only and figures are testable)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.confidence import DEFAULT_CONFIDENCE, Confidence, ConfidenceConfig

BAND_COLOURS = {"low": "#f8d7da", "medium": "#fff3cd", "high": "#d1e7dd"}
STAGE_ORDER = ("rewrite", "embed_query", "bm25", "dense", "rrf", "rerank", "generate")


def confidence_gauge(
    confidence: Confidence | None,
    config: ConfidenceConfig = DEFAULT_CONFIDENCE,
    title: str = "Retrieval confidence",
) -> Any:
    """A gauge over [0, 1] with the low/medium/high bands and the abstention threshold marked."""
    import plotly.graph_objects as go

    value = confidence.value if confidence is not None else 0.0
    threshold = confidence.threshold if confidence is not None else config.threshold
    band = confidence.band if confidence is not None else "n/a"
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


def latency_bar(timings_ms: Mapping[str, float], title: str = "Latency per stage (ms)") -> Any:
    """Horizontal bars of the time each stage took (``total`` left out)."""
    import plotly.graph_objects as go

    stages = [s for s in STAGE_ORDER if s in timings_ms] + [
        s for s in timings_ms if s not in STAGE_ORDER and s != "total"
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
    return fig


def chunk_length_histogram(lengths: Sequence[int], title: str = "Chunk length (characters)") -> Any:
    import plotly.graph_objects as go

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
