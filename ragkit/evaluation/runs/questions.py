"""Every question through one config's full pipeline: retrieval metrics on ragkit's own ranking, answer
metrics, abstention, citation checks, judge metrics, latency per stage and tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragkit.core.types import Message
from ragkit.evaluation.datasets.loaders import LabelledQuestion
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.datasets.reparse import COUNTS, onto_reading, same_reading
from ragkit.evaluation.metrics.answers import contains_gold, exact_match, token_f1
from ragkit.evaluation.metrics.calibration import answer_confidence_auroc
from ragkit.evaluation.metrics.citations import CHECK_MODEL, check_answer
from ragkit.evaluation.metrics.judge import cohen_kappa, simpleqa_summary, spearman
from ragkit.evaluation.metrics.names import ANSWER_JUDGE_METRICS, PER_QUESTION_METRICS, RETRIEVAL_METRICS
from ragkit.evaluation.metrics.retrieval import max_by_document, per_query_metrics
from ragkit.evaluation.runs.beir import latency_summary
from ragkit.evaluation.runs.config_run import (
    ConfigRun,
    Progress,
    _aggregate,
    _fresh_query,
    calibration_summary,
    first_questions,
    index_bytes,
    index_for,
)
from ragkit.index.embeddings import shared_embedder
from ragkit.index.lexical import needs_vectors
from ragkit.llms import key_for
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.rag import RagPipeline
from ragkit.retrievers.intent import classify_intent


class QuestionRunner:
    """Every question through one config's full pipeline; see the module docstring for what is
    measured. Built once (index, pipeline, models loaded), then stepped question by question."""

    def __init__(
        self,
        qset: QuestionSet,
        config: PipelineConfig,
        embedders: dict,
        index_root: str = "indexes/.eval",
        progress: Progress | None = None,
        api_key: str | Mapping[str, str] | None = None,
        judge: Any = None,
        llm: Any = None,
        judge2: Any = None,
        judge_metrics: Sequence[str] = (),
        cite_decide: Any = None,
    ) -> None:
        self.qset, self.config, self.judge = qset, config, judge
        self.judge2, self.judge_metrics, self.cite_decide = judge2, tuple(judge_metrics), cite_decide
        # over a collection, BM25 alone searches its text-only index (the gauge embeds what it retrieved)
        vectors = needs_vectors(config) or qset.collection is None
        store, self.emb = index_for(qset, config, embedders, index_root, progress, vectors)
        self.index_bytes = index_bytes(store, vectors)
        self.evidence = self._evidence_on(store)
        # the citation check's own model, in float32 (its thresholds were measured on that scale)
        self.check_emb = shared_embedder(embedders, CHECK_MODEL)
        for j in (judge, judge2):
            if j is not None and j.embedder is None:
                j.embedder = self.emb  # answer relevancy and correctness use the pipeline's model
        key = key_for(api_key, config.llm)
        self.pipe = RagPipeline(config, store, self.emb, llm=llm, api_key=key, scope=qset.scope)
        self.load_ms = self.pipe.warm_up()  # model loading is not any question's latency
        self.per_q: dict[str, dict[str, Any]] = {}
        self.runs: dict[str, list[str]] = {}  # question -> ranked units (passages or files)
        self.gold_runs: dict[str, list[str]] = {}  # question -> ranked gold-answer hits
        self.asked: list[LabelledQuestion] = []
        self.stage_times: dict[str, list[float]] = {}
        self.tokens = {"prompt": 0, "completion": 0, "reported": 0}
        self.answers: dict[str, str] = {}  # question -> this config's answer (a follow-up's conversation)
        self.by_id = {q.qid: q for q in qset.questions}

    def history(self, q: LabelledQuestion) -> list[Message]:
        """The conversation a follow-up continues: the questions it follows (a chain, oldest first) with
        this config's answers; one not asked yet (a sweep asks in a seeded order) is asked first for its
        answer only, and counted when its own turn comes."""
        parent = self.by_id.get(q.follows) if q.follows else None
        if parent is None:
            return []
        turns = self.history(parent)
        if parent.qid not in self.answers:
            self.answers[parent.qid] = self.pipe.ask(parent.question, turns).text
        return [*turns, Message("user", parent.question), Message("assistant", self.answers[parent.qid])]

    def _evidence_on(self, store: Any) -> dict[str, tuple[Any, tuple[int, int]]]:
        """Each question's evidence moved onto this config's reading of the documents, with the spans
        moved and lost (:mod:`ragkit.evaluation.datasets.reparse`); empty when the readings are the same."""
        collection = self.qset.collection
        if collection is None or not any(q.evidence for q in self.qset.questions):
            return {}
        stored = {d.source: d for d in collection.documents()}
        # the documents this config reads otherwise, compared once (not once per labelled unit)
        other = {
            d.source: d
            for d in store.documents.values()
            if d.source in stored and d is not stored[d.source] and not same_reading(stored[d.source], d)
        }
        if not other:
            return {}
        out = {}
        for q in self.qset.questions:
            if q.evidence:
                units, moved, lost = onto_reading(q.evidence, stored, other)
                out[q.qid] = (units, (moved, lost))
        return out

    def items(self, limit: int | None) -> list[LabelledQuestion]:
        return first_questions(self.qset.questions, limit)

    def step(self, q: LabelledQuestion) -> None:
        from ragkit.evaluation.datasets.evidence import evidence_precision, evidence_ranking, gold_ranking

        history = self.history(q)
        _fresh_query(self.emb)
        ans = self.pipe.ask(q.question, history)
        self.answers[q.qid] = ans.text
        answered = not ans.abstained
        row: dict[str, Any] = dict(
            question=q.question,
            intent=classify_intent(q.question),
            answerable=q.answerable,
            status=q.status,
            answer=ans.text,
            query=ans.query,
            follows=q.follows or None,
            answerability=ans.answerability.value if ans.answerability else None,
            answer_confidence=ans.answerability.answer_confidence if ans.answerability else None,
            withheld=ans.trace.get("withheld"),
            # what the answer confidence was computed from (bench/fit_answer_confidence.py reads it)
            answer_inputs=dict(ans.answerability.inputs) if ans.answerability else None,
            abstained=ans.abstained,
            confidence=ans.confidence.value if ans.confidence else None,
            confidence_raw=(
                ans.confidence.inputs.get("raw_value", ans.confidence.value) if ans.confidence else None
            ),
            hits=[
                {
                    "rank": h.rank,
                    "source": h.chunk.source,
                    "page": h.chunk.page,
                    "chunk_id": h.chunk.chunk_id,
                    "score": round(h.score, 6),
                }
                for h in ans.hits
            ],
            latency_ms=ans.latency_ms,
            timings_ms=dict(ans.timings_ms),
            prompt_tokens=ans.prompt_tokens,
            completion_tokens=ans.completion_tokens,
        )
        row.update(dict.fromkeys(PER_QUESTION_METRICS))
        chunks = [h.chunk for h in ans.hits]
        # retrieval metrics: the retrieval stage's whole ranking (to RANKING_DEPTH, whose head the reader
        # read), expanded to labelled passages or aggregated to relevant files
        ranking = ans.ranking or ans.hits
        row["ranking"] = [
            {"chunk_id": h.chunk_id, "source": h.chunk.source, "score": round(h.score, 6)} for h in ranking
        ]
        ranked = [h.chunk for h in ranking]
        evidence, (moved, lost) = self.evidence.get(q.qid, (q.evidence, (0, 0)))
        if q.evidence:
            row["relevance"] = "passage"
            self.runs[q.qid] = evidence_ranking(ranked, evidence)
            row["evidence_precision"] = evidence_precision(chunks, evidence)
            if moved or lost:  # labelled on another reading of the PDFs (another parser)
                row.update(zip(COUNTS, (moved, lost), strict=True))
        elif q.relevant:
            row["relevance"] = "document"
            self.runs[q.qid] = list(max_by_document([(h.chunk.source, h.score) for h in ranking], 100))
        if q.answers:
            # the answer the backend gave, or would have given had it not abstained: what its answer
            # confidence is judged on (does the confidence rank right answers above wrong ones?)
            candidate = ans.text if answered else row["withheld"] or ""
            row["candidate_correct"] = contains_gold(candidate, q.answers)
            self.gold_runs[q.qid] = gold_ranking([c.text for c in ranked], q.answers)
            row["contains_gold"] = contains_gold(ans.text, q.answers) if answered else 0.0
            row["f1"] = token_f1(ans.text, q.answers) if answered else 0.0
            row["exact_match"] = exact_match(ans.text, q.answers) if answered else 0.0
        if q.answerable:
            row["false_abstention"] = float(ans.abstained)
        elif q.absent:
            row["idk_when_absent"] = float(ans.abstained)
        # calibration target: does the retrieved text hold the evidence? (unlabelled questions: unknown)
        if q.absent and not q.answerable:
            row["evidence_retrieved"] = 0.0
        elif q.qid in self.runs:  # judged on what the reader read (the gauge's inputs), not the ranking
            rel = {u for u, g in q.qrels().items() if g > 0}
            read = evidence_ranking(chunks, evidence) if q.evidence else [c.source for c in chunks]
            row["evidence_retrieved"] = float(any(u in rel for u in read))
        elif q.answers:
            row["evidence_retrieved"] = contains_gold(" ".join(c.text for c in chunks), q.answers)
        if answered:
            check = check_answer(ans, self.check_emb, self.cite_decide)
            row["citation_precision"], row["citation_recall"] = check.precision, check.recall
            row["citations_unsupported"] = check.unsupported
        for prefix, judge in (("", self.judge), ("judge2_", self.judge2)):
            if judge is not None:
                self._judge_answer(row, prefix, judge, q, ans, [c.text for c in chunks])
        for stage, ms in ans.timings_ms.items():
            self.stage_times.setdefault(stage, []).append(ms)
        if ans.prompt_tokens is not None:
            self.tokens["reported"] += 1
            self.tokens["prompt"] += ans.prompt_tokens
            self.tokens["completion"] += ans.completion_tokens or 0
        self.per_q[q.qid] = row
        self.asked.append(q)

    def _judge_answer(
        self, row: dict[str, Any], prefix: str, judge: Any, q: LabelledQuestion, ans: Any, contexts: list[str]
    ) -> None:
        """The configured RAGAS-style metrics and SimpleQA grade of one answer by one judge. An abstention
        is NOT_ATTEMPTED without asking; faithfulness and relevancy are not defined for it, while the
        context metrics (about retrieval) still are."""
        reference = q.answers[0] if q.answers else None
        failures: list[str] = []
        details: dict[str, Any] = {}
        for m in self.judge_metrics:
            if ans.abstained and m in ("faithfulness", "answer_relevancy", "answer_correctness"):
                continue
            if m == "simpleqa" and reference and ans.abstained:
                row[f"{prefix}simpleqa_grade"], row[f"{prefix}simpleqa_correct"] = "NOT_ATTEMPTED", 0.0
                continue
            if m in ("context_precision", "context_recall") and not contexts:
                continue
            score = judge.score(m, q.question, ans.text, contexts, reference)
            if score is None:
                continue
            if not score.parsed:
                failures.append(m)
            if m == "simpleqa":
                row[f"{prefix}simpleqa_grade"] = score.detail.get("grade")
                row[f"{prefix}simpleqa_correct"] = score.value
            else:
                row[f"{prefix}{m}"] = score.value
            details[m] = score.detail
        row[f"{prefix}judge_failures"] = failures
        row[f"{prefix}judge_detail"] = details

    def _judge_summary(self, metrics: dict[str, float], counts: dict[str, int]) -> dict[str, Any]:
        """Parse failures, SimpleQA's summary and, with two judges, their agreement per metric."""
        per_q = self.per_q
        out: dict[str, Any] = {}
        for prefix, judge in (("", self.judge), ("judge2_", self.judge2)):
            if judge is None:
                continue
            rows = [v for v in per_q.values() if f"{prefix}judge_failures" in v]
            metrics[f"{prefix}judge_parse_failures"] = float(
                sum(len(v[f"{prefix}judge_failures"]) for v in rows)
            )
            counts[f"{prefix}judge_parse_failures"] = len(rows)
            grades = [
                v[f"{prefix}simpleqa_grade"] for v in per_q.values() if v.get(f"{prefix}simpleqa_grade")
            ]
            for k, val in simpleqa_summary(grades).items():
                metrics[f"{prefix}simpleqa_{k}"] = val
                counts[f"{prefix}simpleqa_{k}"] = len(grades)
        if self.judge2 is not None:
            m2, c2 = _aggregate(per_q, [f"judge2_{m}" for m in ANSWER_JUDGE_METRICS])
            metrics.update(m2)
            counts.update(c2)
            for m in self.judge_metrics:
                if m == "simpleqa":
                    pairs = [
                        (v["simpleqa_grade"], v["judge2_simpleqa_grade"])
                        for v in per_q.values()
                        if v.get("simpleqa_grade") and v.get("judge2_simpleqa_grade")
                    ]
                    kappa = cohen_kappa([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
                    out[m] = {"cohen_kappa": kappa, "n": len(pairs)}
                    continue
                pairs = [
                    (v[m], v[f"judge2_{m}"])
                    for v in per_q.values()
                    if v.get(m) is not None and v.get(f"judge2_{m}") is not None
                ]
                rho = spearman([a for a, _ in pairs], [b for _, b in pairs]) if pairs else None
                out[m] = {"spearman": rho, "n": len(pairs)}
        return out

    def finish(self) -> ConfigRun:
        per_q, config, judge = self.per_q, self.config, self.judge
        if self.runs:
            qrels = {q.qid: q.qrels() for q in self.asked if q.qid in self.runs}
            for qid, vals in per_query_metrics(qrels, self.runs, RETRIEVAL_METRICS).items():
                per_q[qid].update(vals)
        if self.gold_runs:
            qrels = {qid: {"gold": 1} for qid in self.gold_runs}
            for qid, vals in per_query_metrics(qrels, self.gold_runs, RETRIEVAL_METRICS).items():
                per_q[qid].update({f"gold_{k}": v for k, v in vals.items()})
        metrics, counts = _aggregate(per_q, PER_QUESTION_METRICS)
        calibration = calibration_summary(per_q)
        if calibration is not None:
            metrics["ece"] = calibration["ece"]
        if (auroc := answer_confidence_auroc(per_q)) is not None:
            metrics["answer_confidence_auroc"] = round(auroc, 4)
        agreement = self._judge_summary(metrics, counts)
        lat = [v["latency_ms"] for v in per_q.values()]
        models = {
            "embedding": self.emb.model_id,
            "llm": f"{config.llm}:{getattr(self.pipe.llm, 'model', '')}",
        }
        if config.rerank:
            models["reranker"] = config.rerank_model
        if judge is not None:
            models["judge"] = judge.model_id
            models["judge_prompts"] = judge.prompts_hash()
            models["judge_metrics"] = ",".join(self.judge_metrics)
        if self.judge2 is not None:
            models["judge2"] = self.judge2.model_id
        if self.cite_decide is not None:
            models["citation_check"] = "llm"
        stage = {s: latency_summary(v) for s, v in self.stage_times.items()}
        stage["load (once)"] = {"p50": self.load_ms, "p95": self.load_ms, "mean": self.load_ms}
        return ConfigRun(
            config,
            per_q,
            metrics,
            latency_summary(lat),
            calibration,
            stage,
            self.tokens if self.tokens["reported"] else {},
            counts,
            models,
            agreement,
        )
