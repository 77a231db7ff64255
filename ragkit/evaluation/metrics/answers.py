"""Answer metrics against gold answers (pure): SQuAD-normalised exact match, token F1, contains-gold."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)
_CITATION = re.compile(r"\[\s*\d+(?:\s*[,;–-]\s*\d+)*\s*\]")


def normalize_answer(text: str) -> str:
    """SQuAD's normalisation: lower case, no punctuation, no articles, single spaces (citations dropped)."""
    text = _CITATION.sub(" ", text.lower())
    text = "".join(ch for ch in text if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Iterable[str]) -> float:
    p = normalize_answer(prediction)
    return float(any(p == normalize_answer(g) for g in golds))


def token_f1(prediction: str, golds: Iterable[str]) -> float:
    """Best token-overlap F1 against any gold answer (SQuAD's definition)."""
    pred = normalize_answer(prediction).split()
    best = 0.0
    for g in golds:
        gold = normalize_answer(g).split()
        common = Counter(pred) & Counter(gold)
        same = sum(common.values())
        if not pred or not gold:
            best = max(best, float(pred == gold))
            continue
        if same:
            precision, recall = same / len(pred), same / len(gold)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


def contains_gold(prediction: str, golds: Iterable[str]) -> float:
    """1 if any normalised gold answer occurs in the normalised prediction (on word boundaries)."""
    p = f" {normalize_answer(prediction)} "
    return float(any(normalize_answer(g) and f" {normalize_answer(g)} " in p for g in golds))


def char_error_rate(got: str, want: str) -> float:
    """Character error rate: the edit distance from ``got`` to ``want`` over ``want``'s length, whitespace
    runs counted as one space (how OCR output is scored against a reference transcription)."""
    a, b = " ".join(got.split()), " ".join(want.split())
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1] / max(1, len(b))
