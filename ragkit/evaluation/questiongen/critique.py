"""The critique step: every generated question is accepted or rejected with a reason the user sees.

- **not standalone**: it points at a text the asker never saw ("in this passage", "according to the text");
- **copies the evidence**: 60 % of its word trigrams, or a run of eight words, appear verbatim in the
  evidence: a question like that flatters BM25 and says little about a retriever;
- **answer not supported**: the claim "question + gold answer" is not supported by the evidence text,
  by the same offline decision the citation check uses (semantic, lexical and key-term signals);
- **near-duplicate**: its embedding's cosine with an accepted question is at least ``DUPLICATE_COSINE``
  (token overlap when no embedder is given).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ragkit.evaluation.questiongen.records import GeneratedQuestion

NOT_STANDALONE = "not standalone"
COPIES = "copies the evidence"
UNSUPPORTED = "answer not supported by the evidence"
DUPLICATE = "near-duplicate"
REASONS = (NOT_STANDALONE, COPIES, UNSUPPORTED, DUPLICATE)

DUPLICATE_COSINE = 0.9
DUPLICATE_JACCARD = 0.75
COPY_TRIGRAM_SHARE = 0.6
COPY_RUN = 8

_DEICTIC = re.compile(
    r"\b(?:(?:this|the above|the given|the following|the provided|that)\s+"
    r"(?:passage|text|excerpt|document|context|paragraph|section|article|snippet|extract)s?|"
    r"according to the (?:text|passage|document|context|author)|mentioned (?:above|here|earlier)|"
    r"in the (?:passage|excerpt|snippet)|the authors? of (?:this|the) (?:text|passage))\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")


def standalone(question: str) -> bool:
    return _DEICTIC.search(question) is None


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def copies(question: str, evidence: str) -> bool:
    """``COPY_TRIGRAM_SHARE`` of the question's word trigrams, or ``COPY_RUN`` words in a row, occur in
    the evidence."""
    q, e = _words(question), _words(evidence)
    grams = [tuple(q[i : i + 3]) for i in range(len(q) - 2)]
    if not grams:
        return False
    have = {tuple(e[i : i + 3]) for i in range(len(e) - 2)}
    if sum(g in have for g in grams) / len(grams) >= COPY_TRIGRAM_SHARE:
        return True
    if len(q) < COPY_RUN:
        return False
    runs = {tuple(e[i : i + COPY_RUN]) for i in range(len(e) - COPY_RUN + 1)}
    return any(tuple(q[i : i + COPY_RUN]) in runs for i in range(len(q) - COPY_RUN + 1))


def supported(question: str, answer: str, evidence: str, embedder: Any = None, analyzer: Any = None) -> bool:
    """The citation check's offline decision on the claim "question answer" against the evidence; without
    an embedder, the lexical and key-term signals alone."""
    from ragkit.evaluation.metrics.citations import SEMANTIC_MIN, lexical_scores, pair_scores, supports
    from ragkit.retrievers.analyzer import Analyzer

    claim, analyzer = f"{question.strip()} {answer.strip()}", analyzer or Analyzer()
    if embedder is not None:
        return supports(*pair_scores(claim, evidence, embedder, analyzer))
    return supports(SEMANTIC_MIN, *lexical_scores(claim, evidence, analyzer))


def _near(a: str, b: str) -> float:
    x, y = set(_words(a)), set(_words(b))
    return len(x & y) / (len(x | y) or 1)


def critique(questions: Sequence[GeneratedQuestion], embedder: Any = None) -> list[GeneratedQuestion]:
    """Each question accepted or rejected with the first reason that applies (in ``REASONS`` order);
    a question already rejected keeps its reason, and duplicates are judged against accepted ones."""
    from ragkit.retrievers.analyzer import Analyzer

    analyzer = Analyzer()  # one stemmer for the whole set
    out: list[GeneratedQuestion] = []
    for q in questions:
        if q.status != "accepted":
            out.append(q)
            continue
        evidence = "\n".join(q.evidence_text)
        if not standalone(q.question):
            q = q.reject(NOT_STANDALONE)
        elif not q.absent and copies(q.question, evidence):
            q = q.reject(COPIES)
        elif not q.absent and not supported(q.question, q.answer, evidence, embedder, analyzer):
            q = q.reject(UNSUPPORTED)
        out.append(q)
    return _mark_duplicates(out, embedder)


def _mark_duplicates(questions: list[GeneratedQuestion], embedder: Any) -> list[GeneratedQuestion]:
    idx = [i for i, q in enumerate(questions) if q.status == "accepted"]
    if len(idx) < 2:
        return questions
    texts = [questions[i].question for i in idx]
    vectors = np.asarray(embedder.embed(texts)) if embedder is not None else None
    kept: list[int] = []
    for j, i in enumerate(idx):
        if vectors is not None:
            dup = any(float(vectors[j] @ vectors[k]) >= DUPLICATE_COSINE for k in kept)
        else:
            dup = any(_near(texts[j], texts[k]) >= DUPLICATE_JACCARD for k in kept)
        if dup:
            questions[i] = questions[i].reject(DUPLICATE)
        else:
            kept.append(j)
    return questions
