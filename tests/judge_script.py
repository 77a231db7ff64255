"""A scripted judge for the loopback servers: it reads ragkit's judge prompts and answers them by a
transparent word-overlap rule, so a test knows every verdict in advance (and can ask for malformed
replies). It stands in for the judge model only; the SDKs, the wire protocol and ragkit's parsing are
the real ones."""

from __future__ import annotations

import json
import re
from typing import Any

STOP = {"the", "a", "an", "of", "is", "in", "to", "and", "by", "it", "its", "was", "what", "which", "has"}


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP and len(w) > 2}


def held(statement: str, text: str) -> bool:
    """A statement is supported when every content word of it occurs in the text."""
    return words(statement) <= words(text)


def split_statements(answer: str) -> list[str]:
    answer = re.sub(r"\[\d+\]", "", answer)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", answer) if len(words(s)) >= 1]


def section(prompt: str, start: str, end: str | None = None) -> str:
    i = prompt.index(start) + len(start)
    j = prompt.index(end, i) if end else len(prompt)
    return prompt[i:j].strip()


def prompt_of(body: dict[str, Any]) -> str:
    msgs = body.get("messages") or []
    return msgs[-1]["content"] if msgs else body.get("prompt", "")


def reply(prompt: str) -> str:
    """The judge's reply to one of ragkit's judge prompts (see ragkit/prompts.py)."""
    if prompt.startswith("Break the answer below"):
        return json.dumps({"statements": split_statements(section(prompt, "\nAnswer: "))})
    if prompt.startswith("For each statement"):
        context = section(prompt, "Context:\n", "\n\nStatements:\n")
        listing = section(prompt, "\n\nStatements:\n").splitlines()
        statements = [re.sub(r"^\d+\.\s*", "", s) for s in listing if s.strip()]
        return (
            "Here you go:\n```json\n"
            + json.dumps(
                {"verdicts": [{"statement": s, "verdict": int(held(s, context))} for s in statements]}
            )
            + "\n```"
        )
    if prompt.startswith("Write "):
        answer = section(prompt, "\n\nAnswer: ")
        return json.dumps({"questions": [f"{answer}?"], "noncommittal": "don't know" in answer.lower()})
    if prompt.startswith("Was the context useful"):
        reference = section(prompt, "Reference answer: ", "\n\nContext:\n")
        context = section(prompt, "\n\nContext:\n")
        return json.dumps({"reason": "-", "verdict": int(held(reference, context))})
    if prompt.startswith("Split the reference answer"):
        reference = section(prompt, "Reference answer: ", "\n\nContext:\n")
        context = section(prompt, "\n\nContext:\n")
        return json.dumps(
            {
                "classifications": [
                    {"statement": s, "attributed": int(held(s, context))} for s in split_statements(reference)
                ]
            }
        )
    if prompt.startswith("Compare the answer's statements"):
        listing = section(prompt, "Answer statements:\n", "\n\nReference answer: ").splitlines()
        statements = [re.sub(r"^\d+\.\s*", "", s) for s in listing if s.strip() and s != "(none)"]
        reference = section(prompt, "\n\nReference answer: ")
        tp = [s for s in statements if held(s, reference)]
        fp = [s for s in statements if not held(s, reference)]
        fn = [r for r in split_statements(reference) if not any(held(r, s) for s in statements)]
        return json.dumps({"TP": tp, "FP": fp, "FN": fn})
    if prompt.startswith("Grade a predicted answer"):
        target = section(prompt, "Gold target: ", "\nPredicted answer: ").lower()
        predicted = section(prompt, "\nPredicted answer: ", "\n\nReply with").lower()
        if "don't know" in predicted:
            return "NOT_ATTEMPTED"
        return "CORRECT" if target in predicted else "INCORRECT"
    if prompt.startswith("Does the source support"):
        source = section(prompt, "Source:\n", "\n\nSentence: ")
        return "yes" if held(section(prompt, "\n\nSentence: "), source) else "no"
    return "I am not sure what you want."


def responder(malformed_every: int = 0):
    """A server responder; every ``malformed_every``-th reply is prose instead of the asked format."""
    count = {"n": 0}

    def respond(body: dict[str, Any]) -> str:
        count["n"] += 1
        if malformed_every and count["n"] % malformed_every == 0:
            return "Sure! The answer looks great to me."
        return reply(prompt_of(body))

    return respond
