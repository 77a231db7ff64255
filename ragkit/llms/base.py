"""The ``LLM`` protocol: generate or stream an answer for a :class:`GenerationRequest`."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

from ragkit.core.types import Hit, Message


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
