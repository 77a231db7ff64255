"""An LLM as judge (Groq or Ollama): faithfulness of an answer to its cited context, and relevance of
the answer to the question, each on a 1-5 scale reported as 0-1.

A judge reply that does not parse is counted (``judge_parse_failures``), never silently dropped: the
row keeps ``None`` for its scores and the report says how many rows that was.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ragkit.core.types import Message
from ragkit.llms.base import GenerationRequest

JUDGE_SYSTEM = (
    "You grade answers of a retrieval-augmented assistant. Reply with one JSON object and nothing else: "
    '{"faithfulness": <1-5>, "relevance": <1-5>}. faithfulness: 5 = every claim in the answer is '
    "supported by the context, 1 = the answer contradicts or ignores it. relevance: 5 = the answer "
    "addresses the question directly, 1 = it does not address it."
)
JUDGE_USER = "Question:\n{question}\n\nContext:\n{context}\n\nAnswer:\n{answer}\n\nJSON grade:"
_OBJECT = re.compile(r"\{[^{}]*\}", re.DOTALL)


@dataclass(frozen=True)
class Judgement:
    faithfulness: float | None  # 0-1, None when the reply did not parse
    relevance: float | None
    parsed: bool
    raw: str


def parse_judgement(text: str) -> tuple[float, float] | None:
    """The two grades from a judge reply, scaled from 1-5 to 0-1; None if there is no valid object.

    Accepts surrounding prose or a code fence (small models add them); rejects grades outside 1-5.
    """
    for m in _OBJECT.finditer(text):
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        try:
            f, r = float(obj["faithfulness"]), float(obj["relevance"])
        except (KeyError, TypeError, ValueError):
            continue
        if 1 <= f <= 5 and 1 <= r <= 5:
            return (f - 1) / 4, (r - 1) / 4
    return None


class LLMJudge:
    """Grades (question, context, answer) triples with a chat backend (``GroqLLM`` or ``OllamaLLM``)."""

    def __init__(self, llm: Any, max_context_chars: int = 6000) -> None:
        self.llm = llm
        self.max_context_chars = max_context_chars

    @property
    def model_id(self) -> str:
        return f"{getattr(self.llm, 'name', '?')}:{getattr(self.llm, 'model', '?')}"

    def judge(self, question: str, context: list[str], answer: str) -> Judgement:
        ctx = "\n\n".join(f"[{i}] {c}" for i, c in enumerate(context, 1))[: self.max_context_chars]
        user = JUDGE_USER.format(question=question, context=ctx or "(none)", answer=answer)
        messages = [Message("system", JUDGE_SYSTEM), Message("user", user)]
        req = GenerationRequest(
            messages, f"{JUDGE_SYSTEM}\n\n{user}", question, temperature=0.0, max_tokens=64
        )
        raw = self.llm.generate(req).text
        grades = parse_judgement(raw)
        if grades is None:
            return Judgement(None, None, False, raw)
        return Judgement(grades[0], grades[1], True, raw)
