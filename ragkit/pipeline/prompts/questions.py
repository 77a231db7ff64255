"""Prompts that write evaluation questions from passages, one per question type; each asks for one JSON
object so the reply can be parsed strictly (see :mod:`ragkit.evaluation.questiongen.llm`)."""

from __future__ import annotations

import hashlib

_RULES = (
    "The question must make sense to someone who has never seen the passage: never write 'the passage', "
    "'the text', 'this document' or 'according to'; name the subject instead. Do not copy a sentence of "
    "the passage into the question; ask in your own words."
)

QUESTION_PROMPTS = {
    "factual": (
        "Write one factual question that the passage below answers with a short fact (a name, number, "
        "date or term).\n" + _RULES + "\n\nPassage ({source}):\n{passage}\n\n"
        'Reply with one JSON object and nothing else: {{"question": "...", "answer": "<the short '
        'answer>", "evidence": "<the sentence of the passage that holds the answer, copied exactly>"}}'
    ),
    "why": (
        "Write one why- or how-question that the passage below answers with a reason or a mechanism.\n"
        + _RULES
        + "\n\nPassage ({source}):\n{passage}\n\n"
        'Reply with one JSON object and nothing else: {{"question": "...", "answer": "<one sentence>", '
        '"evidence": "<the sentence of the passage that holds the answer, copied exactly>"}}'
    ),
    "two_passage": (
        "Write one question that needs BOTH passages below to answer: a comparison of the two, or a "
        "question whose answer takes one fact from each.\n" + _RULES + "\n\n"
        "Passage 1 ({source}):\n{passage}\n\nPassage 2 ({source2}):\n{passage2}\n\n"
        'Reply with one JSON object and nothing else: {{"question": "...", "answer": "<short>", '
        '"evidence_1": "<the sentence of passage 1 it needs, copied exactly>", "evidence_2": "<the '
        'sentence of passage 2 it needs, copied exactly>"}}'
    ),
    "unanswerable": (
        "Write one question on the same topic as the passage below that the passage does NOT answer: a "
        "plausible detail a reader would ask about that is not stated anywhere in it.\n" + _RULES + "\n\n"
        "Passage ({source}):\n{passage}\n\n"
        'Reply with one JSON object and nothing else: {{"question": "..."}}'
    ),
}


#: asked once per "unanswerable" question: do the collection's closest passages answer it after all?
ABSENCE_PROMPT = (
    "Does any of the passages below state the answer to the question? Judge only from the passages.\n\n"
    "Question: {question}\n\n{passages}\n\n"
    'Reply with one JSON object and nothing else: {{"answered": true or false, "evidence": "<the '
    'sentence that answers it, copied exactly, or an empty string>"}}'
)


def absence_prompt(question: str, passages: list[tuple[str, int, str]]) -> str:
    """The check of one unanswerable question against ``(source, page, text)`` passages."""
    listed = "\n\n".join(f"Passage [{i}] ({src}, page {page}):\n{text}" for i, (src, page, text) in
                          enumerate(passages, 1))  # fmt: skip
    return ABSENCE_PROMPT.format(question=question, passages=listed)


def question_prompt_hash(qtype: str) -> str:
    """The cache and the question file record which prompt wrote a question."""
    return hashlib.sha256(QUESTION_PROMPTS[qtype].encode()).hexdigest()[:12]


def question_prompt(qtype: str, source: str, passage: str, source2: str = "", passage2: str = "") -> str:
    return QUESTION_PROMPTS[qtype].format(source=source, passage=passage, source2=source2, passage2=passage2)
