"""The two BM25 engines agree: bm25s (the default) against rank-bm25 (the reference) on a real corpus
(SciFact's 5,183 abstracts and its test queries), and bm25s's saved state is reused, refreshed when
the index changes, and never trusted when damaged."""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field

import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.types import Chunk, Span
from ragkit.retrievers.bm25 import BM25Retriever


@dataclass
class ChunkStore:
    """Just what BM25 reads from an index: the chunks and where the store stands."""

    chunks: list[Chunk]
    generation: int = 0
    changes: int = 0
    path: object = None
    documents: dict = field(default_factory=dict)


def chunk(i: int, text: str) -> Chunk:
    return Chunk(f"c{i}", f"d{i}", f"d{i}.txt", 0, text, (Span(1, 0, len(text)),))


@pytest.fixture(scope="module")
def scifact(evaldata):
    root = evaldata / "scifact"
    with gzip.open(root / "corpus.jsonl.gz", "rt", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    queries = [json.loads(line)["text"] for line in (root / "queries.jsonl").read_text().splitlines()[:150]]
    store = ChunkStore([chunk(i, f"{d.get('title', '')}\n{d['text']}") for i, d in enumerate(docs)])
    return store, queries


def test_bm25s_matches_rank_bm25_on_scifact(scifact):
    store, queries = scifact
    fast = BM25Retriever(store, engine="bm25s")
    ref = BM25Retriever(store, engine="rank_bm25")
    same_top10 = 0
    for q in queries:
        a, b = fast.search(q, 10), ref.search(q, 10)
        # scores equal (bm25s's Lucene scores are the classic ones over k1 + 1; ragkit scales them back)
        sa = {h.chunk_id: h.score for h in a}
        sb = {h.chunk_id: h.score for h in b}
        for cid in sa.keys() & sb.keys():
            assert sa[cid] == pytest.approx(sb[cid], rel=1e-5)
        if [h.chunk_id for h in a] == [h.chunk_id for h in b]:
            same_top10 += 1
            continue
        # a different list is only allowed inside a tie: the 10th score of both lists is the same
        assert a[-1].score == pytest.approx(b[-1].score, rel=1e-5), q
        assert {h.chunk_id for h in a if h.score > a[-1].score * (1 + 1e-5)} == {
            h.chunk_id for h in b if h.score > b[-1].score * (1 + 1e-5)
        }, q
    assert same_top10 >= len(queries) - 3


def test_repeated_and_unknown_query_terms_score_alike():
    store = ChunkStore(
        [chunk(0, "insulin regulates glucose"), chunk(1, "glucose in blood"), chunk(2, "tides")]
    )
    for q in ("glucose glucose insulin", "zzzz unknown", "the of and"):
        a = [(h.chunk_id, round(h.score, 6)) for h in BM25Retriever(store, engine="bm25s").search(q, 5)]
        b = [(h.chunk_id, round(h.score, 6)) for h in BM25Retriever(store, engine="rank_bm25").search(q, 5)]
        assert a == b, q
    with pytest.raises(ConfigError, match="bm25 engine must be one of bm25s, rank_bm25"):
        BM25Retriever(store, engine="lucene")


def test_bm25s_state_is_saved_with_the_index_reused_and_refreshed(tmp_path, fake_embedder):
    from ragkit.index.store import IndexStore
    from tests.conftest import make_doc

    store = IndexStore(tmp_path / "idx", fake_embedder.model_id, fake_embedder.dimension, {"name": "sliding"})
    texts = ["Insulin regulates blood glucose.", "Tides follow the moon.", "Volcanoes erupt lava."]
    for i, t in enumerate(texts):
        doc = make_doc(t, source=f"f{i}.txt", doc_id=f"d{i}")
        c = chunk(i, t)
        c = Chunk(c.chunk_id, doc.doc_id, doc.source, 0, t, c.spans)
        store.add(doc, [c], fake_embedder.embed([t]), {})
    # unsaved changes: searchable, nothing written
    assert BM25Retriever(store).search("lava", 3)[0].chunk.text == texts[2]
    assert not (tmp_path / "idx" / "bm25").exists()
    store.save()
    r = BM25Retriever(store)
    assert r.search("moon", 3)[0].chunk.text == texts[1]
    states = list((tmp_path / "idx" / "bm25").iterdir())
    assert len(states) == 1 and states[0].name.endswith("-g000001")
    assert not any(p.suffix == ".pkl" for p in states[0].iterdir())  # bm25s's npy + json, no pickle
    # a fresh process opening the index loads the state instead of re-analysing every chunk
    reopened = IndexStore.open(tmp_path / "idx")
    r2 = BM25Retriever(reopened)
    r2.analyzer = _Exploding(r2.analyzer)  # only the query may be analysed now
    assert r2.search("moon", 3)[0].chunk.text == texts[1]
    # the index changes: a new state for the new generation, the old one goes
    doc = make_doc("Magma rises through the crust.", source="f9.txt", doc_id="d9")
    reopened.add(
        doc,
        [Chunk("c9", "d9", "f9.txt", 0, doc.pages[0].text, (Span(1, 0, 5),))],
        fake_embedder.embed(["x"]),
        {},
    )
    reopened.save()
    assert BM25Retriever(reopened).search("magma", 3)[0].chunk_id == "c9"
    names = sorted(p.name for p in (tmp_path / "idx" / "bm25").iterdir())
    assert len(names) == 1 and names[0].endswith("-g000002")
    # a damaged state is rebuilt, not trusted
    state = tmp_path / "idx" / "bm25" / names[0]
    (state / "params.index.json").write_text("{not json")
    assert BM25Retriever(IndexStore.open(tmp_path / "idx")).search("magma", 3)[0].chunk_id == "c9"


class _Exploding:
    """An analyzer that refuses to analyse more than one text (the query)."""

    def __init__(self, inner) -> None:
        self.inner, self.calls = inner, 0
        self.stop_words, self.spec = inner.stop_words, inner.spec

    def __call__(self, text: str) -> list[str]:
        self.calls += 1
        assert self.calls == 1, "the corpus was re-analysed although its BM25 state was saved"
        return self.inner(text)


def test_empty_corpus_and_engine_in_config():
    from ragkit.pipeline.config import PipelineConfig

    assert BM25Retriever(ChunkStore([chunk(0, "the of and")])).search("anything", 3) == []
    assert PipelineConfig().bm25_engine == "bm25s"
    assert PipelineConfig(bm25_engine="rank_bm25").cache_key() != PipelineConfig().cache_key()
    with pytest.raises(ConfigError, match="bm25_engine must be one of"):
        PipelineConfig(bm25_engine="elastic")


def test_bm25_set_ups_over_one_in_memory_chunking_analyse_it_once(monkeypatch):
    """A sweep's BM25 set-ups that differ in k1 and b share the analysed corpus of an in-memory store;
    another language analyses again; a store saved on disk keeps its BM25 state instead."""
    from ragkit.core.types import Document, Page
    from ragkit.index.lexical import LexicalStore
    from ragkit.ingestion.chunkers import make_chunker
    from ragkit.retrievers import analyzer as analyzer_module

    docs = [
        Document(
            f"d{i}",
            f"d{i}.txt",
            f"{i}" * 64,
            (Page(1, "Kilns fire clay. " + "Wet clay dries. " * i + "Glazes melt."),),
            "txt",
        )
        for i in range(5)
    ]
    store = LexicalStore(docs, make_chunker("sliding"))
    calls = []
    real = analyzer_module.Analyzer.__call__
    monkeypatch.setattr(
        analyzer_module.Analyzer, "__call__", lambda self, text: calls.append(text) or real(self, text)
    )
    hits = [BM25Retriever(store, k1=k1, b=b).search("kiln clay", 3) for k1, b in ((0.9, 0.4), (1.5, 0.9))]
    assert len(calls) == len(store.chunks) + 2  # the corpus once, then each query
    assert hits[0] and [h.chunk.chunk_id for h in hits[0]] and hits[0][0].score != hits[1][0].score
    BM25Retriever(store, language="german").search("kiln", 3)
    assert len(calls) == 2 * len(store.chunks) + 3
    on_disk = ChunkStore(list(store.chunks), path="/somewhere")  # not cached: its state is saved instead
    before = len(calls)
    BM25Retriever(on_disk, engine="rank_bm25").search("kiln", 3)
    BM25Retriever(on_disk, engine="rank_bm25", k1=2.0).search("kiln", 3)
    assert len(calls) == before + 2 * (len(store.chunks) + 1)


def test_set_ups_over_one_chunking_of_a_corpus_share_its_index(tmp_path, fake_embedder):
    """index_for gives every set-up of a run over one corpus and chunking the same index object: the
    vector-free ones the same in-memory chunks (chunked once), the others the same index opened once;
    another chunking, model or corpus is its own."""
    from ragkit.core.types import Document, Page
    from ragkit.evaluation.datasets.questionsets import QuestionSet
    from ragkit.evaluation.runs.config_run import index_for
    from ragkit.pipeline.config import PipelineConfig

    docs = [Document("a", "a.txt", "a" * 64, (Page(1, "Kilns fire clay. " * 40),), "txt")]
    qset = QuestionSet("mini", "squad", "mini.json", "h1", documents=docs)
    bm25 = PipelineConfig(retriever="bm25", bm25_k1=0.9)
    first, _ = index_for(qset, bm25, {}, str(tmp_path), None, vectors=False)
    again, _ = index_for(
        qset, PipelineConfig(retriever="bm25", bm25_k1=1.5), {}, str(tmp_path), None, vectors=False
    )
    assert again is first and len(first.chunks) > 1
    small = PipelineConfig(retriever="bm25", chunker_params={"size": 100, "overlap": 0})
    other, _ = index_for(qset, small, {}, str(tmp_path), None, vectors=False)
    assert other is not first and len(other.chunks) > len(first.chunks)
    changed = QuestionSet("mini", "squad", "mini.json", "h2", documents=docs[:0])
    assert index_for(changed, bm25, {}, str(tmp_path), None, vectors=False)[0] is not first
    assert not any(tmp_path.iterdir())  # nothing written
    embedders = {PipelineConfig().embedding_model: fake_embedder}
    dense, _ = index_for(qset, PipelineConfig(retriever="dense"), embedders, str(tmp_path), None)
    hybrid, _ = index_for(qset, PipelineConfig(retriever="hybrid"), embedders, str(tmp_path), None)
    assert hybrid is dense and dense is not first and dense.vectors.shape[0] == len(first.chunks)


def test_a_collections_index_is_shared_by_a_runs_set_ups_while_it_is_current(tmp_path, fake_embedder):
    """Set-ups over one chunking of a collection search one index object; once a file is added (by
    another tab: another Collection object), the next set-up gets the index that holds it."""
    from ragkit.evaluation.datasets.questionsets import QuestionSet
    from ragkit.evaluation.runs.config_run import index_for
    from ragkit.index.collections import Collection
    from ragkit.pipeline.config import PipelineConfig

    coll = Collection.create("lab", tmp_path)
    coll.add_files([("a.txt", b"Kilns fire clay at high heat. " * 20), ("b.txt", b"Glazes melt. " * 30)])
    qset = QuestionSet("q", "questions", "q.csv", "h", collection=coll)
    embedders = {PipelineConfig().embedding_model: fake_embedder}
    root = str(tmp_path / "eval")
    dense, _ = index_for(qset, PipelineConfig(retriever="dense"), embedders, root, None)
    hybrid, _ = index_for(qset, PipelineConfig(retriever="hybrid"), embedders, root, None)
    assert hybrid is dense and len(dense.documents) == 2
    Collection("lab", tmp_path).add_files([("c.txt", b"Cones measure heat work. " * 20)])
    fresh = QuestionSet("q", "questions", "q.csv", "h2", collection=Collection("lab", tmp_path))
    later, _ = index_for(fresh, PipelineConfig(retriever="hybrid"), embedders, root, None)
    assert later is not dense and len(later.documents) == 3
