"""Unit tests of :mod:`ragkit.evaluation.datasets.evidence`."""

from __future__ import annotations

import math

import pytest

from ragkit.core.types import Chunk, Span
from ragkit.evaluation.datasets.evidence import (
    covers,
    evidence_precision,
    evidence_ranking,
    gold_ranking,
    locate_quote,
    merge_passages,
)
from ragkit.evaluation.metrics.retrieval import max_by_document, per_query_metrics


def chunk(cid: str, source: str, page: int, start: int, end: int) -> Chunk:
    return Chunk(cid, "d-" + source, source, 0, "x" * (end - start), (Span(page, start, end),))


def test_the_coverage_rule_judges_chunks_of_any_chunker():
    unit = merge_passages([("a.txt", [(2, 100, 300)])])[0]
    inside = chunk("w-7", "a.txt", 2, 120, 280)  # entirely inside the passage: 100 % of the chunk
    around = chunk("w-1", "a.txt", 2, 0, 2000)  # holds the whole passage: 100 % of the evidence
    half = chunk("w-8", "a.txt", 2, 250, 350)  # 50 of its 100 characters inside: exactly half counts
    mostly_out = chunk("w-9", "a.txt", 2, 280, 400)  # 20 of 120 inside, 10 % of the evidence
    other_page = chunk("w-10", "a.txt", 3, 120, 280)
    other_file = chunk("w-11", "b.txt", 2, 120, 280)
    assert all(covers(c, unit) for c in (inside, around, half))
    assert not any(covers(c, unit) for c in (mostly_out, other_page, other_file))


def test_overlapping_passages_merge_into_one_unit():
    units = merge_passages(
        [("a", [(1, 0, 500)]), ("a", [(1, 400, 900)]), ("a", [(1, 950, 990)]), ("b", [(1, 0, 9)])]
    )
    assert [(u.unit_id, u.source, u.spans) for u in units] == [
        ("e1", "a", ((1, 0, 900),)),
        ("e2", "a", ((1, 950, 990),)),
        ("e3", "b", ((1, 0, 9),)),
    ]


def test_two_chunkers_over_the_same_passages_get_their_own_correct_ndcg():
    """Worked by hand. One page; evidence E1 = [100, 200), E2 = [400, 450).

    A (100-character windows) ranks [A4=[400,500), A1=[100,200)]: A4 covers E2 (all 50 of its characters),
    A1 covers E1 -> relevant at ranks 1, 2 -> nDCG@10 = 1, MRR = 1, R@10 = 1.
    B (50-character sentences) ranks [B3=[150,200), B0=[0,50), B8=[400,450)]: B3 covers E1 (half of E1, all
    of B3) -> E1 @1, B0 nothing @2, B8 covers E2 @3 -> DCG = 1 + 1/log2(4) = 1.5, IDCG = 1 + 1/log2(3),
    nDCG@10 = 1.5 / 1.6309 = 0.9197, MRR = 1.
    C ranks [B4=[200,250), B2=[100,150), B3]: B2 covers E1 @2, B3 covers E1 again (a duplicate, not
    relevant) -> nDCG = (1/log2 3) / 1.6309 = 0.3869, MRR = 0.5, R@10 = 0.5.
    A single 500-character chunk covers both units: they count at ranks 1 and 2 -> nDCG = 1.
    """
    units = merge_passages([("p.txt", [(1, 100, 200)]), ("p.txt", [(1, 400, 450)])])
    qrels = {"q": {u.unit_id: 1 for u in units}}
    a = [chunk(f"A{i}", "p.txt", 1, 100 * i, 100 * i + 100) for i in range(5)]
    b = [chunk(f"B{i}", "p.txt", 1, 50 * i, 50 * i + 50) for i in range(10)]
    whole = chunk("W", "p.txt", 1, 0, 500)

    def scores(chunks):
        return per_query_metrics(
            qrels, {"q": evidence_ranking(chunks, units)}, ("ndcg@10", "mrr@10", "recall@10")
        )["q"]

    assert scores([a[4], a[1]]) == {"ndcg@10": 1.0, "mrr@10": 1.0, "recall@10": 1.0}
    sb = scores([b[3], b[0], b[8]])
    assert sb["ndcg@10"] == pytest.approx(1.5 / (1 + 1 / math.log2(3))) and sb["mrr@10"] == 1.0
    sc = scores([b[4], b[2], b[3]])
    assert sc["ndcg@10"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert sc["mrr@10"] == 0.5 and sc["recall@10"] == 0.5
    assert scores([whole]) == {"ndcg@10": 1.0, "mrr@10": 1.0, "recall@10": 1.0}
    # the share of what was retrieved that is evidence tells the precise chunker from the big one
    assert evidence_precision([whole], units) == pytest.approx(150 / 500)
    assert evidence_precision([b[3], b[8]], units) == 1.0


def test_tied_scores_get_one_ranking_for_every_metric():
    # the reproduction: d1 and d2 tie; ragkit returned d1 first
    assert per_query_metrics({"q": {"d1": 1}}, {"q": {"d1": 0.5, "d2": 0.5}}) == {
        "q": {"ndcg@10": 1.0, "recall@10": 1.0, "recall@100": 1.0, "mrr@10": 1.0}
    }
    # and d2 first: every metric sees d1 at rank 2 (nDCG 1/log2(3), MRR 1/2), none reorders the tie
    got = per_query_metrics({"q": {"d1": 1}}, {"q": {"d2": 0.5, "d1": 0.5}})["q"]
    assert got["ndcg@10"] == pytest.approx(1 / math.log2(3)) and got["mrr@10"] == 0.5
    assert per_query_metrics({"q": {"d1": 1}}, {"q": ["d2", "d1"]})["q"] == got
    # aggregation to documents keeps ragkit's order among equal best scores
    assert list(max_by_document([("z", 0.5), ("a", 0.5), ("z", 0.4)])) == ["z", "a"]


def test_gold_answer_passages_rank_the_first_hit_holding_the_answer():
    texts = ["nothing here", "The typewriter was patented in 1868.", "1868 again"]
    assert gold_ranking(texts, ["1868"]) == ["_n1", "gold", "_n3"]
    got = per_query_metrics({"q": {"gold": 1}}, {"q": gold_ranking(texts, ["1868"])}, ("mrr@10",))
    assert got["q"]["mrr@10"] == 0.5


def test_quotes_are_located_whitespace_and_case_insensitively():
    from ragkit.core.types import Document, Page

    doc = Document(
        "d", "a.pdf", "s", (Page(1, "x"), Page(2, "The   TYPEWRITER was\npatented in 1868.")), "pdf"
    )
    ((src, spans),) = locate_quote("typewriter was patented", [doc])
    page, start, end = spans[0]
    assert src == "a.pdf" and page == 2 and doc.pages[1].text[start:end] == "TYPEWRITER was\npatented"
    assert locate_quote("not there at all", [doc]) == []
