"""The reviewer's decisions applied to a generated set: keep or reject each question, edit its text or
answer, move its evidence to another quote of the same page. Pure: the UI and tests call it alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.evidence import locate_in_text
from ragkit.evaluation.questiongen.records import GeneratedQuestion, GenerationReport

BY_REVIEWER = "rejected by the reviewer"


@dataclass(frozen=True)
class Decision:
    """What the reviewer set for one question (``evidence`` is the quote; one per passage)."""

    keep: bool
    question: str
    answer: str
    evidence: tuple[str, ...]


def _one_line(quotes: Sequence[str]) -> tuple[str, ...]:
    """Quotes as a one-line-per-quote text box shows them (a quote across a PDF's line ends is one line)."""
    return tuple(" ".join(x.split()) for x in quotes)


def _pages(documents: Sequence[Any]) -> dict[tuple[str, int], str]:
    return {(d.source, p.number): p.text for d in documents for p in d.pages}


def apply(q: GeneratedQuestion, d: Decision, pages: Mapping[tuple[str, int], str]) -> GeneratedQuestion:
    """One question with the reviewer's decision; a moved quote is located on the passage's page."""
    if not d.question.strip():
        raise RagkitError(f"question {q.qid}: the question is empty")
    out = q
    if (d.question.strip(), d.answer.strip()) != (q.question, q.answer):
        out = replace(out, question=d.question.strip(), answer=d.answer.strip(), edited=True)
    if _one_line(d.evidence) != _one_line(q.evidence_text) and not q.absent:
        if len(d.evidence) != len(q.evidence):
            raise RagkitError(f"question {q.qid}: give one evidence quote per passage ({len(q.evidence)})")
        evidence, quotes = [], []
        for quote, (source, page, _s, _e) in zip(d.evidence, q.passages, strict=False):
            text = pages.get((source, page), "")
            found = locate_in_text(quote, text)
            if found is None:
                raise RagkitError(
                    f"question {q.qid}: the evidence {quote[:60]!r} is not on page {page} of {source}"
                )
            evidence.append((source, ((page, *found),)))
            quotes.append(text[found[0] : found[1]])
        out = replace(out, evidence=tuple(evidence), evidence_text=tuple(quotes), edited=True)
    if d.keep:
        return replace(out, status="accepted", reason="")
    return out if out.status == "rejected" else out.reject(BY_REVIEWER)


def apply_review(
    report: GenerationReport, decisions: Mapping[int, Decision], documents: Sequence[Any]
) -> GenerationReport:
    """A copy of ``report`` with each decision (by the question's position) applied; questions without
    one stay as they are."""
    pages = _pages(documents)
    questions = [
        apply(q, decisions[i], pages) if i in decisions else q for i, q in enumerate(report.questions)
    ]
    return replace(report, questions=questions)


def marked_passages(q: GeneratedQuestion, documents: Sequence[Any]) -> list[list[tuple[str, bool]]]:
    """Each passage the question was written from as ``(text, is_evidence)`` pieces, for display."""
    pages = _pages(documents)
    out = []
    for source, page, start, end in q.passages:
        text = pages.get((source, page), "")
        marks = sorted(
            (max(s, start), min(e, end))
            for src, spans in q.evidence
            for p, s, e in spans
            if src == source and p == page and s < end and e > start
        )
        pieces, pos = [], start
        for s, e in marks:
            if s > pos:
                pieces.append((text[pos:s], False))
            pieces.append((text[max(s, pos) : e], True))
            pos = max(pos, e)
        if pos < end:
            pieces.append((text[pos:end], False))
        out.append(pieces)
    return out
