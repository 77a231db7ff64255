"""The ``LLM`` protocol: generate or stream an answer for a :class:`GenerationRequest`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from ragkit.core.types import Hit, Message

#: what a backend says when the sources do not hold the answer (a config's ``fallback_answer`` overrides)
FALLBACK_ANSWER = "I don't know based on the provided context."


@dataclass
class LLMContext:
    """What building a backend may need; each backend's ``from_context`` takes the parts it uses."""

    model: str | None = None
    api_key: str | None = None  # held in memory only
    host: str | None = None
    base_url: str | None = None
    embedder: Any = None  # the extractive reader's sentence embeddings
    store: Any = None  # the index, to complete sentences cut by a chunk's edge
    fallback: str | None = None


@dataclass
class GenerationRequest:
    """Everything a backend may use: chat ``messages`` (chat models), the same as one completion-style
    ``prompt`` (base models), and the raw ``question`` and ``sources`` (the extractive backend)."""

    messages: list[Message]
    prompt: str
    question: str
    sources: Sequence[Hit] = ()
    temperature: float = 0.0
    max_tokens: int = 512
    stop: tuple[str, ...] = ()
    #: the words a follow-up's rewrite added from the conversation (``question`` ends with them): what
    #: "it" refers to, not what is asked about it
    follow_up: str = ""
    #: the question a follow-up continues ("And in 2019?" asks what it asked, about another subject)
    previous: str = ""


@dataclass
class Generation:
    text: str
    model: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    meta: dict = field(default_factory=dict)


@runtime_checkable
class LLM(Protocol):
    """A text generator; ``stream`` yields text pieces as they arrive."""

    name: ClassVar[str]
    model: str

    def generate(self, request: GenerationRequest) -> Generation: ...

    def stream(self, request: GenerationRequest) -> Iterator[str]: ...


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every given secret (and any Groq-style key) replaced by ``***``."""
    import re

    for s in secrets:
        if s:
            text = text.replace(s, "***")
    return re.sub(r"gsk_[A-Za-z0-9]{8,}", "gsk_***", text)


def cut_at_stop(text: str, stop: Sequence[str]) -> str:
    """Truncate ``text`` at the first stop sequence (base models keep writing past the answer)."""
    cut = len(text)
    for s in stop:
        i = text.find(s)
        if i != -1:
            cut = min(cut, i)
    return text[:cut]


#: a word joiner: invisible, and it keeps a document's "[1]" from being read as a citation
WORD_JOINER = "\u2060"
_DOC_MARKER = re.compile(r"\[(?=\s*\d)")


def documents_own_markers(text: str) -> str:
    """``text`` with its own bracketed numbers ("RFC 4180 [1]", "InfoXLM [4]") kept as text: a word joiner
    after the bracket, so they look the same but are never parsed, linked or renumbered as ragkit's
    citations (in what a backend reads, in quotes, on screen)."""
    return _DOC_MARKER.sub("[" + WORD_JOINER, text) if "[" in text else text
