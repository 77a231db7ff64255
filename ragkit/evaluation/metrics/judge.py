"""Answer evaluation with an LLM judge, defined as RAGAS defines its metrics, and SimpleQA's grades.

RAGAS-style (every score in [0, 1]; ``None`` when a judge reply did not parse — counted, never a zero):

- **faithfulness** = supported / total statements of the answer: the judge splits the answer into
  statements, then gives each a verdict against the retrieved context.
- **answer_relevancy** = mean cosine (the pipeline's embedding model) between the question and ``n``
  questions the judge writes from the answer; 0 when the judge calls the answer noncommittal.
- **context_precision** = Σ_k precision@k · v_k / Σ_k v_k over the ranked contexts, v_k = the judge's
  verdict that context k was useful to reach the reference (gold) answer.
- **context_recall** = statements of the reference attributed to the contexts / statements of the reference.
- **answer_correctness** = 0.75 · F1 + 0.25 · cosine(answer, reference), F1 = TP / (TP + (FP + FN) / 2)
  over the judge's classification of the answer's statements against the reference.

SimpleQA: each answer graded CORRECT / INCORRECT / NOT_ATTEMPTED (rules in ``prompts.SIMPLEQA_GRADER``);
:func:`simpleqa_summary` gives accuracy, attempted rate, accuracy given attempted, and their F-score.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ragkit.core.hashing import config_key
from ragkit.core.optional import require
from ragkit.core.types import Message
from ragkit.llms.base import GenerationRequest
from ragkit.pipeline.prompts import JUDGE_PROMPTS

RAGAS_METRICS = (
    "faithfulness",
    "answer_relevancy",
    "context_precision",
    "context_recall",
    "answer_correctness",
)
#: metrics that need a gold (reference) answer
NEEDS_REFERENCE = frozenset({"context_precision", "context_recall", "answer_correctness", "simpleqa"})
ALL_METRICS = (*RAGAS_METRICS, "simpleqa")
#: judge calls per answer and metric (None: one per retrieved chunk), for cost estimates before a run
JUDGE_CALLS: dict[str, int | None] = {
    "faithfulness": 2,  # the answer's statements, then a verdict on each
    "answer_relevancy": 1,
    "context_precision": None,
    "context_recall": 1,
    "answer_correctness": 2,  # statements, then their classification against the reference
    "simpleqa": 1,
}
SIMPLEQA_GRADES = ("CORRECT", "INCORRECT", "NOT_ATTEMPTED")


@dataclass
class Score:
    """One metric for one answer: the value, whether every judge reply parsed, the judge's raw detail."""

    value: float | None
    parsed: bool = True
    detail: dict[str, Any] = field(default_factory=dict)


def first_json(text: str) -> Any:
    """The first JSON object or list in a reply (prose and code fences around it are ignored)."""
    text = re.sub(r"```(?:json)?", "", text)
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        while start != -1:
            depth = 0
            for i in range(start, len(text)):
                if text[i] == opener:
                    depth += 1
                elif text[i] == closer:
                    depth -= 1
                    if depth == 0:
                        try:
                            return json.loads(text[start : i + 1])
                        except ValueError:
                            break
            start = text.find(opener, start + 1)
    return None


def _verdict(x: Any) -> int | None:
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int | float) and x in (0, 1):
        return int(x)
    if isinstance(x, str) and x.strip().lower() in ("1", "0", "yes", "no", "true", "false"):
        return int(x.strip().lower() in ("1", "yes", "true"))
    return None


def context_precision_score(verdicts: Sequence[int]) -> float:
    """RAGAS context precision from ranked usefulness verdicts (0 when none was useful)."""
    hits, total = 0, 0.0
    for k, v in enumerate(verdicts, start=1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def f1_from_counts(tp: int, fp: int, fn: int) -> float:
    """RAGAS's factual F1: TP / (TP + (FP + FN) / 2); 0 with no statements at all."""
    denom = tp + 0.5 * (fp + fn)
    return tp / denom if denom else 0.0


class AnswerJudge:
    """The RAGAS-style metrics and SimpleQA grades with one judge LLM (Groq, Ollama, OpenAI, local).

    Args:
        llm: the judge backend.
        embedder: for answer relevancy and the semantic half of answer correctness.
        n_questions: questions generated per answer for answer relevancy (RAGAS uses 3).
    """

    def __init__(
        self, llm: Any, embedder: Any = None, n_questions: int = 3, max_context_chars: int = 8000
    ) -> None:
        self.llm = llm
        self.embedder = embedder
        self.n_questions = n_questions
        self.max_context_chars = max_context_chars

    @property
    def model_id(self) -> str:
        return f"{getattr(self.llm, 'name', '?')}:{getattr(self.llm, 'model', '?')}"

    @staticmethod
    def prompts_hash() -> str:
        return config_key(JUDGE_PROMPTS)[:16]

    def _ask(self, prompt: str, max_tokens: int = 512) -> str:
        req = GenerationRequest([Message("user", prompt)], prompt, "", (), 0.0, max_tokens, ())
        return self.llm.generate(req).text

    def _context(self, contexts: Sequence[str]) -> str:
        return "\n\n".join(f"[{i}] {c.strip()}" for i, c in enumerate(contexts, 1))[: self.max_context_chars]

    def statements(self, question: str, answer: str) -> list[str] | None:
        obj = first_json(self._ask(JUDGE_PROMPTS["statements"].format(question=question, answer=answer)))
        items = obj.get("statements") if isinstance(obj, dict) else obj
        if isinstance(items, list) and all(isinstance(s, str) for s in items):
            return [s.strip() for s in items if s.strip()]
        return None

    # -------------------------------------------------------------- the metrics

    def faithfulness(self, question: str, answer: str, contexts: Sequence[str]) -> Score:
        statements = self.statements(question, answer)
        if statements is None:
            return Score(None, False, {"step": "statements"})
        if not statements:
            return Score(None, True, {"statements": []})  # nothing claimed: undefined, not perfect
        listing = "\n".join(f"{i}. {s}" for i, s in enumerate(statements, 1))
        reply = self._ask(
            JUDGE_PROMPTS["faithfulness"].format(context=self._context(contexts), statements=listing)
        )
        obj = first_json(reply)
        rows = obj.get("verdicts") if isinstance(obj, dict) else obj
        verdicts = [_verdict(r.get("verdict")) if isinstance(r, dict) else _verdict(r) for r in rows or []]
        if len(verdicts) != len(statements) or any(v is None for v in verdicts):
            return Score(None, False, {"step": "verdicts", "reply": reply[:300]})
        return Score(sum(verdicts) / len(statements), True, {"statements": statements, "verdicts": verdicts})  # type: ignore[arg-type]

    def answer_relevancy(self, question: str, answer: str) -> Score:
        reply = self._ask(JUDGE_PROMPTS["answer_relevancy"].format(n=self.n_questions, answer=answer))
        obj = first_json(reply)
        if not isinstance(obj, dict) or not isinstance(obj.get("questions"), list) or not obj["questions"]:
            return Score(None, False, {"reply": reply[:300]})
        generated = [str(q) for q in obj["questions"] if str(q).strip()]
        if _verdict(obj.get("noncommittal", False)) == 1:
            return Score(0.0, True, {"questions": generated, "noncommittal": True})
        q = self.embedder.embed_query(question)
        sims = self.embedder.embed(generated) @ q
        return Score(
            float(np.mean(sims)),
            True,
            {"questions": generated, "cosines": [round(float(s), 4) for s in sims]},
        )

    def context_precision(self, question: str, contexts: Sequence[str], reference: str) -> Score:
        verdicts: list[int] = []
        for c in contexts:
            reply = self._ask(
                JUDGE_PROMPTS["context_precision"].format(
                    question=question, reference=reference, context=c[:4000]
                ),
                max_tokens=200,
            )
            obj = first_json(reply)
            v = _verdict(obj.get("verdict")) if isinstance(obj, dict) else None
            if v is None:
                return Score(None, False, {"reply": reply[:300], "at": len(verdicts) + 1})
            verdicts.append(v)
        return Score(context_precision_score(verdicts), True, {"verdicts": verdicts})

    def context_recall(self, question: str, contexts: Sequence[str], reference: str) -> Score:
        reply = self._ask(
            JUDGE_PROMPTS["context_recall"].format(
                question=question, reference=reference, context=self._context(contexts)
            )
        )
        obj = first_json(reply)
        rows = obj.get("classifications") if isinstance(obj, dict) else obj
        if not isinstance(rows, list) or not rows:
            return Score(None, False, {"reply": reply[:300]})
        marks = [_verdict(r.get("attributed")) if isinstance(r, dict) else None for r in rows]
        if any(m is None for m in marks):
            return Score(None, False, {"reply": reply[:300]})
        return Score(sum(marks) / len(marks), True, {"attributed": marks})  # type: ignore[arg-type]

    def answer_correctness(self, question: str, answer: str, reference: str) -> Score:
        statements = self.statements(question, answer)
        if statements is None:
            return Score(None, False, {"step": "statements"})
        listing = "\n".join(f"{i}. {s}" for i, s in enumerate(statements, 1)) or "(none)"
        reply = self._ask(
            JUDGE_PROMPTS["answer_correctness"].format(
                question=question, statements=listing, reference=reference
            )
        )
        obj = first_json(reply)
        if not isinstance(obj, dict) or not all(isinstance(obj.get(k), list) for k in ("TP", "FP", "FN")):
            return Score(None, False, {"reply": reply[:300]})
        tp, fp, fn = (len(obj[k]) for k in ("TP", "FP", "FN"))
        f1 = f1_from_counts(tp, fp, fn)
        vecs = self.embedder.embed([answer, reference])
        similarity = float(vecs[0] @ vecs[1])
        return Score(
            0.75 * f1 + 0.25 * similarity,
            True,
            {"tp": tp, "fp": fp, "fn": fn, "f1": f1, "similarity": similarity},
        )

    def simpleqa(self, question: str, predicted: str, target: str) -> Score:
        reply = self._ask(
            JUDGE_PROMPTS["simpleqa"].format(question=question, target=target, predicted=predicted),
            max_tokens=16,
        )
        grade = parse_simpleqa_grade(reply)
        if grade is None:
            return Score(None, False, {"reply": reply[:200]})
        return Score(1.0 if grade == "CORRECT" else 0.0, True, {"grade": grade})

    def score(
        self, metric: str, question: str, answer: str, contexts: Sequence[str], reference: str | None
    ) -> Score | None:
        """One metric for one answer; None when it does not apply (no reference for a metric needing one)."""
        if metric in NEEDS_REFERENCE and not reference:
            return None
        if metric == "faithfulness":
            return self.faithfulness(question, answer, contexts)
        if metric == "answer_relevancy":
            return self.answer_relevancy(question, answer)
        if metric == "context_precision":
            return self.context_precision(question, contexts, reference or "")
        if metric == "context_recall":
            return self.context_recall(question, contexts, reference or "")
        if metric == "answer_correctness":
            return self.answer_correctness(question, answer, reference or "")
        if metric == "simpleqa":
            return self.simpleqa(question, answer, reference or "")
        raise ValueError(f"unknown metric {metric!r}")


def parse_simpleqa_grade(reply: str) -> str | None:
    """CORRECT / INCORRECT / NOT_ATTEMPTED from a grader reply (also "A"/"B"/"C", the letters of the
    published grader); the first grade word wins; None when there is none."""
    text = reply.strip().upper().replace("-", "_").replace(" ", "_")
    m = re.search(r"NOT_ATTEMPTED|INCORRECT|CORRECT", text)
    if m:
        return m.group(0)
    letter = re.fullmatch(r"\W*([ABC])\W*", reply.strip().upper())
    if letter:
        return dict(zip("ABC", SIMPLEQA_GRADES, strict=True))[letter.group(1)]
    return None


def simpleqa_summary(grades: Sequence[str]) -> dict[str, float]:
    """SimpleQA's summary of grades: ``accuracy`` (correct / all), ``attempted`` (correct + incorrect, over
    all), ``accuracy_given_attempted`` and ``f_score``, the harmonic mean of the two accuracies."""
    n = len(grades)
    if not n:
        return {}
    correct = sum(g == "CORRECT" for g in grades)
    attempted = sum(g in ("CORRECT", "INCORRECT") for g in grades)
    acc = correct / n
    acc_att = correct / attempted if attempted else 0.0
    f = 2 * acc * acc_att / (acc + acc_att) if acc + acc_att else 0.0
    return {"accuracy": acc, "attempted": attempted / n, "accuracy_given_attempted": acc_att, "f_score": f}


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's rank correlation of two judges' scores (None with fewer than 3 pairs or no variance)."""
    spearmanr = require("scipy.stats", "judge agreement").spearmanr

    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    return float(spearmanr(a, b).statistic)


def cohen_kappa(a: Sequence[Any], b: Sequence[Any]) -> float | None:
    """Cohen's kappa of two judges' categorical grades (None with no pairs; 1.0 for perfect agreement)."""
    from collections import Counter

    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if expected == 1.0:
        return 1.0 if observed == 1.0 else 0.0
    return (observed - expected) / (1 - expected)


def judge_backends() -> list[str]:
    """The backends that can judge: every generative one."""
    from ragkit.llms import LLMS

    return [c.name for c in LLMS.components() if c.generative]


def build_judge(
    backend: str,
    model: str | None = None,
    *,
    api_key: str | None = None,
    host: str | None = None,
    base_url: str | None = None,
    embedder: Any = None,
) -> AnswerJudge:
    """An :class:`AnswerJudge` on a chat backend (keys from the argument or the environment, in memory
    only); the embedder defaults to the evaluated pipeline's."""
    from ragkit.core.errors import ConfigError
    from ragkit.llms import build_llm

    if backend not in judge_backends():
        raise ConfigError(f"judge backend must be one of {', '.join(judge_backends())}, got {backend!r}")
    llm = build_llm(backend, model=model or None, api_key=api_key, host=host, base_url=base_url)
    return AnswerJudge(llm, embedder)


def parse_metrics(text: str | Sequence[str] | None, default: Sequence[str] = ALL_METRICS) -> tuple[str, ...]:
    """``"faithfulness,context_recall"`` (or a list) as metric names, checked; ``all`` or nothing gives
    ``default``."""
    from ragkit.core.errors import ConfigError

    items = [t.strip() for t in (text.split(",") if isinstance(text, str) else text or ()) if t.strip()]
    if not items or items == ["all"]:
        return tuple(default)
    unknown = [m for m in items if m not in ALL_METRICS]
    if unknown:
        raise ConfigError(f"unknown judge metrics {unknown}; choose from {', '.join(ALL_METRICS)}")
    return tuple(dict.fromkeys(items))
