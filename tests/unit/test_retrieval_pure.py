"""Pure retrieval pieces: RRF arithmetic, intent rules, confidence properties, metric aggregation."""

from __future__ import annotations

import random

import pytest

from ragkit.core.types import Chunk, Hit, Span
from ragkit.evaluation.metrics import max_by_document, mean_metrics, per_query_metrics
from ragkit.evaluation.retrieval import latency_summary
from ragkit.pipeline.confidence import ConfidenceConfig, retrieval_confidence
from ragkit.retrievers.fusion import reciprocal_rank_fusion
from ragkit.retrievers.intent import COMPARISON, CONCEPT, FACT, classify_intent


def test_rrf_by_hand():
    fused = reciprocal_rank_fusion({"bm25": ["a", "b", "c"], "dense": ["c", "a"]}, k=60)
    expected = {
        "a": 1 / 61 + 1 / 62,
        "b": 1 / 62,
        "c": 1 / 63 + 1 / 61,
    }
    assert [d for d, _ in fused] == ["a", "c", "b"]
    for d, s in fused:
        assert s == pytest.approx(expected[d], abs=1e-15)


def test_rrf_weights_and_k():
    fused = dict(
        reciprocal_rank_fusion(
            {"bm25": ["a", "b"], "dense": ["b", "a"]}, weights={"bm25": 0.8, "dense": 0.2}, k=10
        )
    )
    assert fused["a"] == pytest.approx(0.8 / 11 + 0.2 / 12)
    assert fused["b"] == pytest.approx(0.8 / 12 + 0.2 / 11)
    assert fused["a"] > fused["b"]
    zero = dict(reciprocal_rank_fusion({"x": ["a"], "y": ["b"]}, weights={"x": 0.0, "y": 1.0}))
    assert zero["a"] == 0.0 and zero["b"] > 0


def test_rrf_ties_are_deterministic():
    fused = reciprocal_rank_fusion({"x": ["b", "a"], "y": ["a", "b"]})
    assert fused[0][1] == fused[1][1]
    assert [d for d, _ in fused] == ["a", "b"]  # same score, same best rank: by id


def test_rrf_rejects_negative_k():
    with pytest.raises(ValueError):
        reciprocal_rank_fusion({"x": ["a"]}, k=-1)


@pytest.mark.parametrize(
    "query, intent",
    [
        ("Who patented the typewriter, and when?", FACT),
        ("How many parameters does the model have?", FACT),
        ("What year was S2ORC released?", FACT),
        ("Why does reciprocal rank fusion work?", CONCEPT),
        ("How does dense retrieval handle paraphrases?", CONCEPT),
        ("What is retrieval augmented generation?", CONCEPT),
        ("Explain the role of the cross-encoder", CONCEPT),
        ("Compare BM25 and dense retrieval", COMPARISON),
        ("BM25 vs dense: which is better?", COMPARISON),
        ("What is the difference between recall and precision?", COMPARISON),
        ("Is hybrid retrieval more accurate than BM25?", COMPARISON),
        ("typewriter patent", FACT),
    ],
)
def test_intent_rules(query, intent):
    assert classify_intent(query) == intent


def hit(rank, doc="d1", cosine=None, scores=None, ranks=None):
    chunk = Chunk(f"{doc}-c{rank}", doc, f"{doc}.pdf", rank, "text", (Span(1, 0, 4),))
    scores = scores or {}
    return Hit(chunk, rank, scores.get("x", 0.0), "dense", scores, ranks or {"dense": rank}, cosine)


def test_confidence_empty_is_zero_and_abstains():
    c = retrieval_confidence([])
    assert c.value == 0 and c.band == "low" and c.abstain
    assert "nothing was retrieved" in c.reason


def test_confidence_strong_vs_weak_and_bands():
    strong = retrieval_confidence([hit(1, cosine=0.8), hit(2, cosine=0.7), hit(3, cosine=0.65)])
    weak = retrieval_confidence([hit(1, cosine=0.1), hit(2, cosine=0.05), hit(3, cosine=0.0)])
    assert strong.band == "high" and not strong.abstain
    assert weak.band == "low" and weak.abstain and "below the threshold" in weak.reason
    assert 0 <= weak.value < strong.value <= 1
    assert strong.inputs["basis"] == "cosine" and strong.inputs["top_signal"] == 0.8


def test_confidence_prefers_rerank_scores():
    c = retrieval_confidence([hit(1, cosine=0.1, scores={"rerank": 6.0}, ranks={"rerank": 1, "rrf": 1})])
    assert c.inputs["basis"] == "rerank" and c.value > 0.7


@pytest.mark.parametrize("seed", range(25))
def test_confidence_is_monotone_in_scores(seed):
    rng = random.Random(seed)
    cos = sorted((rng.uniform(-0.2, 0.9) for _ in range(5)), reverse=True)
    docs = [rng.choice("ab") for _ in cos]
    hits = [hit(i + 1, docs[i], cosine=c) for i, c in enumerate(cos)]
    base = retrieval_confidence(hits).value
    bump = rng.uniform(0.0, 0.3)
    stronger = [hit(i + 1, docs[i], cosine=c + bump) for i, c in enumerate(cos)]
    assert retrieval_confidence(stronger).value >= base
    # raising one hit's score (keeping the order) never lowers it either
    j = rng.randrange(len(cos))
    ceiling = cos[j - 1] if j > 0 else 1.0
    one = [hit(i + 1, docs[i], cosine=(ceiling if i == j else c)) for i, c in enumerate(cos)]
    assert retrieval_confidence(one).value >= base


def test_confidence_agreement_raises_it():
    same = [hit(1, "a", 0.5), hit(2, "a", 0.5), hit(3, "a", 0.5)]
    mixed = [hit(1, "a", 0.5), hit(2, "b", 0.5), hit(3, "c", 0.5)]
    assert retrieval_confidence(same).value > retrieval_confidence(mixed).value
    agree = hit(1, "a", 0.5, ranks={"rrf": 1, "bm25": 1, "dense": 2})
    disagree = hit(1, "a", 0.5, ranks={"rrf": 1, "bm25": 1, "dense": 40})
    assert retrieval_confidence([agree]).value > retrieval_confidence([disagree]).value


def test_confidence_threshold_config():
    hits = [hit(1, cosine=0.35)]
    assert retrieval_confidence(hits, ConfidenceConfig(threshold=0.0)).abstain is False
    assert retrieval_confidence(hits, ConfidenceConfig(threshold=1.0)).abstain is True


def test_max_by_document():
    run = max_by_document([("d1", 0.2), ("d2", 0.9), ("d1", 0.95), ("d3", 0.1)], limit=2)
    assert run == {"d1": 0.95, "d2": 0.9}


def test_metrics_count_every_query():
    qrels = {"q1": {"d1": 1}, "q2": {"d5": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d4": 3.0, "d5": 2.0}}  # q3 retrieved nothing
    per = per_query_metrics(qrels, run)
    assert per["q1"]["mrr@10"] == 1.0 and per["q2"]["mrr@10"] == 0.5 and per["q3"]["mrr@10"] == 0.0
    assert per["q2"]["ndcg@10"] == pytest.approx(1 / 1.5849625, rel=1e-6)  # 1/log2(3)
    assert mean_metrics(per)["mrr@10"] == pytest.approx(0.5)
    assert mean_metrics(per)["recall@10"] == pytest.approx(2 / 3)


def test_latency_summary():
    s = latency_summary([float(x) for x in range(1, 101)])
    assert s["p50"] == 50.5 and s["p95"] == 95.0


def test_answer_metrics():
    from ragkit.evaluation.answers import contains_gold, exact_match, normalize_answer, token_f1

    assert normalize_answer("The  Eiffel Tower! [1]") == "eiffel tower"
    assert exact_match("the Eiffel tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    assert token_f1("Eiffel", ["Eiffel Tower"]) == pytest.approx(2 / 3)
    assert token_f1("completely wrong", ["Eiffel Tower", "tower"]) == 0.0
    assert contains_gold("It was built in 1889 [2].", ["1889"]) == 1.0
    assert contains_gold("It was built in 18890.", ["1889"]) == 0.0  # word boundaries
    assert contains_gold("anything", [""]) == 0.0


def test_overlap_measures():
    from ragkit.app.compare import jaccard, rank_biased_overlap

    a = ["a", "b", "c", "d", "e"]
    assert jaccard(a, a) == 1.0 and jaccard(a, ["x"]) == 0.0 and jaccard(["a", "b"], ["b", "c"]) == 1 / 3
    assert rank_biased_overlap(a, a) == pytest.approx(1.0)
    assert rank_biased_overlap(a, ["v", "w", "x", "y", "z"]) == pytest.approx(0.0)
    assert rank_biased_overlap(a, ["x", *a[1:]]) == pytest.approx(rank_biased_overlap(["x", *a[1:]], a))
    top_swap = ["b", "a", "c", "d", "e"]
    bottom_swap = ["a", "b", "c", "e", "d"]
    assert rank_biased_overlap(a, bottom_swap) > rank_biased_overlap(a, top_swap)  # top-weighted
    assert rank_biased_overlap(a, top_swap) < 1.0
    # uneven lengths: a prefix of the other list agrees fully on what it has
    assert rank_biased_overlap(a[:3], a) == pytest.approx(1.0)
    # by hand, p = 0.5, S = [a], L = [b, a]: X1 = 0, X2 = 1 (all of S seen)
    # RBO_ext = (1-p)/p * [0 + (1/2) p^2 + X_s (2-1)/(1*2) p^2] + [(1-0)/2 + 0/1] p^2, X_s = X_1 = 0
    assert rank_biased_overlap(["a"], ["b", "a"], p=0.5) == pytest.approx(0.5 * 0.25 / 1 + 0.5 * 0.25)


def _hit(cid: str, source: str, start: int, end: int, rank: int) -> Hit:
    from ragkit.core.types import Chunk, Span

    chunk = Chunk(cid, "d", source, 0, "x" * (end - start), (Span(1, start, end),))
    return Hit(chunk, rank, 1 / rank, "dense")


def test_compare_overlap_is_measured_by_content_across_chunkers():
    from ragkit.app.compare import compare_hits

    # A: 500-character windows; B: 3-sentence chunks of the same page (different ids, same text)
    a = [_hit("d-aaaa-00001", "p.pdf", 500, 1000, 1), _hit("d-aaaa-00007", "p.pdf", 3000, 3500, 2)]
    b = [
        _hit("d-bbbb-00020", "p.pdf", 3100, 3300, 1),  # inside A's 2nd window
        _hit("d-bbbb-00003", "p.pdf", 600, 800, 2),  # inside A's 1st window
        _hit("d-bbbb-00009", "q.pdf", 600, 800, 3),  # same offsets, another file: not the same passage
    ]
    cmp = compare_hits(a, b)
    assert cmp.by == "content"
    assert cmp.pairs == {"d-aaaa-00001": "d-bbbb-00003", "d-aaaa-00007": "d-bbbb-00020"}
    assert len(cmp.shared) == 2 and cmp.only_b == ("d-bbbb-00009",)
    assert cmp.jaccard == pytest.approx(2 / 3)  # 2 shared of |A ∪ B| = 2 + 3 - 2
    assert cmp.rbo > 0
    assert cmp.shift("d-aaaa-00001") == -1 and cmp.shift("d-bbbb-00020") == 1  # A #1 -> B #2; A #2 -> B #1
    # a hit that only grazes another (less than half of either) is not the same passage
    grazing = compare_hits([_hit("x-k1-1", "p.pdf", 0, 500, 1)], [_hit("x-k2-1", "p.pdf", 400, 900, 1)])
    assert grazing.shared == ()


def test_compare_overlap_by_id_for_the_same_chunker():
    from ragkit.app.compare import compare_hits

    a = [_hit("d-kkkk-00001", "p.pdf", 0, 100, 1), _hit("d-kkkk-00002", "p.pdf", 100, 200, 2)]
    b = [_hit("d-kkkk-00002", "p.pdf", 100, 200, 1)]
    cmp = compare_hits(a, b)
    assert cmp.by == "id" and cmp.shared == ("d-kkkk-00002",) and cmp.jaccard == 0.5


def test_batch_summary_leaves_cached_answers_out_of_latency():
    from ragkit.app.compare import batch_summary

    rows = [
        {"A confidence": 0.5, "B confidence": 0.5, "A abstained": False, "B abstained": False, "jaccard": 1,
         "rbo": 1, "A latency ms": ms_a, "B latency ms": 900.0, "A cached": cached, "B cached": ""}
        for ms_a, cached in ((20.0, "embed_query"), (800.0, ""), (1000.0, ""))
    ]  # fmt: skip
    s = batch_summary(rows)
    assert s["A median latency ms"] == 900.0  # the 20 ms cached answer is not a sample
    assert s["latency samples left out (cached)"] == 1
