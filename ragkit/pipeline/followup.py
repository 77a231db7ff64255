"""Follow-up questions: which ones cannot stand alone, and how they are rewritten into the query that is
searched. A question is rewritten only when it leans on the conversation — it starts with a connective
("and what about…"), is three words or fewer, or refers back ("it", "they", "this") before naming any
subject of its own. "Why does XYLayoutLM use dilated convolutions in its position encoding?" names its
subject before "its", and "How many deaf participants completed their ballots?" the plural "their" stands
for: they stand alone and are searched as asked. The rewrite and its reason are recorded
in the answer's trace, and ``rewrite_follow_ups`` turns rewriting off."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ragkit.core.options import Option
from ragkit.core.types import Message
from ragkit.retrievers.analyzer import LUCENE_STOP_WORDS

OPTIONS = (
    Option("rewrite_follow_ups", "bool", True, field="rewrite_follow_ups", added_later=True, advanced=True,
           label="Rewrite follow-up questions",
           help="A question that cannot stand alone ('and its latency?') is searched with the previous "
           "question's terms (or an LLM's rewrite); the searched query is shown with the answer."),
)  # fmt: skip

_CONNECTIVE = re.compile(r"^\s*(and|also|what about|how about|but|so|then|or)\b", re.IGNORECASE)
_ANAPHOR = re.compile(
    r"\b(it|its|it's|they|them|their|theirs|this|that|these|those|he|she|his|her|hers|the same|"
    r"the former|the latter|the above)\b",
    re.IGNORECASE,
)
_SUBJECT = re.compile(r"\b[A-Z][\w\-]*[A-Z0-9][\w\-]*\b|\b[A-Za-z]+[-_]?\d[\w\-]*|`[^`]+`|\"[^\"]+\"")
#: a plural noun before "they"/"their" is what it refers to ("participants", "authors"; not "class",
#: "status", "analysis")
_PLURAL = re.compile(r"\b(?!(?:always|perhaps|whereas)\b)[a-z]{3,}[^siu\W]s\b")
_PLURAL_ANAPHORS = frozenset({"they", "them", "their", "theirs"})
_QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does do did can could would should is are was were "
    "about tell me please".split()
)


def recent_turns(history: Sequence[Message], turns: int) -> list[Message]:
    """The last ``turns`` user/assistant exchanges (``2 * turns`` messages); system messages dropped."""
    msgs = [m for m in history if m.role in ("user", "assistant")]
    return msgs[-2 * turns :] if turns > 0 else []


def follow_up_reason(question: str, history: Sequence[Message]) -> str | None:
    """Why ``question`` cannot stand alone (None: it can, or there is no conversation to lean on)."""
    if not any(m.role == "user" for m in history):
        return None
    if m := _CONNECTIVE.match(question):
        return f"it starts with “{m.group(1)}”"
    if len(question.split()) <= 3:
        return "it is three words or fewer"
    anaphor = _ANAPHOR.search(question)
    if anaphor is None:
        return None
    subject = _SUBJECT.search(question, 1)  # a name of its own (the first word is capitalised anyway)
    if subject is not None and subject.start() < anaphor.start():
        return None  # "XYLayoutLM … its": the question names what "its" refers to
    if anaphor.group(0).lower() in _PLURAL_ANAPHORS and _PLURAL.search(question[: anaphor.start()]):
        return None  # "How many deaf participants completed their ballots?": "their" is theirs
    return f"“{anaphor.group(0)}” refers back to the conversation"


def added_terms(question: str, previous: str) -> str:
    """The previous question's content words the follow-up lacks, in their order (what
    :func:`merge_terms` adds)."""
    have = {w.lower() for w in re.findall(r"\w+", question)}
    extra = [
        w
        for w in re.findall(r"\w+", previous)
        if w.lower() not in have and w.lower() not in LUCENE_STOP_WORDS and w.lower() not in _QUESTION_WORDS
    ]
    return " ".join(dict.fromkeys(extra))


def merge_terms(question: str, previous: str) -> str:
    """Extractive rewrite: the follow-up plus the previous question's content words it lacks."""
    extra = added_terms(question, previous)
    return f"{question.strip()} {extra}".strip() if extra else question.strip()


def keeps_question(rewritten: str, question: str) -> bool:
    """Whether an LLM's rewrite kept the question's own content words (a rewrite that drops them
    answers another question)."""
    own = {w.lower() for w in re.findall(r"\w+", question)} - LUCENE_STOP_WORDS - _QUESTION_WORDS
    own -= {m.group(0).lower() for m in _ANAPHOR.finditer(question)}
    got = {w.lower() for w in re.findall(r"\w+", rewritten)}
    return not own or len(own & got) >= max(1, len(own) // 2)
