"""Follow-up questions: which ones lean on the conversation, and the extractive rewrite that adds the
previous question's terms."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.core.types import Message
from ragkit.retrievers.analyzer import LUCENE_STOP_WORDS

_FOLLOW_UP = re.compile(
    r"^\s*(and|also|what about|how about|but|so|then)\b|\b(it|its|it's|they|them|their|this|that|these|those|"
    r"he|she|his|her|the same|the former|the latter)\b",
    re.IGNORECASE,
)


_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did can could would should is are was were "
    "about tell me please".split()
)


def recent_turns(history: Sequence[Message], turns: int) -> list[Message]:
    """The last ``turns`` user/assistant exchanges (``2 * turns`` messages); system messages dropped."""
    msgs = [m for m in history if m.role in ("user", "assistant")]
    return msgs[-2 * turns :] if turns > 0 else []


def is_follow_up(question: str, history: Sequence[Message]) -> bool:
    """A question that leans on the conversation: pronouns, "and what about…", or just a few words."""
    if not any(m.role == "user" for m in history):
        return False
    return bool(_FOLLOW_UP.search(question)) or len(question.split()) <= 3


def merge_terms(question: str, previous: str) -> str:
    """Extractive rewrite: the follow-up plus the previous question's content words it lacks."""
    have = {w.lower() for w in re.findall(r"\w+", question)}
    extra = [
        w
        for w in re.findall(r"\w+", previous)
        if w.lower() not in have and w.lower() not in LUCENE_STOP_WORDS and w.lower() not in _QUESTION_WORDS
    ]
    extra = list(dict.fromkeys(extra))
    return f"{question.strip()} {' '.join(extra)}".strip() if extra else question.strip()
