"""Generate a question set over a collection's documents: sample passages, write one question per
passage (offline, or through an LLM backend), critique, and report what was made and why some were not.

LLM replies are cached by (passage, partner passage, prompt hash, backend, model) in a JSONL file, so a
re-run, or a larger set (the passage order is prefix-stable), reuses every reply already paid for.
Cancelling keeps the questions made so far.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.evaluation.questiongen import absence, offline
from ragkit.evaluation.questiongen import llm as llm_gen
from ragkit.evaluation.questiongen.critique import critique
from ragkit.evaluation.questiongen.passages import Passage, cut_passages, partner, sample_passages
from ragkit.evaluation.questiongen.records import TYPES, GenerationReport
from ragkit.pipeline.prompts.questions import QUESTION_PROMPTS, question_prompt_hash

METHODS = {
    "offline": "Offline: keyword queries of salient words (no model; lexical, favours BM25)",
    "llm": "LLM: questions written by the configured backend",
}
DEFAULT_MIX = {"factual": 0.4, "why": 0.2, "two_passage": 0.2, "unanswerable": 0.2}
#: a partner for two-passage questions is searched among this many passages (the covering order's first)
PARTNER_POOL = 2000
LLM_NOTE = (
    "How far LLM-written questions rank set-ups like real ones is not measured on this machine (no "
    "instruct model ships here): bench/question_agreement.py measures it where a backend answers."
)
STOP_AFTER_ERRORS = 3  # consecutive failed LLM calls: the backend is down, stop and keep what was made
Progress = Callable[[str, int, int], None]


def plan_types(n: int, mix: Mapping[str, float]) -> list[str]:
    """``n`` question types in proportion to ``mix``, interleaved so every prefix keeps the proportions
    (the i-th type is the one furthest behind its share)."""
    weights = {t: float(w) for t, w in mix.items() if w > 0}
    unknown = set(weights) - set(TYPES)
    if unknown or not weights:
        raise RagkitError(f"question types are {', '.join(TYPES)}; got {', '.join(sorted(mix)) or 'none'}")
    total = sum(weights.values())
    counts = dict.fromkeys(weights, 0)
    out = []
    for i in range(n):
        t = max(weights, key=lambda k: (weights[k] / total * (i + 1) - counts[k], -list(weights).index(k)))
        counts[t] += 1
        out.append(t)
    return out


def estimate(n: int, method: str, mix: Mapping[str, float] | None = None) -> dict[str, int]:
    """LLM calls and tokens before starting: one call per question, and one more per unanswerable
    question (the check that the collection does not answer it); a prompt's tokens are its template plus
    its passages (two for two-passage questions, four for the check) at about four characters a token."""
    if method != "llm":
        return {"llm_calls": 0, "tokens": 0}
    types = plan_types(n, mix or DEFAULT_MIX)
    passage_tokens = 600 // 4
    tokens = sum(
        len(QUESTION_PROMPTS[t]) // 4
        + passage_tokens * (2 if t == "two_passage" else 1)
        + llm_gen.REPLY_TOKENS
        for t in types
    )
    checks = types.count("unanswerable")
    tokens += checks * (
        len(absence.ABSENCE_PROMPT) // 4 + passage_tokens * absence.CHECK_PASSAGES + absence.CHECK_TOKENS
    )
    return {"llm_calls": n + checks, "tokens": tokens}


class ReplyCache:
    """LLM replies by key, one JSON line each (appended as they arrive: a cancelled run keeps them)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.replies: dict[str, str] = {}
        if self.path is not None and self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    d = json.loads(line)
                    self.replies[d["key"]] = d["reply"]
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut by a crash: that reply is asked for again

    def get(self, key: str) -> str | None:
        return self.replies.get(key)

    def put(self, key: str, reply: str) -> None:
        self.replies[key] = reply
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"key": key, "reply": reply}, ensure_ascii=False) + "\n")


def cache_key(qtype: str, passage: Passage, other: Passage | None, llm: Any) -> str:
    raw = [passage.key, other.key if other else "", question_prompt_hash(qtype), llm.name, llm.model]
    return hashlib.sha256("\x00".join(raw).encode()).hexdigest()[:24]


class QuestionGenerator:
    """Questions over ``documents`` (a collection's parsed documents) by ``method`` (``offline`` or
    ``llm``, which needs ``llm``); ``embedder`` is the critique's (the citation check's model)."""

    def __init__(
        self,
        documents: Sequence[Any],
        method: str = "offline",
        *,
        llm: Any = None,
        embedder: Any = None,
        mix: Mapping[str, float] | None = None,
        seed: int = 0,
        cache_path: str | Path | None = None,
        offline_terms: tuple[int, int] = (offline.TERMS, 0),
    ) -> None:
        if method not in METHODS:
            raise RagkitError(
                f"question generation method must be one of {', '.join(METHODS)}, got {method!r}"
            )
        if method == "llm" and llm is None:
            raise RagkitError("LLM generation needs a backend: choose groq, ollama, openai or local")
        if not documents:
            raise RagkitError("the collection has no documents to write questions from")
        self.documents, self.method, self.llm, self.embedder = list(documents), method, llm, embedder
        self.mix = dict(mix or DEFAULT_MIX) if method == "llm" else {"factual": 1.0}
        self.seed, self.cache = seed, ReplyCache(cache_path if method == "llm" else None)
        self._pages = {(d.source, p.number): p.text for d in self.documents for p in d.pages}
        self.report = GenerationReport(method)
        self.offline_terms = offline_terms  # (terms, most salient skipped): the offline query's shape

    def run(
        self, n: int, progress: Progress | None = None, should_stop: Callable[[], bool] | None = None
    ) -> GenerationReport:
        """Make ``n`` questions (fewer if the documents hold fewer passages), critique them, report."""
        if n < 1:
            raise RagkitError(f"ask for at least one question, got {n}")
        self._per_doc = cut_passages(self.documents)  # sampled below, and for the idf or the partners
        # offline skips passages without a prose sentence (tables, references): it reads further on
        passages = sample_passages(
            self.documents, n * (3 if self.method == "offline" else 1), self.seed, self._per_doc
        )
        if not passages:
            raise RagkitError("no passage of the documents is long enough to write a question from")
        report = self.report = GenerationReport(self.method)  # read by a caller that was interrupted
        report.bias_note = offline.BIAS_NOTE if self.method == "offline" else LLM_NOTE
        if self.method == "offline":
            self._offline(passages, n, report, progress, should_stop)
        else:
            self._llm(passages, plan_types(len(passages), self.mix), report, progress, should_stop)
        if progress:
            progress("critique", 0, 1)
        report.questions = critique(report.questions, self.embedder)
        if progress:
            progress("critique", 1, 1)
        return report

    def _offline(
        self, passages: list[Passage], n: int, report: GenerationReport, progress: Any, stop: Any
    ) -> None:
        from ragkit.retrievers.analyzer import Analyzer

        pool = [p for ps in self._per_doc.values() for p in ps]
        idf = offline.IdfTable(pool, Analyzer())
        for p in passages:
            if len(report.questions) >= n:
                break
            if stop is not None and stop():
                report.status = "cancelled"
                break
            q = offline.offline_question(p, self._pages[(p.source, p.page)], idf, *self.offline_terms)
            if q is None:
                report.fail(offline.NO_PROSE, p.text)
                continue
            report.questions.append(q)
            if progress:
                progress("questions", len(report.questions), n)

    def _llm(
        self, passages: list[Passage], types: list[str], report: GenerationReport, progress: Any, stop: Any
    ) -> None:
        from ragkit.retrievers.analyzer import Analyzer

        analyzer = Analyzer()
        pool = [
            (p, set(analyzer(p.text)))
            for p in (
                sample_passages(self.documents, PARTNER_POOL, self.seed, self._per_doc)
                if "two_passage" in types
                else []
            )
        ]
        if "unanswerable" in types:  # the check searches every passage of the collection
            every = [(p, set(analyzer(p.text))) for ps in self._per_doc.values() for p in ps]
            self._absence = every, offline.IdfTable.of_terms([t for _, t in every], analyzer)
        name, errors = llm_gen.generator_name(self.llm), 0
        for i, (p, qtype) in enumerate(zip(passages, types, strict=True)):
            if stop is not None and stop():
                report.status = "cancelled"
                break
            errors = self._one(p, qtype, pool, analyzer, name, report, errors)
            if errors >= STOP_AFTER_ERRORS:
                report.status = f"stopped after {errors} failed LLM calls in a row"
                break
            if progress:
                progress("questions", i + 1, len(passages))

    def _one(
        self,
        p: Passage,
        qtype: str,
        pool: list[tuple[Passage, set[str]]],
        analyzer: Any,
        name: str,
        report: GenerationReport,
        errors: int,
    ) -> int:
        """One question from one passage; returns the count of consecutive failed calls."""
        other = partner(p, pool, analyzer) if qtype == "two_passage" else None
        if qtype == "two_passage" and other is None:
            report.fail("no second passage shares its topic", p.text)
            return errors
        try:
            reply = self._ask(
                cache_key(qtype, p, other, self.llm), llm_gen.request_for(qtype, p, other), report
            )
        except RagkitError as e:
            report.fail(llm_gen.LLM_ERROR, str(e))
            return errors + 1
        try:
            q = llm_gen.question_from_reply(reply, qtype, p, other, name)
        except llm_gen.ReplyError as e:
            report.fail(e.reason, e.reply)
            return 0
        if q.absent:
            shown = absence.closest(q.question, *self._absence)
            try:
                check = self._ask(
                    absence.cache_key(q.question, shown, self.llm), absence.request(q.question, shown), report
                )
            except RagkitError as e:
                report.fail(llm_gen.LLM_ERROR, str(e))
                return errors + 1
            q = absence.verdict(check, q, shown)
        report.questions.append(q)
        return 0

    def _ask(self, key: str, request: Any, report: GenerationReport) -> str:
        """A reply from the cache, or from the backend (cached as it arrives; calls and tokens counted)."""
        reply = self.cache.get(key)
        if reply is not None:
            report.cached += 1
            return reply
        gen = self.llm.generate(request)
        report.calls += 1
        report.tokens += (gen.prompt_tokens or 0) + (gen.completion_tokens or 0)
        self.cache.put(key, gen.text)
        return gen.text


def measured_agreement(method: str) -> str:
    """What ``bench/question_agreement.py`` measured for ``method``: Kendall tau between the ranking of
    set-ups by generated and by real questions, per dataset, and whether the best set-up agrees."""
    path = Path(__file__).with_name("agreement.json")
    data = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    found = data.get(method)
    if not found:
        return (
            f"Agreement with real questions not measured for {method!r} on this machine (no instruct "
            "LLM ships here); run bench/question_agreement.py where a backend answers."
        )
    parts = [
        f"{name}: Kendall τ {m['kendall_tau']:+.2f} over {m['setups']} set-ups, best set-up "
        + ("the same" if m["best_agrees"] else "different")
        + (
            f", same chunker verdict in {m['chunker_verdicts_agree']}"
            if m.get("chunker_verdicts_agree")
            else ""
        )
        for name, m in found.items()
    ]
    return "Measured against real questions — " + "; ".join(parts) + f" ({data.get('command', '')})."
