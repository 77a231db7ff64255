"""One config over a question set, stepped question by question: ``BeirRunner`` (retrieval only) and the
per-config result ``ConfigRun``; shared set-up (index, embedders) and aggregation."""

from __future__ import annotations

import statistics
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.evaluation.datasets.loaders import (
    LabelledQuestion,
)
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.metrics.calibration import (
    calibration_offer,
    cross_validated_calibration,
    expected_calibration_error,
    reliability_bins,
    risk_coverage,
)
from ragkit.evaluation.metrics.names import BEIR_METRICS, CALIBRATION_MEANING
from ragkit.evaluation.metrics.retrieval import max_by_document, per_query_metrics
from ragkit.evaluation.runs.beir import dataset_index, latency_summary, query_order
from ragkit.index.embeddings import shared_embedder
from ragkit.index.lexical import TEXT_ONLY, needs_vectors
from ragkit.ingestion.chunkers import make_chunker
from ragkit.ingestion.parsing import ParseSettings
from ragkit.pipeline.calibration import CalibrationMap
from ragkit.pipeline.confidence import ConfidenceConfig, apply_calibration, retrieval_confidence
from ragkit.pipeline.config import PipelineConfig
from ragkit.retrievers import retriever_from_config
from ragkit.retrievers.intent import classify_intent

Progress = Callable[[str, int, int], None]


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
    offer = calibration_offer(raw, corr, "isotonic", 5)
    out["offer"] = {"offered": offer["offered"], "why": offer["why"]}
    if "ece_calibrated" in offer:
        cv = cross_validated_calibration(raw, corr, "isotonic", 5)
        out["cross_validated"] = {k: cv[k] for k in ("method", "folds", "n", "ece_raw", "ece_calibrated")}
        out["cross_validated"]["bins_calibrated"] = cv["bins_calibrated"]
        out["cross_validated"]["improvement_ci"] = offer["improvement_ci"]
    return out


def embedder_key(config: PipelineConfig) -> tuple[str, str]:
    """Where ``embedders`` keeps the config's embedder: by model and backend (they never share vectors)."""
    return config.embedding_model, config.embedding_backend


def embedder_for(config: PipelineConfig, embedders: dict[Any, Any]) -> Any:
    """The config's embedder from ``embedders`` (by model and backend), made and kept there on first use."""
    return shared_embedder(embedders, config.embedding_model, config.embedding_backend)


#: the indexes in use, by (question set, chunker, model or text only, root) for a labelled corpus, by
#: index path for a collection: every set-up of a run over one chunking searches the same index object,
#: chunked (text only) or read from disk once; read-only, gone when no runner holds it (after the run),
#: and a collection's is reused only while it is current (:func:`_current`)
_OPENED: weakref.WeakValueDictionary[tuple[str, str, str, str, str], Any] = weakref.WeakValueDictionary()


def index_for(
    qset: QuestionSet,
    config: PipelineConfig,
    embedders: dict,
    index_root: str,
    progress: Progress | None,
    vectors: bool = True,
) -> tuple[Any, Any]:
    """The index this config searches: the set's corpus (cached under ``index_root``; with
    ``vectors=False`` chunks in memory, nothing embedded) or the collection's (with ``vectors=False`` its
    text-only index, as the app builds for BM25 alone)."""
    emb = embedder_for(config, embedders)
    chunker = make_chunker(config.chunker, **config.chunker_params)
    model = emb if vectors else TEXT_ONLY
    if qset.documents is not None or qset.beir is not None:
        key = (qset.hash, chunker.name, chunker.key(), model.cache_key, str(index_root))
        store = _OPENED.get(key)  # a sweep's set-ups over one chunking search one index
        if store is not None:
            return store, emb
        docs = qset.beir.documents() if qset.beir is not None else qset.documents
        store, _, _ = dataset_index(qset.name, docs, chunker, emb, index_root, progress, vectors=vectors)
    else:
        coll, settings = qset.collection, ParseSettings.of(config)
        key = ("collection", str(coll.index_path(chunker, model, settings)), "", "", "")
        store = _OPENED.get(key)
        if store is not None and _current(store, coll, chunker, model, settings):
            return store, emb
        store, _ = coll.index(chunker, model, progress, settings)
    _OPENED[key] = store
    return store, emb


def _current(store: Any, collection: Any, chunker: Any, model: Any, settings: ParseSettings) -> bool:
    """Whether a collection's index opened earlier is still what is on disk (no other process saved it
    since) and holds exactly the collection's documents (none added or removed since)."""
    try:
        return collection.indexed_generation(chunker, model, settings) == store.generation
    except (OSError, ValueError, KeyError):
        return False


#: bytes per stored vector component (indexes keep float32 vectors whatever the model computed in)
VECTOR_BYTES = 4


def index_bytes(store: Any, vectors: bool) -> int:
    """The size of the index a set-up searches, as a sweep's ceiling reads it: its chunks' text (UTF-8)
    plus, when the index holds vectors, one float32 vector per chunk. BM25 postings and HNSW links are
    not counted (they are rebuilt in memory, not stored)."""
    chunks = store.chunks
    size = sum(len(c.text.encode("utf-8")) for c in chunks)
    if vectors:
        size += len(chunks) * int(store.dimension or 0) * VECTOR_BYTES
    return size


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
        text_only: bool = False,
    ) -> None:
        assert qset.beir is not None
        self.ds, self.config, self.depth = qset.beir, config, depth
        # with text_only, BM25 alone reads no vectors: its corpus is chunked in memory and nothing is
        # embedded; its confidence (which needs query-chunk cosines) is then not computed, and the run
        # says so (a sweep ranking by nDCG asks for this; ``eval run`` keeps the gauge's calibration)
        self.vectors = needs_vectors(config) or not text_only
        store, self.emb = index_for(qset, config, embedders, index_root, progress, self.vectors)
        self.index_bytes = index_bytes(store, self.vectors)
        self.retriever = retriever_from_config(config, store, self.emb if self.vectors else None)
        self.retriever.search("warm up", 1)
        self.run: dict[str, dict[str, float]] = {}
        self.lat: dict[str, float] = {}
        self.conf: dict[str, tuple[float, float, float]] = {}  # qid -> (gauge, raw gauge, evidence in top-k)
        self.conf_cfg = ConfidenceConfig(threshold=config.confidence_threshold)
        cmap = (
            CalibrationMap.from_dict(config.confidence_calibration) if config.confidence_calibration else None
        )
        self.calibration = cmap if cmap is not None and cmap.applies_to(qset.scope) else None

    def items(self, limit: int | None) -> list[str]:
        return sorted(self.ds.queries, key=query_order)[: limit or None]

    def step(self, qid: str) -> None:
        _fresh_query(self.emb)
        t = time.perf_counter()
        hits = self.retriever.search(self.ds.queries[qid], self.depth)
        self.lat[qid] = (time.perf_counter() - t) * 1000
        self.run[qid] = max_by_document([(h.chunk.doc_id, h.score) for h in hits], 100)
        if not self.vectors:
            return
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
            gauge = self.conf.get(qid, (None, None, None))
            per_q[qid].update(
                question=self.ds.queries[qid],
                intent=classify_intent(self.ds.queries[qid]),
                latency_ms=self.lat[qid],
                top_documents=list(self.run[qid])[:10],
                confidence=gauge[0],
                confidence_raw=gauge[1],
                evidence_retrieved=gauge[2],
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
            models={"embedding": self.emb.model_id}
            if self.vectors
            else {"embedding": "none: bm25 alone reads no vectors (confidence not computed)"},
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
