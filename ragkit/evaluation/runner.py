"""``ragkit eval run``: several pipeline configs over one labelled question set, per-question scores,
metrics, paired comparisons with bootstrap CIs and significance, and calibration of the confidence.

Question sets (:func:`load_question_set`):

- a BEIR directory: retrieval only, document-level nDCG@10 / Recall@10 / Recall@100 / MRR@10;
- a SQuAD JSON file: every question through the full pipeline over an index of the paragraphs;
  optionally a fraction of paragraphs held out of the index, whose questions then have no evidence;
- a CSV/JSONL of ``question, gold_answer, relevant_sources`` over an existing collection;
- the evidence passages labelled in the UI and saved with a collection (passage-level relevance).

Pipeline sets report retrieval metrics (over the hits the pipeline passes to the LLM, in ragkit's own
order), answer metrics (contains-gold, token F1, exact match), abstention on questions with and without
evidence, an optional LLM judge, the calibration of the retrieval confidence, latency per stage and tokens.

Retrieval relevance per question: labelled passages (``evidence``: any chunker judged by overlap, see
:mod:`ragkit.evaluation.evidence`), else relevant files (hits aggregated to files at their best chunk's
rank); and, for every question with a gold answer, a second source named ``gold_*``: chunks that contain
the normalised gold answer. Latency excludes model loading (its own ``load`` stage); configs are run
interleaved and each embeds its own query.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import statistics
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.chunkers import make_chunker
from ragkit.confidence import ConfidenceConfig, apply_calibration, retrieval_confidence
from ragkit.config import PipelineConfig
from ragkit.embeddings import Embedder
from ragkit.errors import RagkitError
from ragkit.evaluation.answer_metrics import RAGAS_METRICS, cohen_kappa, simpleqa_summary, spearman
from ragkit.evaluation.answers import contains_gold, exact_match, token_f1
from ragkit.evaluation.calibration import (
    CalibrationMap,
    cross_validated_calibration,
    expected_calibration_error,
    reliability_bins,
    risk_coverage,
)
from ragkit.evaluation.citations_check import CHECK_MODEL, check_answer
from ragkit.evaluation.datasets import (
    BeirDataset,
    LabelledQuestion,
    held_out_paragraphs,
    load_beir,
    load_question_file,
    load_squad,
    parse_question_file,
    squad_questions,
)
from ragkit.evaluation.metrics import max_by_document, per_query_metrics
from ragkit.evaluation.retrieval import dataset_index, latency_summary, query_order
from ragkit.evaluation.stats import compare_paired
from ragkit.hashing import config_key
from ragkit.pipeline import RagPipeline
from ragkit.retrievers import retriever_from_config
from ragkit.retrievers.intent import classify_intent
from ragkit.types import Document

Progress = Callable[[str, int, int], None]
BEIR_METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
RETRIEVAL_METRICS = ("ndcg@10", "recall@10", "mrr@10")
EVIDENCE_METRICS = ("evidence_precision",)
GOLD_METRICS = ("gold_ndcg@10", "gold_recall@10", "gold_mrr@10")
ANSWER_METRICS = ("contains_gold", "f1", "exact_match")
ABSTENTION_METRICS = ("false_abstention", "idk_when_absent")
JUDGE_METRICS = ("judge_faithfulness", "judge_relevance")
CITATION_METRICS = ("citation_precision", "citation_recall")
#: RAGAS-style metrics and SimpleQA's per-question grade (1 = CORRECT), from an AnswerJudge
ANSWER_JUDGE_METRICS = (*RAGAS_METRICS, "simpleqa_correct")
#: every per-question metric, in table order
PER_QUESTION_METRICS = (
    BEIR_METRICS
    + EVIDENCE_METRICS
    + GOLD_METRICS
    + ANSWER_METRICS
    + ABSTENTION_METRICS
    + CITATION_METRICS
    + ANSWER_JUDGE_METRICS
    + JUDGE_METRICS
)
LOWER_IS_BETTER = frozenset({"false_abstention"})  # abstaining when the evidence is there is a miss
CALIBRATION_MEANING = (
    "correct = the retrieved chunks hold the evidence (a labelled passage or a relevant file, else the "
    "gold answer text); questions whose evidence is absent count as incorrect"
)


# ------------------------------------------------------------------ question sets


@dataclass
class QuestionSet:
    """A labelled question set and where its documents come from (a corpus indexed for the evaluation,
    or an existing collection)."""

    name: str
    kind: str  # beir | squad | questions | labels
    source: str  # the path, or the uploaded file's name
    hash: str
    questions: list[LabelledQuestion] = field(default_factory=list)
    documents: list[Document] | None = None  # None: use ``collection``'s documents
    collection: Any = None  # ragkit.collections.Collection
    level: str = "document"  # document (files) | passage (labelled spans) | mixed
    beir: BeirDataset | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.beir.queries) if self.beir is not None else len(self.questions)


def dataset_hash(path: str | Path) -> str:
    """sha256 over the dataset's files (a directory's files in sorted order), to stamp every run."""
    p = Path(path)
    h = hashlib.sha256()
    files = sorted(f for f in p.rglob("*") if f.is_file()) if p.is_dir() else [p]
    for f in files:
        h.update(f.name.encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def questions_hash(questions: Sequence[LabelledQuestion], collection: Any) -> str:
    """sha256 over the questions, their labels and the collection's documents (name + content hash)."""
    payload = {
        "questions": [q.to_list() for q in questions],
        "documents": sorted([d.source, d.sha256] for d in collection.documents()) if collection else [],
    }
    return config_key(payload)


def load_question_set(
    path: str | Path | None = None,
    *,
    collection: Any = None,
    text: str | None = None,
    filename: str | None = None,
    holdout: float = 0.0,
    labels: bool = False,
) -> QuestionSet:
    """A question set from a path (BEIR dir, SQuAD ``.json``, ``.csv``/``.jsonl``), from an uploaded
    file's ``text`` and ``filename``, or (``labels=True``) from the labels saved with ``collection``."""
    if labels:
        from ragkit.evaluation.labels import LabelSet

        if collection is None:
            raise RagkitError("labelled questions belong to a collection: choose one")
        every = LabelSet.for_collection(collection).questions()
        qs = [q for q in every if q.status != "unlabelled"]
        if not qs:
            raise RagkitError(
                f"collection {collection.name!r} has no labelled questions yet"
                + (f" ({len(every)} questions have no evidence marked yet)" if every else "")
            )
        return QuestionSet(
            f"{collection.name}-labels",
            "labels",
            f"labels of {collection.name}",
            questions_hash(qs, collection),
            qs,
            None,
            collection,
            "passage",
            params={
                "collection": collection.name,
                "collection_files": len(collection.documents()),
                "unlabelled_left_out": len(every) - len(qs),
            },
        )
    if text is not None:
        name = filename or "questions.csv"
        qs = parse_question_file(text, name)
        return collection_question_set(Path(name).stem, name, qs, collection)
    if path is None:
        raise RagkitError("give a question set: a path, an uploaded file, or a collection's labels")
    p = Path(path)
    if not p.exists():
        raise RagkitError(f"{p}: no such file or directory")
    if p.is_dir():
        ds = load_beir(p)
        return QuestionSet(ds.name, "beir", str(p), dataset_hash(p), beir=ds)
    if p.suffix.lower() == ".json":
        sq = load_squad(p)
        held = held_out_paragraphs(sq, holdout)
        return QuestionSet(
            sq.name,
            "squad",
            str(p),
            dataset_hash(p),
            squad_questions(sq, held),
            sq.documents(exclude=held),
            params={"holdout": holdout, "held_out_paragraphs": len(held)},
        )
    if p.suffix.lower() in (".csv", ".jsonl"):
        return collection_question_set(p.stem, str(p), load_question_file(p), collection)
    raise RagkitError(f"{p}: expected a BEIR directory, a SQuAD .json, or a .csv/.jsonl question set")


def collection_question_set(
    name: str, source: str, qs: list[LabelledQuestion], collection: Any
) -> QuestionSet:
    """A question set over an existing collection: relevant sources must be files of it (a bare file name
    matches a document stored under a longer path when only one does), evidence quotes must occur in it."""
    from dataclasses import replace

    from ragkit.evaluation.evidence import locate_quote, merge_passages

    if collection is None:
        raise RagkitError(f"{Path(source).name}: a CSV/JSONL question set runs over a collection: choose one")
    docs = collection.documents()
    if not docs:
        raise RagkitError(f"collection {collection.name!r} is empty")
    names = resolve_sources({s for q in qs for s, _ in q.relevant}, [d.source for d in docs])
    unknown = sorted(k for k, v in names.items() if v is None)
    if unknown:
        raise RagkitError(
            f"{Path(source).name}: relevant_sources not in collection {collection.name!r}: "
            + ", ".join(unknown[:5])
        )
    out = []
    for q in qs:
        relevant = tuple((names[s] or s, g) for s, g in q.relevant)
        evidence = q.evidence
        if q.quotes:
            passages = []
            for quote in q.quotes:
                found = [p for src, _ in relevant or [(None, 0)] for p in locate_quote(quote, docs, src)]
                if not found:
                    where = f"in {', '.join(s for s, _ in relevant)}" if relevant else "in the collection"
                    raise RagkitError(
                        f"{Path(source).name}: question {q.qid}: the evidence quote {quote[:80]!r} "
                        f"is not {where}"
                    )
                passages.extend(found)
            evidence = tuple(merge_passages(passages))
        out.append(replace(q, relevant=relevant, evidence=evidence, quotes=()))
    levels = {
        "passage" if q.evidence else "document" for q in out if q.answerable and (q.evidence or q.relevant)
    }
    level = levels.pop() if len(levels) == 1 else ("mixed" if levels else "document")
    return QuestionSet(
        name,
        "questions",
        source,
        questions_hash(out, collection),
        out,
        None,
        collection,
        level,
        params={"collection": collection.name, "collection_files": len(docs)},
    )


def resolve_sources(wanted: set[str], sources: Sequence[str]) -> dict[str, str | None]:
    """Each wanted file name -> the collection's document name: itself, or the one document whose name
    ends with ``/<wanted>`` (same-name files from two folders are stored under longer names)."""
    have = set(sources)
    out: dict[str, str | None] = {}
    for w in wanted:
        if w in have:
            out[w] = w
            continue
        matches = [s for s in sources if s.endswith("/" + w)]
        out[w] = matches[0] if len(matches) == 1 else None
    return out


# ------------------------------------------------------------------ runs


@dataclass
class ConfigRun:
    config: PipelineConfig
    per_question: dict[str, dict[str, Any]]  # question id -> metric -> value (None: not defined here)
    metrics: dict[str, float]
    latency_ms: dict[str, float]
    calibration: dict[str, Any] | None = None
    stage_latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    tokens: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # metric -> questions it is defined on
    models: dict[str, str] = field(default_factory=dict)
    judge_agreement: dict[str, Any] = field(default_factory=dict)  # metric -> spearman/kappa and n


def calibration_summary(per_q: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The gauge's reliability on this run (ECE, bins, risk-coverage) and, for the raw gauge, the
    cross-validated ECE an isotonic calibration would reach (fitted on 4 folds, scored on the 5th)."""
    judged = [
        v
        for v in per_q.values()
        if v.get("confidence") is not None and v.get("evidence_retrieved") is not None
    ]
    if not judged:
        return None
    conf = [v["confidence"] for v in judged]
    corr = [v["evidence_retrieved"] for v in judged]
    out: dict[str, Any] = {
        "correct_means": CALIBRATION_MEANING,
        "ece": expected_calibration_error(conf, corr),
        "bins": [b.__dict__ for b in reliability_bins(conf, corr)],
        "risk_coverage": risk_coverage(conf, corr),
        "n": len(conf),
        "calibrated_gauge": any(
            "confidence_raw" in v and v["confidence_raw"] != v["confidence"] for v in judged
        ),
    }
    raw = [v.get("confidence_raw", v["confidence"]) for v in judged]
    if len(raw) >= 20 and 0 < sum(corr) < len(corr):
        cv = cross_validated_calibration(raw, corr, "isotonic", 5)
        out["cross_validated"] = {k: cv[k] for k in ("method", "folds", "n", "ece_raw", "ece_calibrated")}
        out["cross_validated"]["bins_calibrated"] = cv["bins_calibrated"]
    return out


def _embedder(config: PipelineConfig, embedders: dict[str, Any]) -> Any:
    if config.embedding_model not in embedders:
        embedders[config.embedding_model] = Embedder(config.embedding_model)
    return embedders[config.embedding_model]


def index_for(
    qset: QuestionSet, config: PipelineConfig, embedders: dict, index_root: str, progress: Progress | None
) -> tuple[Any, Any]:
    """The index this config searches: the set's corpus (cached under ``index_root``) or the collection's."""
    emb = _embedder(config, embedders)
    chunker = make_chunker(config.chunker, **config.chunker_params)
    if qset.documents is not None or qset.beir is not None:
        docs = qset.beir.documents() if qset.beir is not None else qset.documents
        store, _, _ = dataset_index(qset.name, docs, chunker, emb, index_root, progress)
    else:
        store, _ = qset.collection.index(chunker, emb, progress)
    return store, emb


def _aggregate(per_q: dict[str, dict[str, Any]], names: Sequence[str]) -> tuple[dict, dict]:
    """Mean of each metric over the questions it is defined on, and those counts."""
    metrics, counts = {}, {}
    for m in names:
        vals = [v[m] for v in per_q.values() if v.get(m) is not None]
        if vals:
            metrics[m], counts[m] = statistics.fmean(vals), len(vals)
    return metrics, counts


def _fresh_query(embedder: Any) -> None:
    """Configs share an embedder and ask the same question in turn: without this, every config but the
    first would find the query vector cached and look faster than it is."""
    clear = getattr(embedder, "clear_query_cache", None)
    if clear is not None:
        clear()


class BeirRunner:
    """Retrieval only, for one config: every query's chunks aggregated to documents (max), scored
    against the qrels. Built once (index, retriever, warm-up), then stepped query by query."""

    def __init__(
        self,
        qset: QuestionSet,
        config: PipelineConfig,
        embedders: dict,
        index_root: str = "indexes/.eval",
        progress: Progress | None = None,
        depth: int = 300,
    ) -> None:
        assert qset.beir is not None
        self.ds, self.config, self.depth = qset.beir, config, depth
        store, self.emb = index_for(qset, config, embedders, index_root, progress)
        self.retriever = retriever_from_config(config, store, self.emb)
        self.retriever.search("warm up", 1)
        self.run: dict[str, dict[str, float]] = {}
        self.lat: dict[str, float] = {}
        self.conf: dict[str, tuple[float, float, float]] = {}  # qid -> (gauge, raw gauge, evidence in top-k)
        self.conf_cfg = ConfidenceConfig(threshold=config.confidence_threshold)
        self.calibration = (
            CalibrationMap.from_dict(config.confidence_calibration) if config.confidence_calibration else None
        )

    def items(self, limit: int | None) -> list[str]:
        return sorted(self.ds.queries, key=query_order)[: limit or None]

    def step(self, qid: str) -> None:
        _fresh_query(self.emb)
        t = time.perf_counter()
        hits = self.retriever.search(self.ds.queries[qid], self.depth)
        self.lat[qid] = (time.perf_counter() - t) * 1000
        self.run[qid] = max_by_document([(h.chunk.doc_id, h.score) for h in hits], 100)
        # the gauge on the chunks an LLM would get, and whether they hold a relevant document
        top = hits[: self.config.top_k]
        conf = retrieval_confidence(top, self.conf_cfg)
        if self.calibration is not None:
            conf = apply_calibration(conf, self.calibration, self.conf_cfg)
        relevant = {d for d, g in self.ds.qrels.get(qid, {}).items() if g > 0}
        self.conf[qid] = (
            conf.value,
            conf.inputs.get("raw_value", conf.value),
            float(any(h.chunk.doc_id in relevant for h in top)),
        )

    def finish(self) -> ConfigRun:
        qids = list(self.run)
        per_q: dict[str, dict[str, Any]] = per_query_metrics({q: self.ds.qrels[q] for q in qids}, self.run)
        for qid in qids:
            per_q[qid].update(
                question=self.ds.queries[qid],
                intent=classify_intent(self.ds.queries[qid]),
                latency_ms=self.lat[qid],
                top_documents=list(self.run[qid])[:10],
                confidence=self.conf[qid][0],
                confidence_raw=self.conf[qid][1],
                evidence_retrieved=self.conf[qid][2],
            )
        metrics, counts = _aggregate(per_q, BEIR_METRICS)
        calibration = calibration_summary(per_q)
        if calibration is not None:
            calibration["correct_means"] = (
                f"correct = a relevant document is among the top {self.config.top_k} chunks "
                "(what the LLM gets)"
            )
            metrics["ece"] = calibration["ece"]
        lat = latency_summary(list(self.lat.values()))
        return ConfigRun(
            self.config,
            per_q,
            metrics,
            lat,
            calibration,
            stage_latency_ms={"retrieve": lat},
            counts=counts,
            models={"embedding": self.emb.model_id},
        )


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
        api_key: str | None = None,
        judge: Any = None,
        llm: Any = None,
        judge2: Any = None,
        judge_metrics: Sequence[str] = (),
        cite_decide: Any = None,
    ) -> None:
        self.qset, self.config, self.judge = qset, config, judge
        self.judge2, self.judge_metrics, self.cite_decide = judge2, tuple(judge_metrics), cite_decide
        store, self.emb = index_for(qset, config, embedders, index_root, progress)
        if CHECK_MODEL not in embedders:
            embedders[CHECK_MODEL] = Embedder(CHECK_MODEL)
        self.check_emb = embedders[CHECK_MODEL]  # the citation check's own model (its thresholds' scale)
        for j in (judge, judge2):
            if j is not None and hasattr(j, "embedder") and j.embedder is None:
                j.embedder = self.emb  # answer relevancy and correctness use the pipeline's model
        self.pipe = RagPipeline(config, store, self.emb, llm=llm, api_key=api_key)
        self.load_ms = self.pipe.warm_up()  # model loading is not any question's latency
        self.per_q: dict[str, dict[str, Any]] = {}
        self.runs: dict[str, list[str]] = {}  # question -> ranked units (passages or files)
        self.gold_runs: dict[str, list[str]] = {}  # question -> ranked gold-answer hits
        self.asked: list[LabelledQuestion] = []
        self.stage_times: dict[str, list[float]] = {}
        self.tokens = {"prompt": 0, "completion": 0, "reported": 0}

    def items(self, limit: int | None) -> list[LabelledQuestion]:
        return first_questions(self.qset.questions, limit)

    def step(self, q: LabelledQuestion) -> None:
        from ragkit.evaluation.evidence import evidence_precision, evidence_ranking, gold_ranking

        _fresh_query(self.emb)
        ans = self.pipe.ask(q.question)
        answered = not ans.abstained
        row: dict[str, Any] = dict(
            question=q.question,
            intent=classify_intent(q.question),
            answerable=q.answerable,
            status=q.status,
            answer=ans.text,
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
        # retrieval: ragkit's ranking, expanded to labelled passages, or aggregated to relevant files
        if q.evidence:
            row["relevance"] = "passage"
            self.runs[q.qid] = evidence_ranking(chunks, q.evidence)
            row["evidence_precision"] = evidence_precision(chunks, q.evidence)
        elif q.relevant:
            row["relevance"] = "document"
            self.runs[q.qid] = list(
                max_by_document([(c.source, h.score) for c, h in zip(chunks, ans.hits, strict=True)], 100)
            )
        if q.answers:
            self.gold_runs[q.qid] = gold_ranking([c.text for c in chunks], q.answers)
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
        elif q.qid in self.runs:
            rel = {u for u, g in q.qrels().items() if g > 0}
            row["evidence_retrieved"] = float(any(u in rel for u in self.runs[q.qid]))
        elif q.answers:
            row["evidence_retrieved"] = contains_gold(" ".join(c.text for c in chunks), q.answers)
        if answered:
            check = check_answer(ans, self.check_emb, self.cite_decide)
            row["citation_precision"], row["citation_recall"] = check.precision, check.recall
            row["citations_unsupported"] = check.unsupported
        if self.judge is not None and hasattr(self.judge, "judge") and answered:  # the 1-5 grades
            j = self.judge.judge(q.question, [c.text for c in chunks], ans.text)
            row["judge_faithfulness"], row["judge_relevance"] = j.faithfulness, j.relevance
            row["judge_parsed"] = j.parsed
            if not j.parsed:
                row["judge_raw"] = j.raw[:500]
        for prefix, judge in (("", self.judge), ("judge2_", self.judge2)):
            if judge is not None and hasattr(judge, "score"):
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
            if judge is None or not hasattr(judge, "score"):
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
        if self.judge2 is not None and hasattr(self.judge2, "score"):
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
        agreement = self._judge_summary(metrics, counts)
        if judge is not None and hasattr(judge, "judge"):
            judged_q = [v for v in per_q.values() if "judge_parsed" in v]
            metrics["judge_parse_failures"] = float(sum(not v["judge_parsed"] for v in judged_q))
            counts["judge_parse_failures"] = len(judged_q)
        lat = [v["latency_ms"] for v in per_q.values()]
        models = {
            "embedding": self.emb.model_id,
            "llm": f"{config.llm}:{getattr(self.pipe.llm, 'model', '')}",
        }
        if config.rerank:
            models["reranker"] = config.rerank_model
        if judge is not None:
            models["judge"] = judge.model_id
            if hasattr(judge, "prompts_hash"):
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


def first_questions(questions: Sequence[LabelledQuestion], limit: int | None) -> list[LabelledQuestion]:
    """The first ``limit`` questions, keeping the share of questions without evidence: a plain prefix of
    a SQuAD set with a holdout would mostly drop them. Order within each group is kept."""
    if not limit or limit >= len(questions):
        return list(questions)
    absent = [q for q in questions if q.status == "absent"]
    others = [q for q in questions if q.status != "absent"]
    n_absent = min(len(absent), round(limit * len(absent) / len(questions)))
    if absent and n_absent == 0 and limit >= 2:
        n_absent = 1  # a limited run still tests "I don't know" when the set does
    chosen = {id(q) for q in absent[:n_absent]} | {id(q) for q in others[: limit - n_absent]}
    return [q for q in questions if id(q) in chosen]


def run_interleaved(
    runners: Sequence[Any], limit: int | None, progress: Progress | None = None
) -> list[ConfigRun]:
    """Step every runner through the same items, question by question, rotating which config goes first,
    so slow drifts of the machine (thermal, other load, caches) fall on all configs alike and their
    latencies are comparable."""
    items = runners[0].items(limit)
    n = len(runners)
    for i, item in enumerate(items):
        for k in range(n):
            runners[(i + k) % n].step(item)
        if progress:
            progress("questions (all configs, interleaved)", i + 1, len(items))
    return [r.finish() for r in runners]


def evaluate_configs(
    dataset: str | Path | QuestionSet,
    configs: Sequence[PipelineConfig],
    limit: int | None = None,
    index_root: str = "indexes/.eval",
    progress: Progress | None = None,
    *,
    holdout: float = 0.0,
    collection: Any = None,
    api_key: str | None = None,
    judge: Any = None,
    embedders: dict | None = None,
    judge2: Any = None,
    judge_metrics: Sequence[str] = (),
    cite_decide: Any = None,
) -> dict[str, Any]:
    """Run every config over the question set and compare every pair on every per-question metric.

    ``dataset`` is a path (see :func:`load_question_set`) or an already loaded :class:`QuestionSet`.
    ``api_key`` is a Groq key used in memory only. ``judge`` is an
    :class:`~ragkit.evaluation.answer_metrics.AnswerJudge` scoring ``judge_metrics`` (RAGAS-style names and
    ``simpleqa``), or the older 1-5 :class:`~ragkit.evaluation.judge.LLMJudge`; ``judge2`` a second
    AnswerJudge scoring the same metrics, for agreement. ``cite_decide`` replaces the offline citation
    check with an LLM's (see :func:`~ragkit.evaluation.citations_check.llm_support`).
    """
    from ragkit.evaluation.answer_metrics import ALL_METRICS

    unknown = [m for m in judge_metrics if m not in ALL_METRICS]
    if unknown:
        raise RagkitError(f"unknown judge metrics {unknown}; choose from {', '.join(ALL_METRICS)}")
    if judge_metrics and judge is None:
        raise RagkitError("judge metrics need a judge (--judge groq|ollama|openai)")
    if not 1 <= len(configs) <= 5:
        raise RagkitError(f"evaluate 1 to 5 configs at a time, got {len(configs)}")
    names = [c.name for c in configs]
    if len(set(names)) != len(names):
        raise RagkitError(f"config names must differ, got {names}")
    qset = (
        dataset
        if isinstance(dataset, QuestionSet)
        else load_question_set(dataset, collection=collection, holdout=holdout)
    )
    embedders = embedders if embedders is not None else {}
    if qset.kind == "beir":
        runners: list[Any] = [BeirRunner(qset, c, embedders, index_root, progress) for c in configs]
    else:
        runners = [
            QuestionRunner(
                qset,
                c,
                embedders,
                index_root,
                progress,
                api_key=api_key,
                judge=judge,
                judge2=judge2,
                judge_metrics=judge_metrics,
                cite_decide=cite_decide,
            )
            for c in configs
        ]
    runs = run_interleaved(runners, limit, progress)
    metric_names = [m for m in PER_QUESTION_METRICS if any(m in r.counts for r in runs)]
    comparisons = []
    for ra, rb in itertools.combinations(runs, 2):
        for m in metric_names:
            qids = [
                q
                for q in ra.per_question
                if q in rb.per_question
                and ra.per_question[q].get(m) is not None
                and rb.per_question[q].get(m) is not None
            ]
            if not qids:
                continue
            res = compare_paired(
                [ra.per_question[q][m] for q in qids],
                [rb.per_question[q][m] for q in qids],
                higher_is_better=m not in LOWER_IS_BETTER,
            )
            names_ab = (ra.config.name, rb.config.name)
            comparisons.append({"a": names_ab[0], "b": names_ab[1], "metric": m, **res.to_dict(*names_ab)})
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    run_id = uuid.uuid4().hex[:10]  # unique even for two runs of the same set in the same second
    return {
        "run_id": run_id,
        "created_at": created,
        "dataset": qset.source,
        "dataset_name": qset.name,
        "dataset_kind": qset.kind,
        "dataset_hash": qset.hash,
        "level": qset.level,
        "params": {**qset.params, "limit": limit},
        "ragkit_version": __version__,
        "questions": len(runs[0].per_question),
        "question_set": (
            [q.to_list() for q in qset.questions] if qset.kind in ("questions", "labels") else None
        ),
        "metric_names": metric_names,
        "lower_is_better": sorted(LOWER_IS_BETTER),
        "configs": [
            {
                "name": r.config.name,
                "hash": r.config.cache_key(),
                "config": r.config.to_dict(),
                "models": r.models,
                "metrics": r.metrics,
                "counts": r.counts,
                "latency_ms": r.latency_ms,
                "stage_latency_ms": r.stage_latency_ms,
                "tokens": r.tokens,
                "calibration": r.calibration,
                "judge_agreement": r.judge_agreement,
                "per_question": r.per_question,
            }
            for r in runs
        ],
        "comparisons": comparisons,
    }
