"""Every prompt template in one place: grounded answering in four styles, completion-style for base models,
the no-retrieval baseline, the follow-up rewrite, the relevance grader, the query rewrite and expansion.

Prompt styles (``PipelineConfig.prompt_style``), each from a pipeline users reproduce:

- ``numbered``: sources as ``[n] file p.3 — heading`` blocks, cite ``[n]`` (ragkit's default);
- ``plain``: the context as plain text, "answer only from the context, else say I don't know";
- ``context-i``: ``Context i:`` blocks in triple quotes, asking for a code example;
- ``xml``: ``<source id="…" url="…" relevance="0.87">…</source>`` ordered by relevance, citing sources as
  Markdown links.

A full override (``prompt_template``: system and user text with ``{sources}``, ``{question}``,
``{history}``) replaces the style's own wording; the sources block keeps the style's format.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Option, check_value
from ragkit.core.types import Hit, Message
from ragkit.llms.base import FALLBACK_ANSWER, documents_own_markers

SYSTEM = (
    "You are a careful research assistant. Answer the question using only the numbered sources "
    "provided. Cite the sources that support each statement with their numbers in square brackets, "
    "like [1] or [2][3]; bracketed numbers inside a source's text are that document's own references, "
    "not source numbers. If the sources do not contain the answer, reply exactly: "
    '"{fallback}" Do not use outside knowledge.'
)
USER = "Sources:\n\n{sources}\n\nQuestion: {question}"

PLAIN_SYSTEM = (
    "Answer the question using only the context below. If the answer is not in the context, say "
    '"{fallback}" and nothing else.'
)
PLAIN_USER = "Context:\n{sources}\n\nQuestion: {question}"

CONTEXT_I_SYSTEM = (
    "You are a programming assistant. Answer using only the contexts given. Show a code example when "
    'it helps, and name the context you used ("Context 2"). If the contexts do not answer the '
    'question, reply "{fallback}"'
)
CONTEXT_I_USER = "{sources}\n\nQuestion: {question}\nAnswer with a code example if it applies."

XML_SYSTEM = (
    "Answer the question from the sources only, most relevant first. Cite every source you use as a "
    "Markdown link to its url, like [title](url), or by its id in square brackets, like [2]. If the "
    'sources do not contain the answer, reply "{fallback}"'
)
XML_USER = "<sources>\n{sources}\n</sources>\n\nQuestion: {question}"

STYLE_TEXTS = {
    "numbered": (SYSTEM, USER),
    "plain": (PLAIN_SYSTEM, PLAIN_USER),
    "context-i": (CONTEXT_I_SYSTEM, CONTEXT_I_USER),
    "xml": (XML_SYSTEM, XML_USER),
}
#: styles whose answers are asked to cite their sources (an uncited answer is flagged only for these)
CITING_STYLES = frozenset({"numbered", "context-i", "xml"})

# Base (non-instruction-tuned) models continue text: show them a worked pattern and stop at the next turn.
COMPLETION = (
    "Answer the question using only the sources. Cite sources as [n]. If the sources do not contain "
    'the answer, write "{fallback}"\n\n'
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

GRADE = (
    "You are grading whether a retrieved document is relevant to a question. If the document contains "
    "keywords or meaning related to the question, grade it as relevant.\n\nDocument:\n{document}\n\n"
    "Question: {question}\n\nAnswer with one word: yes or no."
)
QUERY_REWRITE = (
    "The search for the question below found nothing relevant. Write one better search query for the "
    "same information (other words, the key terms spelled out). Reply with the query only.\n\n"
    "Question: {question}\nBetter query:"
)
EXPAND = (
    "Write {n} different search queries that would find documents answering the question, each from "
    'another angle. Reply with a JSON list of strings only, like ["…", "…"].\n\nQuestion: {question}'
)

#: placeholders a prompt template may use
TEMPLATE_FIELDS = ("sources", "question", "history")
PROMPT_STYLE_HELP = {
    "numbered": "[n] file p.3 blocks, cite [n]",
    "plain": "the context as plain text; answer only from it",
    "context-i": "'Context i:' blocks in triple quotes; asks for a code example",
    "xml": "<source id url relevance> blocks; cite sources as Markdown links",
}


def check_template(owner: str, template: Any) -> dict[str, str] | None:
    """A prompt template override: ``{"system": str, "user": str}`` (either may be omitted) whose
    placeholders are among ``{sources}``, ``{question}``, ``{history}``; the user part needs
    ``{sources}`` and ``{question}``."""
    import string

    if template is None:
        return None
    if not isinstance(template, dict) or not template:
        raise ConfigError(f"{owner}: prompt_template must be an object with 'system' and/or 'user' text")
    unknown = sorted(str(k) for k in template if k not in ("system", "user"))
    if unknown:
        raise ConfigError(f"{owner}: prompt_template has unknown parts {unknown}; use 'system' and 'user'")
    for part, text in template.items():
        check_value(owner, f"prompt_template.{part}", text, "str", None, None)
        try:
            names = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        except ValueError as e:
            raise ConfigError(
                f"{owner}: prompt_template.{part}: {e} (write a literal brace as {{{{ or }}}})"
            ) from None
        bad = sorted(n for n in names if n not in TEMPLATE_FIELDS)
        if bad:
            shown = ", ".join("{" + b + "}" for b in bad)
            allowed = ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS)
            raise ConfigError(
                f"{owner}: prompt_template.{part} has unknown placeholder(s) {shown}; use {allowed}"
            )
    user = template.get("user")
    if user is not None and not {"sources", "question"} <= {
        f for _, f, _, _ in string.Formatter().parse(user) if f
    }:
        raise ConfigError(f"{owner}: prompt_template.user must contain {{sources}} and {{question}}")
    return dict(template)


def _check_fallback(owner: str, value: Any) -> str:
    value = check_value(owner, "fallback_answer", value, "str", None, None)
    if not value.strip():
        raise ConfigError(f"{owner}: fallback_answer must not be empty")
    return value


#: the config fields of the prompt: its style or a whole template, and the "I don't know" sentence
OPTIONS = (
    Option("prompt_style", "choice", "numbered", choices=tuple(PROMPT_STYLE_HELP), field="prompt_style",
           added_later=True, advanced=True, label="Prompt style", help="how sources are laid out and cited"),
    Option("prompt_template", "any", None, field="prompt_template", added_later=True, widget="custom",
           validate=check_template, help="system and user text with {sources}, {question} and {history}"),
    Option("fallback_answer", "str", FALLBACK_ANSWER, field="fallback_answer", added_later=True,
           advanced=True, validate=_check_fallback, label="Fallback answer",
           help="what the pipeline says when it does not answer"),
)  # fmt: skip


@dataclass(frozen=True)
class PromptTemplates:
    """The wording of every prompt. ``system``/``user`` are the numbered style's; the pipeline builds the
    templates for a config's style, override and fallback with :func:`templates_for`."""

    system: str = SYSTEM
    user: str = USER
    completion: str = COMPLETION
    completion_stop: tuple[str, ...] = COMPLETION_STOP
    no_context_system: str = NO_CONTEXT_SYSTEM
    no_context_completion: str = NO_CONTEXT_COMPLETION
    rewrite: str = REWRITE
    fallback: str = FALLBACK_ANSWER
    style: str = "numbered"


DEFAULT_TEMPLATES = PromptTemplates()


def templates_for(
    style: str = "numbered", template: dict[str, str] | None = None, fallback: str = FALLBACK_ANSWER
) -> PromptTemplates:
    """The templates for a prompt style, with an optional override of the system and user text."""
    system, user = STYLE_TEXTS[style]
    if template:
        system, user = template.get("system", system), template.get("user", user)
    return PromptTemplates(system=system, user=user, fallback=fallback, style=style)


def source_url(hit: Hit) -> str:
    """Where a source can be opened: its URL (web documents), else ``file#page=N``."""
    url = hit.chunk.metadata.get("url") if hit.chunk.metadata else None
    return str(url) if url else f"{hit.chunk.source}#page={hit.chunk.page}"


def source_label(n: int, hit: Hit) -> str:
    """``[n] file.pdf p.3 — Methods > Retrieval``: how a source is introduced to the model and the user."""
    c = hit.chunk
    pages = c.pages
    where = f"p.{pages[0]}" if len(pages) <= 1 else f"pp.{pages[0]}-{pages[-1]}"
    heading = f" — {c.heading}" if c.heading else ""
    return f"[{n}] {c.source} {where}{heading}"


def _relevance(hit: Hit) -> float:
    from ragkit.pipeline.confidence import hit_strength

    return hit_strength(hit)[0]


def format_sources(hits: Sequence[Hit], style: str = "numbered") -> str:
    """The sources block in the style's format, numbered from 1 in rank order. A document's own
    bracketed numbers ("RFC 4180 [1]") are kept as text (a word joiner after the bracket), so neither the
    model nor the citation parser takes them for source numbers."""

    def text(h: Hit) -> str:
        return documents_own_markers(h.chunk.text.strip())

    if style == "plain":
        return "\n\n".join(text(h) for h in hits)
    if style == "context-i":
        return "\n\n".join(f"Context {i}:\n'''\n{text(h)}\n'''" for i, h in enumerate(hits, 1))
    if style == "xml":
        return "\n".join(
            f'<source id="{i}" url="{_attr(source_url(h))}" relevance="{_relevance(h):.2f}">\n'
            f"{text(h)}\n</source>"
            for i, h in enumerate(hits, 1)
        )
    return "\n\n".join(f"{source_label(i, h)}\n{text(h)}" for i, h in enumerate(hits, 1))


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def format_history(history: Sequence[Message]) -> str:
    return "".join(f"{m.role.capitalize()}: {m.content.strip()}\n" for m in history)


def grounded_messages(
    question: str,
    hits: Sequence[Hit],
    history: Sequence[Message] = (),
    t: PromptTemplates = DEFAULT_TEMPLATES,
) -> list[Message]:
    """Chat messages: system instructions, the recent turns, then the sources and the question."""
    values = {
        "sources": format_sources(hits, t.style),
        "question": question.strip(),
        "history": format_history(history).strip(),
    }
    system = _format(t.system, t, values)
    return [Message("system", system), *history, Message("user", _format(t.user, t, values))]


def _format(text: str, t: PromptTemplates, values: dict[str, str]) -> str:
    """``text`` with its placeholders filled (``{fallback}`` from the templates)."""
    import string

    used = {f for _, f, _, _ in string.Formatter().parse(text) if f}
    filled = {k: v for k, v in values.items() if k in used}
    if "fallback" in used:
        filled["fallback"] = t.fallback
    return text.format(**filled)


def grounded_completion(
    question: str,
    hits: Sequence[Hit],
    history: Sequence[Message] = (),
    t: PromptTemplates = DEFAULT_TEMPLATES,
) -> str:
    """The same content as one completion-style prompt, for base models (and seq2seq models)."""
    hist = format_history(history)
    return _format(
        t.completion,
        t,
        {
            "history": f"Conversation so far:\n{hist}\n" if hist else "",
            "sources": format_sources(hits, t.style),
            "question": question.strip(),
        },
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


# ------------------------------------------------------------------ recognising "I don't know"

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "´": "'", "`": "'"})
_IDK = ("i don't know", "i do not know", "i dont know")


def _normal(text: str) -> str:
    text = " ".join(text.translate(_APOSTROPHES).lower().split())
    return text.strip(" \"'“”.!").strip()


def is_fallback(text: str, fallbacks: Iterable[str] = (FALLBACK_ANSWER,)) -> bool:
    """Whether an answer is the "I don't know" fallback, whatever its apostrophe (’ or '), case, quotes
    or closing punctuation: it contains one of the fallbacks, or it is "I don't know" alone."""
    norm = _normal(text)
    if not norm:
        return False
    if any(_normal(f) and _normal(f) in norm for f in fallbacks):
        return True
    return any(norm == idk or re.fullmatch(re.escape(idk) + r"[ .,!]*", norm) for idk in _IDK)


# ------------------------------------------------------------------ judges (ragkit.evaluation.metrics.judge)

RAGAS_STATEMENTS = (
    "Break the answer below into short, self-contained factual statements: each one claim, with pronouns "
    "replaced by what they refer to. Leave out greetings and hedges. Reply with JSON only: "
    '{{"statements": ["…", "…"]}}\n\nQuestion: {question}\nAnswer: {answer}'
)
RAGAS_FAITHFULNESS = (
    "For each statement, decide whether it can be inferred from the context alone (1) or not (0). "
    "A statement the context contradicts, or does not mention, is 0. Reply with JSON only: "
    '{{"verdicts": [{{"statement": "…", "verdict": 1}}, …]}} with one verdict per statement, in order.'
    "\n\nContext:\n{context}\n\nStatements:\n{statements}"
)
RAGAS_QUESTIONS = (
    "Write {n} questions that the answer below would answer, and say whether the answer is noncommittal "
    '(evasive, vague, "I don\'t know"). Reply with JSON only: '
    '{{"questions": ["…"], "noncommittal": false}}\n\nAnswer: {answer}'
)
RAGAS_CONTEXT_PRECISION = (
    "Was the context useful in arriving at the reference answer to the question? Reply with JSON only: "
    '{{"reason": "…", "verdict": 1}} (1 = useful, 0 = not).\n\nQuestion: {question}\n'
    "Reference answer: {reference}\n\nContext:\n{context}"
)
RAGAS_CONTEXT_RECALL = (
    "Split the reference answer into its statements and decide for each whether it can be attributed to "
    'the context (1) or not (0). Reply with JSON only: {{"classifications": [{{"statement": "…", '
    '"attributed": 1}}, …]}}\n\nQuestion: {question}\nReference answer: {reference}\n\nContext:\n{context}'
)
RAGAS_CORRECTNESS = (
    "Compare the answer's statements with the reference answer's statements. TP: a statement of the answer "
    "that the reference supports; FP: a statement of the answer the reference does not support; FN: a "
    "statement of the reference missing from the answer. Reply with JSON only: "
    '{{"TP": ["…"], "FP": ["…"], "FN": ["…"]}}\n\nQuestion: {question}\n'
    "Answer statements:\n{statements}\n\nReference answer: {reference}"
)

# SimpleQA's grading rules, in our words: a predicted answer is CORRECT when it contains the gold target's
# full meaning without contradicting it (hedging is fine if the right answer is given); INCORRECT when it
# contradicts the target or hedges between candidates one of which is wrong; NOT_ATTEMPTED when it gives
# no answer ("I don't know", a refusal) or leaves out what the target states without contradicting it.
SIMPLEQA_GRADER = (
    "Grade a predicted answer against a gold target as CORRECT, INCORRECT or NOT_ATTEMPTED.\n"
    "- CORRECT: the prediction contains the whole meaning of the gold target and nothing that contradicts "
    "it. Spelling, capitalisation, word order and extra (non-contradicting) detail do not matter; a hedge "
    "is fine if the target is stated. A number is correct when it matches the target to the target's last "
    'significant figure (for a target of "120k": "124k" and "115k" are CORRECT, "100k" and "113k" are '
    "INCORRECT). A part of a name or date that the question already fixes may be left out.\n"
    '- INCORRECT: the prediction contradicts the gold target anywhere, even with hedging ("it is A or B" '
    "when the target is A is INCORRECT), or states a wrong value.\n"
    "- NOT_ATTEMPTED: the prediction does not give the target and does not contradict it: a refusal, "
    '"I don\'t know", or an answer missing the key fact.\n\n'
    "Question: {question}\nGold target: {target}\nPredicted answer: {predicted}\n\n"
    "Reply with one word: CORRECT, INCORRECT or NOT_ATTEMPTED."
)

#: the judge prompts, by metric: hashed and stamped on every run that uses them
JUDGE_PROMPTS = {
    "statements": RAGAS_STATEMENTS,
    "faithfulness": RAGAS_FAITHFULNESS,
    "answer_relevancy": RAGAS_QUESTIONS,
    "context_precision": RAGAS_CONTEXT_PRECISION,
    "context_recall": RAGAS_CONTEXT_RECALL,
    "answer_correctness": RAGAS_CORRECTNESS,
    "simpleqa": SIMPLEQA_GRADER,
}
