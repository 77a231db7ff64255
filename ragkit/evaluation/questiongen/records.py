"""A generated question and the question file it is saved as (JSONL with evidence as character spans,
or CSV with evidence quotes), which Evaluate, the sweep and ``eval run`` read like any question set."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ragkit.evaluation.datasets.evidence import SpanT

#: the types a user mixes; ``unanswerable`` questions are labelled "no answer in the collection"
TYPES = {
    "factual": "single passage, factual",
    "why": "single passage, why/how",
    "two_passage": "two passages (comparison or two hops)",
    "unanswerable": "no answer in the collection",
}
NO_ANSWER = "no answer in the collection"


@dataclass(frozen=True)
class GeneratedQuestion:
    """One question with its gold answer, its evidence ``(source, spans)`` per passage it rests on, the
    type and what made it; ``status`` is ``accepted`` or ``rejected`` (by the critique or the reviewer)."""

    question: str
    answer: str
    qtype: str
    evidence: tuple[tuple[str, tuple[SpanT, ...]], ...]
    evidence_text: tuple[str, ...]  # the quoted evidence, as it reads in the document
    passages: tuple[tuple[str, int, int, int], ...]  # (source, page, start, end) it was written from
    generator: str  # e.g. "offline:salient-terms" or "llm:groq:llama-3.1-8b-instant"
    prompt_hash: str = ""
    status: str = "accepted"
    reason: str = ""  # why it was rejected
    edited: bool = False

    @property
    def qid(self) -> str:
        return "g" + hashlib.sha256(" ".join(self.question.lower().split()).encode()).hexdigest()[:10]

    @property
    def absent(self) -> bool:
        return self.qtype == "unanswerable"

    def reject(self, reason: str) -> GeneratedQuestion:
        return replace(self, status="rejected", reason=reason)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["evidence"] = [[s, [list(x) for x in spans]] for s, spans in self.evidence]
        d["passages"] = [list(p) for p in self.passages]
        d["evidence_text"] = list(self.evidence_text)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GeneratedQuestion:
        evidence = tuple(
            (str(s), tuple(tuple(int(v) for v in x) for x in spans)) for s, spans in d["evidence"]
        )
        return cls(
            str(d["question"]),
            str(d.get("answer", "")),
            str(d["qtype"]),
            evidence,  # type: ignore[arg-type]
            tuple(d.get("evidence_text", ())),
            tuple(tuple(p) for p in d.get("passages", ())),  # type: ignore[misc]
            str(d.get("generator", "")),
            str(d.get("prompt_hash", "")),
            str(d.get("status", "accepted")),
            str(d.get("reason", "")),
            bool(d.get("edited", False)),
        )


def question_row(q: GeneratedQuestion) -> dict[str, Any]:
    """One line of a question file: what ``parse_question_file`` reads (``evidence_spans`` are exact
    passages; ``evidence`` quotes are for reading), plus the type and provenance."""
    return {
        "id": q.qid,
        "question": q.question,
        "gold_answer": "" if q.absent else q.answer,
        "evidence_spans": [{"source": s, "spans": [list(x) for x in spans]} for s, spans in q.evidence],
        "evidence_text": list(q.evidence_text),
        "type": q.qtype,
        "no_answer": q.absent,
        "generator": q.generator,
        "prompt_hash": q.prompt_hash,
        "edited": q.edited,
    }


def question_file(questions: Sequence[GeneratedQuestion], fmt: str = "jsonl") -> str:
    """The accepted questions as a question file: ``jsonl`` (evidence as spans) or ``csv`` (evidence as
    quotes separated by ``|``, located again when read; ``relevant_sources`` names the files)."""
    kept = [q for q in questions if q.status == "accepted"]
    if fmt == "jsonl":
        return "".join(json.dumps(question_row(q), ensure_ascii=False) + "\n" for q in kept)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["id", "question", "gold_answer", "relevant_sources", "evidence", "type", "generator"])
    for q in kept:
        sources = "" if q.absent else ";".join(dict.fromkeys(s for s, _ in q.evidence))
        quotes = "" if q.absent else "|".join(t.replace("|", " ") for t in q.evidence_text)
        w.writerow([q.qid, q.question, "" if q.absent else q.answer, sources, quotes, q.qtype, q.generator])
    return buf.getvalue()


@dataclass
class GenerationReport:
    """What a generation run made: every question (accepted and rejected), the replies that could not
    be parsed (counted by reason, with an example), and how it ended."""

    method: str
    questions: list[GeneratedQuestion] = field(default_factory=list)
    failures: dict[str, int] = field(default_factory=dict)
    failure_examples: dict[str, str] = field(default_factory=dict)
    status: str = "done"  # done | cancelled
    calls: int = 0  # LLM calls made (cache hits are not calls)
    cached: int = 0
    tokens: int = 0
    bias_note: str = ""

    @property
    def accepted(self) -> list[GeneratedQuestion]:
        return [q for q in self.questions if q.status == "accepted"]

    def failure_label(self, reason: str) -> str:
        """How a failure reads: an LLM's unusable reply, or a passage the offline method skipped."""
        return f"failed reply: {reason}" if self.method == "llm" else reason

    def fail(self, reason: str, example: str) -> None:
        self.failures[reason] = self.failures.get(reason, 0) + 1
        self.failure_examples.setdefault(reason, example[:300])

    def acceptance(self) -> dict[str, Any]:
        """Made, accepted, rejected per critique reason, and replies that failed to parse."""
        rejected: dict[str, int] = {}
        for q in self.questions:
            if q.status == "rejected":
                rejected[q.reason] = rejected.get(q.reason, 0) + 1
        made = len(self.questions)
        attempts = made + sum(self.failures.values())
        return {
            "attempts": attempts,
            "made": made,
            "accepted": len(self.accepted),
            "acceptance_rate": len(self.accepted) / attempts if attempts else None,
            "rejected": rejected,
            "failed_replies": dict(self.failures),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "status": self.status,
            "calls": self.calls,
            "cached": self.cached,
            "tokens": self.tokens,
            "bias_note": self.bias_note,
            "acceptance": self.acceptance(),
            "failure_examples": self.failure_examples,
            "questions": [q.to_dict() for q in self.questions],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GenerationReport:
        r = cls(d["method"], [GeneratedQuestion.from_dict(q) for q in d["questions"]])
        r.failures = dict(d.get("acceptance", {}).get("failed_replies", {}))
        r.failure_examples = dict(d.get("failure_examples", {}))
        r.status, r.calls, r.cached = d.get("status", "done"), d.get("calls", 0), d.get("cached", 0)
        r.tokens, r.bias_note = d.get("tokens", 0), d.get("bias_note", "")
        return r
