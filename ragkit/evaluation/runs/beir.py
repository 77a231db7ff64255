"""Retrieval evaluation on BEIR datasets: cached dataset index, document-level metrics, latency.

Chunk hits are aggregated to documents by max score (a document is as relevant as its best chunk) and
scored against the qrels. Latency is per query, for the ``search`` call alone (index build excluded).
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.files import atomic_write
from ragkit.core.hashing import config_key
from ragkit.core.types import Document
from ragkit.evaluation.datasets.loaders import BeirDataset
from ragkit.evaluation.metrics.retrieval import max_by_document, mean_metrics, per_query_metrics
from ragkit.index.ingest import ingest_documents, open_or_create
from ragkit.index.lexical import LexicalStore
from ragkit.index.maintenance import copy_index
from ragkit.index.store import IndexStore
from ragkit.ingestion.chunkers import BaseChunker
from ragkit.retrievers.base import Retriever

Progress = Callable[[str, int, int], None]


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def dataset_index_path(
    name: str, documents: list[Document], chunker: BaseChunker, embedder: Any, root: str | Path
) -> Path:
    """Where :func:`dataset_index` keeps the local index of these documents, chunker and model."""
    # a document's title is kept with it (the reader reads it): a titled corpus keys on titles too
    corpus_key = config_key(
        [[d.doc_id, d.sha256, *([d.meta["title"]] if d.meta.get("title") else [])] for d in documents]
    )[:10]
    return Path(root) / (
        f"{_slug(name)}-{chunker.name}-{chunker.key()}-{_slug(embedder.cache_key)}-{corpus_key}"
    )


def dataset_index_cached(path: Path) -> bool:
    """Whether :func:`dataset_index` finds the index at ``path`` built (it opens it, embedding nothing)."""
    return IndexStore.exists(path) and (path / "eval_build.json").is_file()


def dataset_index(
    name: str,
    documents: list[Document],
    chunker: BaseChunker,
    embedder: Any,
    root: str | Path = "indexes/.eval",
    progress: Progress | None = None,
    store: dict[str, Any] | None = None,
    vectors: bool = True,
) -> tuple[Any, float, bool]:
    """An index of ``documents`` for this chunker and model, built once and cached under ``root``
    (``store``: where its vectors live, :func:`ragkit.index.vectorstores.store_spec`; default local files).

    The cache directory is named after the dataset, chunker, model and a hash of the documents'
    contents, so any change to the corpus builds a new index. Returns ``(store, build seconds, whether
    it came from the cache)``; a cached index reports the build time recorded when it was built.
    With ``vectors=False`` (a text-only retriever) the chunks are kept in memory without embedding
    anything (:class:`~ragkit.index.lexical.LexicalStore`).
    """
    if not vectors:
        t = time.perf_counter()
        lexical = LexicalStore(documents, chunker)
        return lexical, time.perf_counter() - t, False
    local = dataset_index_path(name, documents, chunker, embedder, root)
    remote = bool(store) and store.get("kind") != "local"
    path = local.with_name(f"{local.name}-{store['kind']}-{config_key(store)[:6]}") if remote else local
    meta_path = path / "eval_build.json"
    if dataset_index_cached(path):
        meta = json.loads(meta_path.read_text())
        return IndexStore.open(path, model_id=embedder.model_id), float(meta["build_s"]), True
    t = time.perf_counter()
    if remote and IndexStore.exists(local) and not IndexStore.exists(path):
        # the same corpus, chunker and model is indexed locally: copy its vectors, do not embed again
        index = copy_index(local, path, store)
        build_s = time.perf_counter() - t
        meta = {"build_s": build_s, "documents": len(documents), "chunks": len(index.chunks),
                "copied_from": str(local), "ragkit_version": __version__}  # fmt: skip
        atomic_write(meta_path, lambda f: json.dump(meta, f, indent=2))
        return index, build_s, False
    index, chunker = open_or_create(path, embedder, chunker, store)
    report = ingest_documents(index, [(d.source, d) for d in documents], chunker, embedder, progress)
    build_s = time.perf_counter() - t
    meta = {
        "build_s": build_s,
        "documents": len(documents),
        "chunks": len(index.chunks),
        "new_embeddings": report.totals()["new_embeddings"],
        "ragkit_version": __version__,
    }
    atomic_write(meta_path, lambda f: json.dump(meta, f, indent=2))
    return index, build_s, False


def evaluate_retrieval(
    dataset: BeirDataset,
    retriever: Retriever,
    depth: int = 300,
    max_queries: int | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run every test query, aggregate chunks to documents (max), score with ir-measures.

    Args:
        depth: chunks retrieved per query before aggregation (deep enough for Recall@100 on documents).
        max_queries: evaluate only the first N queries (quick checks; full runs leave it None).
    """
    qids = sorted(dataset.queries, key=query_order)[: max_queries or None]
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    for i, qid in enumerate(qids):
        t = time.perf_counter()
        hits = retriever.search(dataset.queries[qid], depth)
        latencies.append((time.perf_counter() - t) * 1000)
        run[qid] = max_by_document([(h.chunk.doc_id, h.score) for h in hits], limit=100)
        if progress:
            progress("query", i + 1, len(qids))
    qrels = {q: dataset.qrels[q] for q in qids}
    per_query = per_query_metrics(qrels, run)
    return {
        "queries": len(qids),
        "metrics": mean_metrics(per_query),
        "per_query": per_query,
        "latency_ms": latency_summary(latencies),
    }


def latency_summary(latencies_ms: list[float]) -> dict[str, float]:
    """The spread of repeated timings, in ms: median, interquartile range (p25, p75), p95 (nearest rank on
    the sorted sample), mean and how many."""
    if not latencies_ms:
        return {"p50": 0.0, "p25": 0.0, "p75": 0.0, "p95": 0.0, "mean": 0.0, "n": 0}
    s = sorted(latencies_ms)
    p95 = s[min(len(s) - 1, max(0, round(0.95 * len(s)) - 1))]
    q1, q3 = (s[0], s[0]) if len(s) < 2 else statistics.quantiles(s, n=4, method="inclusive")[::2]
    return {"p50": statistics.median(s), "p25": q1, "p75": q3, "p95": p95, "mean": statistics.fmean(s),
            "n": len(s)}  # fmt: skip


def query_order(qid: str) -> tuple[int, str]:
    """Sort key for query ids: numeric ids in numeric order, others after them, by text."""
    return (int(qid), qid) if qid.isdigit() else (10**12, qid)


def ann_recall(
    store: Any, embedder: Any, queries: Sequence[str], dense: dict[str, Any], k: int = 10
) -> dict[str, float]:
    """How much of the exact dense top-``k`` an approximate (HNSW) index finds, averaged over queries:
    ``recall@k`` vs ``IndexFlatIP`` on the same vectors, plus both per-query search times (p50 ms)."""
    from ragkit.retrievers.dense import DenseRetriever

    exact = DenseRetriever(store, embedder, index="flat")
    approx = DenseRetriever(store, embedder, **{**dense, "index": "hnsw"})
    exact.warm_up()
    approx.warm_up()
    overlaps, t_exact, t_approx = [], [], []
    for q in queries:
        embedder.embed_query(q)  # the query vector is shared: only the search is timed
        t = time.perf_counter()
        a = {h.chunk_id for h in exact.search(q, k)}
        t_exact.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        b = {h.chunk_id for h in approx.search(q, k)}
        t_approx.append((time.perf_counter() - t) * 1000)
        overlaps.append(len(a & b) / max(len(a), 1))
    return {
        f"ann_recall@{k}": statistics.fmean(overlaps) if overlaps else 0.0,
        "exact_p50_ms": statistics.median(t_exact) if t_exact else 0.0,
        "hnsw_p50_ms": statistics.median(t_approx) if t_approx else 0.0,
    }
