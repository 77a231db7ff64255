"""Answerability: does the evidence hold the *answer*, not just the topic? A second signal beside the
retrieval gauge, and the rule that decides between answering and abstaining.

- The extractive reader measures it: the key terms of the question and a candidate of the expected kind
  in the evidence it chose (:mod:`ragkit.llms.extractive.select`).
- A language model has no such number; its own "I don't know" is answerability 0, and with the relevance
  grader on, the share of retrieved chunks graded relevant is its answerability.

**Decision** (:func:`decide`): abstain when answerability is below ``answerability_threshold``; when the
retrieval gauge is below ``confidence_threshold``, abstain unless answerability is at least ``RESCUE``
(the reader found the answer's terms and kind in a passage the gauge under-rated: a first author in an
author line, say). A backend that measures nothing is decided by the retrieval gauge alone, before it
is called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragkit.core.options import Option

#: answerability from which a low retrieval gauge does not stop an answer
RESCUE = 0.75

OPTIONS = (
    Option("answerability_threshold", "float", 0.5, 0.0, 1.0, field="answerability_threshold",
           added_later=True, widget="slider", step=0.05, label="Abstain below answerability",
           help="abstain when the evidence does not hold the answer (the extractive reader's "
           "answerability; a language model saying it does not know)"),
)  # fmt: skip


@dataclass(frozen=True)
class Answerability:
    """How well the evidence answers: ``value`` in [0, 1] (None: not measured), what measured it and
    with what inputs (expected kind, kind found, coverage, missing key terms)."""

    value: float | None
    threshold: float
    basis: str  # "reader" | "llm" | "grader" | "none"
    inputs: dict[str, Any] = field(default_factory=dict)

    @property
    def abstain(self) -> bool:
        return self.value is not None and self.value < self.threshold

    @property
    def reason(self) -> str:
        """One sentence a user can read next to an abstention."""
        if self.basis == "llm" and self.value == 0.0:
            return "the model found no answer in the sources"
        missing = self.inputs.get("missing_terms") or []
        kind = self.inputs.get("expects")
        parts = []
        if missing:
            parts.append("they do not mention " + ", ".join(f"“{t}”" for t in missing[:3]))
        if kind and kind != "any" and self.inputs.get("kind_found") is False:
            parts.append(f"no {kind} that answers it")
        why = f" ({'; '.join(parts)})" if parts else ""
        value = "n/a" if self.value is None else f"{self.value:.2f}"
        return f"the retrieved passages do not answer it: answerability {value} < {self.threshold:.2f}{why}"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "threshold": self.threshold, "basis": self.basis, "inputs": self.inputs}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Answerability:
        value = d.get("value")
        return cls(
            None if value is None else float(value), float(d["threshold"]), d["basis"], d.get("inputs", {})
        )


def from_reader(meta: dict[str, Any], threshold: float) -> Answerability | None:
    """The reader's own measure, from its generation's ``meta`` (None when it reported none)."""
    if "answerability" not in meta:
        return None
    return Answerability(
        float(meta["answerability"]), threshold, "reader", dict(meta.get("answerability_inputs") or {})
    )


def from_llm(said_idk: bool, trace: dict[str, Any], threshold: float) -> Answerability:
    """A language model's: 0 when it said it does not know, else the share of chunks the grader kept
    (None without a grader: not measured)."""
    if said_idk:
        return Answerability(0.0, threshold, "llm", {"said": "I don't know"})
    grades = trace.get("retry_grades") or trace.get("grades")
    if grades:
        kept = sum(1 for g in grades if g.get("relevant"))
        return Answerability(
            kept / len(grades), threshold, "grader", {"relevant": kept, "graded": len(grades)}
        )
    return Answerability(None, threshold, "none")


def decide(retrieval_abstains: bool, retrieval_reason: str | None, ans: Answerability | None) -> str | None:
    """Why to abstain (None: answer), from the retrieval gauge's verdict and the answerability."""
    if ans is not None and ans.abstain:
        return ans.reason
    if retrieval_abstains and not (ans is not None and ans.value is not None and ans.value >= RESCUE):
        return retrieval_reason
    return None
