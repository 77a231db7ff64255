"""Is an "unanswerable" question really unanswerable in this collection? Its writer saw one passage; the
answer may sit in another. Before it is kept, the collection's closest passages (by the idf of the terms
they share with the question) are shown to the same backend, which says whether one of them answers it.
A question the collection answers is rejected, with the sentence that answers it; a check whose reply
does not parse rejects too (a label "no answer in the collection" is only given when it was checked).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from ragkit.core.types import Message
from ragkit.evaluation.datasets.evidence import locate_in_text
from ragkit.evaluation.questiongen.offline import IdfTable
from ragkit.evaluation.questiongen.passages import Passage
from ragkit.evaluation.questiongen.records import GeneratedQuestion
from ragkit.llms.base import GenerationRequest
from ragkit.pipeline.prompts.questions import ABSENCE_PROMPT, absence_prompt

ANSWERED = "answered in the collection"
UNCHECKED = "absence not checked (the reply did not parse)"
#: passages shown to the checker: the closest few (a prompt of about 2,000 tokens)
CHECK_PASSAGES = 4
CHECK_TOKENS = 200
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def closest(
    question: str, pool: Sequence[tuple[Passage, set[str]]], idf: IdfTable, k: int = CHECK_PASSAGES
) -> list[Passage]:
    """The ``k`` passages sharing the most idf weight with the question's terms (ties: pool order);
    ``pool`` holds each passage with its analysed terms (computed once per run)."""
    terms = set(idf.analyzer(question))
    if not terms:
        return []
    weights = {t: idf.idf(t) for t in terms}
    scored = []
    for i, (p, theirs) in enumerate(pool):
        shared = terms & theirs
        if shared:
            scored.append((-sum(weights[t] for t in shared), i, p))
    return [p for _, _, p in sorted(scored)[:k]]


def request(question: str, passages: Sequence[Passage]) -> GenerationRequest:
    prompt = absence_prompt(question, [(p.source, p.page, p.text) for p in passages])
    return GenerationRequest([Message("user", prompt)], prompt, "", (), 0.0, CHECK_TOKENS, ())


def cache_key(question: str, passages: Sequence[Passage], llm: Any) -> str:
    prompt_hash = hashlib.sha256(ABSENCE_PROMPT.encode()).hexdigest()[:12]
    raw = ["absence", question, *(p.key for p in passages), prompt_hash, llm.name, llm.model]
    return hashlib.sha256("\x00".join(raw).encode()).hexdigest()[:24]


def verdict(reply: str, q: GeneratedQuestion, passages: Sequence[Passage]) -> GeneratedQuestion:
    """The question kept, or rejected as answered (naming where) or as unchecked."""
    try:
        obj = json.loads(_FENCE.sub("", reply.strip()))
    except ValueError:
        return q.reject(UNCHECKED)
    if not isinstance(obj, dict) or not isinstance(obj.get("answered"), bool):
        return q.reject(UNCHECKED)
    if not obj["answered"]:
        return q
    quote = str(obj.get("evidence") or "").strip()
    for p in passages:
        if quote and locate_in_text(quote, p.text) is not None:
            return q.reject(f"{ANSWERED}: {p.source}, page {p.page}: “{quote[:160]}”")
    return q.reject(f"{ANSWERED} (by the checker; its quote is not in the passages shown)")
