"""Every prompt template in one place: grounded answering, completion-style for base models,
the no-retrieval baseline, and the follow-up rewrite. Override any of them via ``PromptTemplates``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragkit.types import Hit, Message

FALLBACK_ANSWER = "I don't know based on the provided context."

SYSTEM = (
    "You are a careful research assistant. Answer the question using only the numbered sources "
    "provided. Cite the sources that support each statement with their numbers in square brackets, "
    "like [1] or [2][3]. If the sources do not contain the answer, reply exactly: "
    f'"{FALLBACK_ANSWER}" Do not use outside knowledge.'
)

USER = "Sources:\n\n{sources}\n\nQuestion: {question}"

# Base (non-instruction-tuned) models continue text: show them a worked pattern and stop at the next turn.
COMPLETION = (
    "Answer the question using only the sources. Cite sources as [n]. If the sources do not contain "
    f'the answer, write "{FALLBACK_ANSWER}"\n\n'
    "{history}Sources:\n{sources}\n\nQuestion: {question}\nAnswer:"
)
COMPLETION_STOP = ("\nQuestion:", "\nSources:", "\n\n\n")

NO_CONTEXT_SYSTEM = "You are a helpful research assistant. Answer the question concisely."
NO_CONTEXT_COMPLETION = "{history}Question: {question}\nAnswer:"

REWRITE = (
    "Rewrite the follow-up question as one standalone question that can be understood without the "
    "conversation. Reply with the question only.\n\nConversation:\n{history}\n\n"
    "Follow-up question: {question}\nStandalone question:"
)


@dataclass(frozen=True)
class PromptTemplates:
    system: str = SYSTEM
    user: str = USER
    completion: str = COMPLETION
    completion_stop: tuple[str, ...] = COMPLETION_STOP
    no_context_system: str = NO_CONTEXT_SYSTEM
    no_context_completion: str = NO_CONTEXT_COMPLETION
    rewrite: str = REWRITE
    fallback: str = FALLBACK_ANSWER


DEFAULT_TEMPLATES = PromptTemplates()


def source_label(n: int, hit: Hit) -> str:
    """``[n] file.pdf p.3 — Methods > Retrieval``: how a source is introduced to the model and the user."""
    c = hit.chunk
    pages = c.pages
    where = f"p.{pages[0]}" if len(pages) <= 1 else f"pp.{pages[0]}-{pages[-1]}"
    heading = f" — {c.heading}" if c.heading else ""
    return f"[{n}] {c.source} {where}{heading}"


def format_sources(hits: Sequence[Hit]) -> str:
    """The numbered source block: each chunk under its label, numbered from 1 in rank order."""
    return "\n\n".join(f"{source_label(i, h)}\n{h.chunk.text.strip()}" for i, h in enumerate(hits, 1))


def format_history(history: Sequence[Message]) -> str:
    return "".join(f"{m.role.capitalize()}: {m.content.strip()}\n" for m in history)


def grounded_messages(
    question: str,
    hits: Sequence[Hit],
    history: Sequence[Message] = (),
    t: PromptTemplates = DEFAULT_TEMPLATES,
) -> list[Message]:
    """Chat messages: system instructions, the recent turns, then the sources and the question."""
    return [
        Message("system", t.system),
        *history,
        Message("user", t.user.format(sources=format_sources(hits), question=question.strip())),
    ]


def grounded_completion(
    question: str,
    hits: Sequence[Hit],
    history: Sequence[Message] = (),
    t: PromptTemplates = DEFAULT_TEMPLATES,
) -> str:
    """The same content as one completion-style prompt, for base models."""
    hist = format_history(history)
    return t.completion.format(
        history=f"Conversation so far:\n{hist}\n" if hist else "",
        sources=format_sources(hits),
        question=question.strip(),
    )


def no_context_messages(
    question: str, history: Sequence[Message] = (), t: PromptTemplates = DEFAULT_TEMPLATES
) -> list[Message]:
    return [Message("system", t.no_context_system), *history, Message("user", question.strip())]


def no_context_completion(
    question: str, history: Sequence[Message] = (), t: PromptTemplates = DEFAULT_TEMPLATES
) -> str:
    return t.no_context_completion.format(history=format_history(history), question=question.strip())


def rewrite_prompt(question: str, history: Sequence[Message], t: PromptTemplates = DEFAULT_TEMPLATES) -> str:
    return t.rewrite.format(history=format_history(history).strip(), question=question.strip())
