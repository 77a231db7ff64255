"""What the reader knows about the evidence it chose beyond its score, for the answer confidence
(:mod:`ragkit.pipeline.answer_confidence`): whether the qualifiers the question sets (a year, a number, a
version, a name) are in the chosen text itself and not contradicted there, how far the choice stands
above the next candidate, and whether the retrieved passages agree on the document. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ragkit.llms.extractive.question import QuestionSpec

_YEAR = re.compile(r"\b(?:1[5-9]|20)\d\d\b")
_NUMBER = re.compile(r"\d[\d,.]*")


def qualifiers(spec: QuestionSpec, text: str) -> dict[str, float]:
    """``literal_share``: the share of the question's own numbers (a year, a version, a code) that the
    chosen text holds (1 when it asks none); ``year_conflict``: the question names a year the text does
    not hold while the text names another ("the 2008 rate" answered with 2007's)."""
    asked = {x.rstrip(".,") for x in spec.literals if x.rstrip(".,")}
    found = {x.rstrip(".,") for x in _NUMBER.findall(text)}
    share = sum(a in found for a in asked) / len(asked) if asked else 1.0
    years_q = set(_YEAR.findall(spec.text))
    years_t = set(_YEAR.findall(text))
    conflict = bool(years_q) and not (years_q & years_t) and bool(years_t)
    return {"literal_share": round(share, 4), "year_conflict": float(conflict)}


def names_in_text(spec: QuestionSpec, text: str, terms_of: Callable[[str], set[str]]) -> float:
    """The share of the question's names found in the chosen text itself (not only around it in its
    document: a name named elsewhere places the topic, not the answer); 1 when it names none."""
    if not spec.names:
        return 1.0
    said = terms_of(text)
    return round(sum(n in said for n in spec.names) / len(spec.names), 4)


def rarest_found(spec: QuestionSpec, weight: dict[str, float], found: set[str]) -> float:
    """Whether the question's most specific term (its rarest among the candidates, a name counting more;
    a follow-up's borrowed words aside) is in the chosen evidence: a near-topic question shares the topic
    with its nearest sentence, and misses the one word that makes it another question."""
    own = [t for t in spec.terms if t not in spec.context]
    if not own:
        return 1.0
    return float(max(own, key=lambda t: (weight.get(t, 0.0), t)) in found)


def margin(chosen: Sequence[Any], scored: Sequence[Any]) -> float:
    """How far the chosen evidence stands above the best candidate not chosen, as a share of its score."""
    best = max(s.score for s in chosen)
    rest = next((s.score for s in scored if all(s is not c for c in chosen)), 0.0)
    return round((best - rest) / best, 4) if best > 0 else 0.0


def same_document(unit_sources: Sequence[int], hits: Sequence[Any]) -> float:
    """The share of the retrieved passages from the document of the chosen one (they agree on where the
    answer is)."""
    if not hits or not unit_sources:
        return 0.0
    doc = hits[unit_sources[0] - 1].chunk.doc_id
    return round(sum(h.chunk.doc_id == doc for h in hits) / len(hits), 4)
