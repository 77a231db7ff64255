"""Unit tests of :mod:`ragkit.app.compare`."""

from __future__ import annotations

import pytest

from ragkit.core.types import Chunk, Hit, Span


def _hit(cid: str, source: str, start: int, end: int, rank: int) -> Hit:

    chunk = Chunk(cid, "d", source, 0, "x" * (end - start), (Span(1, start, end),))
    return Hit(chunk, rank, 1 / rank, "dense")


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


def test_batch_files_carry_gold_answers_and_fill_in_the_better_column():
    from types import SimpleNamespace

    from ragkit.app.compare import QuestionComparison, compare_hits, parse_batch

    csv_text = 'question,gold_answer\n"Who patented it?",Sholes|C. L. Sholes\n"Where is it?",\n'
    assert parse_batch(csv_text, "b.csv") == [
        ("Who patented it?", ("Sholes", "C. L. Sholes")),
        ("Where is it?", ()),
    ]
    assert parse_batch("problem,answer,metadata\nWho?,Ada,{}\n", "simple_qa.csv") == [("Who?", ("Ada",))]
    assert parse_batch("# a comment\nWho?\n\nWhen?\n") == [("Who?", ()), ("When?", ())]

    def ans(text, abstained=False):
        return SimpleNamespace(text=text, abstained=abstained, hits=[])

    def verdict(a, b, gold=("Sholes",)):
        return QuestionComparison("q", a, b, compare_hits([], []), gold).gold_verdict()

    assert verdict(ans("Sholes patented it [1]."), ans("Remington did.")) == "A"
    assert verdict(ans("I don't know."), ans("It was Sholes [2].")) == "B"
    assert verdict(ans("Sholes", abstained=True), ans("Remington")) == "tie"  # an abstention holds nothing
    assert verdict(ans("Sholes."), ans("sholes")) == "tie"
    assert verdict(ans("Sholes."), ans("x"), gold=()) == ""  # no gold: judged by hand
