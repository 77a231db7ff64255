"""LLM-written questions: one call per question through any configured backend, the reply parsed
strictly. A reply that is not one JSON object, lacks a field, or quotes evidence that is not in its
passage is a *failed reply*: counted by reason and shown, never silently dropped or repaired."""

from __future__ import annotations

import json
import re
from typing import Any

from ragkit.core.types import Message
from ragkit.evaluation.datasets.evidence import locate_in_text
from ragkit.evaluation.questiongen.passages import Passage
from ragkit.evaluation.questiongen.records import NO_ANSWER, GeneratedQuestion
from ragkit.llms.base import GenerationRequest
from ragkit.pipeline.prompts.questions import question_prompt, question_prompt_hash

NOT_JSON = "reply is not one JSON object"
MISSING = "reply lacks a field"
NOT_QUOTED = "evidence not found in the passage"
LLM_ERROR = "the LLM call failed"
REPLY_TOKENS = 300
_FIELDS = {
    "factual": ("question", "answer", "evidence"),
    "why": ("question", "answer", "evidence"),
    "two_passage": ("question", "answer", "evidence_1", "evidence_2"),
    "unanswerable": ("question",),
}
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


class ReplyError(ValueError):
    """A reply that cannot become a question; ``reason`` is one of the constants above."""

    def __init__(self, reason: str, reply: str) -> None:
        super().__init__(reason)
        self.reason, self.reply = reason, reply


def generator_name(llm: Any) -> str:
    return f"llm:{llm.name}:{getattr(llm, 'model', '')}"


def request_for(qtype: str, passage: Passage, other: Passage | None = None) -> GenerationRequest:
    prompt = question_prompt(
        qtype, passage.source, passage.text, other.source if other else "", other.text if other else ""
    )
    return GenerationRequest([Message("user", prompt)], prompt, "", (), 0.0, REPLY_TOKENS, ())


def parse_reply(text: str, qtype: str) -> dict[str, str]:
    """The reply's fields, stripped; a code fence around the object is allowed, anything else is not."""
    body = _FENCE.sub("", text.strip())
    try:
        obj = json.loads(body)
    except ValueError:
        raise ReplyError(NOT_JSON, text) from None
    if not isinstance(obj, dict):
        raise ReplyError(NOT_JSON, text)
    out = {}
    for f in _FIELDS[qtype]:
        value = obj.get(f)
        if not isinstance(value, str) or not value.strip():
            raise ReplyError(MISSING, text)
        out[f] = value.strip()
    return out


def _quote(quote: str, passage: Passage, reply: str) -> tuple[tuple[int, int, int], str]:
    """Where the quoted evidence sits on the passage's page, and the text there."""
    q = quote.strip().strip("\"'“”…").removesuffix("...").strip()
    found = locate_in_text(q, passage.text)
    if found is None:
        raise ReplyError(NOT_QUOTED, reply)
    s, e = found
    return (passage.page, passage.start + s, passage.start + e), passage.text[s:e]


def question_from_reply(
    reply: str, qtype: str, passage: Passage, other: Passage | None, generator: str
) -> GeneratedQuestion:
    """A reply as a question with its evidence spans, or :class:`ReplyError`."""
    fields = parse_reply(reply, qtype)
    where = [(passage.source, passage.page, passage.start, passage.end)]
    if other is not None:
        where.append((other.source, other.page, other.start, other.end))
    if qtype == "unanswerable":
        evidence: list[tuple[str, tuple]] = []
        quotes: list[str] = []
        answer = NO_ANSWER
    else:
        if qtype == "two_passage":
            pairs = [(fields["evidence_1"], passage), (fields["evidence_2"], other)]
        else:
            pairs = [(fields["evidence"], passage)]
        evidence, quotes = [], []
        for quote, p in pairs:
            assert p is not None
            span, text = _quote(quote, p, reply)
            evidence.append((p.source, (span,)))
            quotes.append(text)
        answer = fields["answer"]
    return GeneratedQuestion(
        fields["question"],
        answer,
        qtype,
        tuple(evidence),
        tuple(quotes),
        tuple(where),  # type: ignore[arg-type]
        generator,
        question_prompt_hash(qtype),
    )
