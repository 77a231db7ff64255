"""Answerability: does the evidence hold the *answer*, not just the topic? A second signal beside the
retrieval gauge, and the rule that decides between answering and abstaining.

- The extractive reader measures it: the key terms of the question and a candidate of the expected kind
  in the evidence it chose (:mod:`ragkit.llms.extractive.select`).
- A language model has no such number; its own "I don't know" is answerability 0, and with the relevance
  grader on, the share of retrieved chunks graded relevant is its answerability.

**Decision** (:func:`decide`): the *answer confidence* is the mean of the retrieval gauge and the
answerability; abstain when it is below ``answer_threshold`` (0.4), when a name the question asks
about is nowhere in the evidence's document ("How many GitHub stars does Orbit have?" over a post that
never mentions GitHub: the topic is there, the answer cannot be), or when the evidence holds the subject,
no number, date or person where the question asks for one (an answer so refused has answer confidence
at most ``RULED_OUT``). When the
retrieval gauge alone is below ``confidence_threshold``, abstain too, unless answerability is at least
``RESCUE`` (the reader found the answer's terms and kind in a passage the gauge under-rated: a first
author in an author line, say).
Neither signal alone tells "the topic is here" from "the answer is here" as well as both together: on a
700-question XQuAD sample with 10 % of the paragraphs held out (seed 1), the mean separates answerable
from held-out questions with ROC AUC 0.95, against 0.91 for either alone (BENCHMARKS.md, issue 21).
A language model's "I don't know" is an abstention; a backend that measures nothing is decided by the
retrieval gauge alone, before it is called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragkit.core.options import Option
from ragkit.pipeline.answer_confidence import answer_confidence, default_threshold

#: answerability from which a low retrieval gauge does not stop an answer
RESCUE = 0.75
#: the most answer confidence a reader's answer gets when a rule refuses it: none of the 30 such answers
#: on the held-out dev questions was right, and 3/30 is the "rule of three" bound on that rate
RULED_OUT = 0.1

OPTIONS = (
    Option("answer_threshold", "float", default_threshold(), 0.0, 1.0, field="answer_threshold",
           added_later=True, widget="slider", step=0.05, label="Abstain below answer confidence",
           help="the probability the answer is right, from the retrieval gauge and what the extractive "
           "reader measured (a model fitted on dev question sets; the default threshold was chosen there)"),
)  # fmt: skip


@dataclass(frozen=True)
class Answerability:
    """How well the evidence answers: ``value`` in [0, 1] (None: not measured), what measured it and
    with what inputs (expected kind, kind found, coverage, missing key terms)."""

    value: float | None
    threshold: float  # for the answer confidence
    basis: str  # "reader" | "llm" | "grader" | "none"
    inputs: dict[str, Any] = field(default_factory=dict)
    retrieval: float | None = None  # the retrieval gauge it is combined with

    @property
    def answer_confidence(self) -> float | None:
        """The probability the answer is right (None unless both the gauge and the answerability are
        known): the reader's from the fitted model (:mod:`ragkit.pipeline.answer_confidence`), a
        language model's the mean of the two."""
        if self.value is None or self.retrieval is None:
            return None
        if self.basis == "reader":
            fitted = answer_confidence(self.inputs, self.value, self.retrieval)
            return min(fitted, RULED_OUT) if self.ruled_out else fitted
        return (self.value + self.retrieval) / 2

    @property
    def ruled_out(self) -> bool:
        """Whether a rule refuses the reader's answer whatever the gauges say: a name asked about is not
        in the evidence, or no value of the kind asked for is."""
        return bool(self.inputs.get("missing_subject")) or self.off_the_question

    @property
    def off_the_question(self) -> bool:
        """The question asks for a number, date or person and the evidence holds none at all ("When will
        the sanctions be lifted?" over a sentence that they are), or names the subject and nothing asked
        about it and none where it speaks of what is asked ("What port number does KVL use?" over KVL's
        introduction)."""
        if self.inputs.get("expects") not in ("number", "date", "person"):
            return False
        bare = self.inputs.get("only_subject") and self.inputs.get("kind_found") is False
        return bool(bare or self.inputs.get("value_found") is False)

    @property
    def abstain(self) -> bool:
        if self.basis == "llm":
            return self.value == 0.0
        if self.ruled_out:
            return True
        combined = self.answer_confidence
        return combined is not None and combined < self.threshold

    @property
    def reason(self) -> str:
        """One sentence a user can read next to an abstention: which rule refused and what was missing."""
        if self.basis == "llm" and self.value == 0.0:
            return "the model found no answer in the sources"
        missing = [f"“{t}”" for t in (self.inputs.get("missing_terms") or [])[:3]]
        kind = self.inputs.get("expects")
        no_kind = bool(kind and kind != "any" and self.inputs.get("kind_found") is False)
        combined = self.answer_confidence
        gauges = "answerability not measured"
        if combined is not None:
            gauges = f"answer confidence {combined:.2f}: retrieval {self.retrieval:.2f}, "
            gauges += f"answerability {self.value:.2f}"
        if self.inputs.get("missing_subject"):
            what = ", ".join(missing) or "what it asks about"
            if self.inputs.get("subject_elsewhere"):
                return f"the passage it would answer from never mentions {what}; another does ({gauges})"
            return f"the passages never mention {what} ({gauges})"
        if self.off_the_question:
            what = f" ({', '.join(missing)})" if missing else ""
            if self.inputs.get("only_subject"):
                return (
                    f"the passages name only the subject, nothing asked about it{what}, no {kind} ({gauges})"
                )
            return f"the passages hold no {kind} that answers it{what} ({gauges})"
        # the terms missing from the sentences it would answer from, not from every passage retrieved
        parts = [f"the passage it would answer from does not mention {', '.join(missing)}"] if missing else []
        if no_kind:
            parts.append(f"no {kind} that answers it")
        why = f"; {'; '.join(parts)}" if parts else ""
        return f"the passages do not hold the answer: {gauges}, below {self.threshold:.2f}{why}"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "threshold": self.threshold, "basis": self.basis, "inputs": self.inputs,
                "retrieval": self.retrieval, "answer_confidence": self.answer_confidence}  # fmt: skip

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Answerability:
        value, retrieval = d.get("value"), d.get("retrieval")
        return cls(
            None if value is None else float(value),
            float(d["threshold"]),
            d["basis"],
            dict(d.get("inputs") or {}),
            None if retrieval is None else float(retrieval),
        )


def from_reader(meta: dict[str, Any], threshold: float, retrieval: float | None) -> Answerability | None:
    """The reader's own measure, from its generation's ``meta`` (None when it reported none), with the
    retrieval gauge it is combined with."""
    if "answerability" not in meta:
        return None
    inputs = dict(meta.get("answerability_inputs") or {})
    return Answerability(float(meta["answerability"]), threshold, "reader", inputs, retrieval)


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
    rescued = ans is not None and ans.value is not None and ans.value >= RESCUE
    if retrieval_abstains and not rescued:
        return retrieval_reason
    if ans is not None and ans.abstain:
        return ans.reason
    return None
