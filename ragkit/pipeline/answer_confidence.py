"""Answer confidence: the probability that an answer is right, from what the retrieval gauge and the reader
measured — the gauge, the reader's answerability and its parts (key-term coverage, the expected kind
found, cosine), whether the question's qualifiers (year, number, names) are in the chosen text and not
contradicted, how far the choice stands above the next candidate, and whether the passages agree on the
document.

A logistic model over those signals, fitted on *dev* question sets only (``bench/fit_answer_confidence.py``:
the held-out set's dev part, XQuAD's dev articles, the own-documents set) and reported on the sealed test
part (BENCHMARKS.md). Its weights, what they were fitted on and the threshold chosen on dev live in
``answer_confidence.json`` beside this module. A backend that measures nothing has no answer confidence
beyond the retrieval gauge; a language model's is the mean of the gauge and its answerability.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

MODEL_FILE = Path(__file__).with_name("answer_confidence.json")

#: the signals, in the model's order; each read from the reader's answerability inputs (or the gauge)
FEATURES = (
    "retrieval",
    "answerability",
    "coverage",
    "cosine",
    "kind_found",
    "typed",
    "missing_subject",
    "only_subject",
    "literal_share",
    "year_conflict",
    "names_in_text",
    "margin",
    "same_document",
    "rarest_found",
)


def features(inputs: dict[str, Any], answerability: float, retrieval: float) -> list[float]:
    """The model's inputs from the reader's answerability ``inputs``, its value and the retrieval gauge."""
    row = {
        "retrieval": retrieval,
        "answerability": answerability,
        "coverage": inputs.get("coverage", 0.0),
        "cosine": inputs.get("cosine", 0.0),
        "kind_found": float(bool(inputs.get("kind_found"))),
        "typed": float(inputs.get("expects", "any") != "any"),
        "missing_subject": float(bool(inputs.get("missing_subject"))),
        "only_subject": float(bool(inputs.get("only_subject"))),
        "literal_share": inputs.get("literal_share", 1.0),
        "year_conflict": inputs.get("year_conflict", 0.0),
        "names_in_text": inputs.get("names_in_text", 1.0),
        "margin": inputs.get("margin", 0.0),
        "same_document": inputs.get("same_document", 0.0),
        "rarest_found": inputs.get("rarest_found", 1.0),
    }
    return [float(row[f]) for f in FEATURES]


@lru_cache(maxsize=1)
def model() -> dict[str, Any] | None:
    """The fitted model (None when none ships: the mean of the gauge and the answerability is used)."""
    if not MODEL_FILE.is_file():
        return None
    data = json.loads(MODEL_FILE.read_text(encoding="utf-8"))
    return data if tuple(data.get("features", ())) == FEATURES else None


def probability(x: list[float], fitted: dict[str, Any]) -> float:
    """``sigmoid(bias + weights · standardised x)``."""
    parts = zip(fitted["weights"], x, fitted["mean"], fitted["scale"], strict=True)
    z = fitted["bias"] + sum(w * (v - m) / s for w, v, m, s in parts)
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def answer_confidence(inputs: dict[str, Any], answerability: float, retrieval: float) -> float:
    """The probability the reader's answer is right (see the module docstring)."""
    fitted = model()
    if fitted is None:
        return (answerability + retrieval) / 2
    return round(probability(features(inputs, answerability, retrieval), fitted), 4)


def default_threshold() -> float:
    """The abstention threshold chosen on dev with the shipped model (0.4 without one)."""
    fitted = model()
    return float(fitted["threshold"]) if fitted is not None else 0.4
