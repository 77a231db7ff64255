"""Question-set parsing, UI labels (pooling, persistence, cross-chunker judging),
and the pure report functions (Pareto front, intent slices, warnings, CSV)."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from ragkit.core.errors import RagkitError
from ragkit.core.types import Chunk, Hit, Span
from ragkit.evaluation.datasets import parse_question_file
from ragkit.evaluation.evidence import (
    covers,
    evidence_precision,
    evidence_ranking,
    gold_ranking,
    locate_quote,
    merge_passages,
)
from ragkit.evaluation.labels import LabelSet, pool_candidates, question_id
from ragkit.evaluation.metrics import max_by_document, per_query_metrics
from ragkit.evaluation.report import (
    intent_slices,
    markdown_report,
    pareto_front,
    per_question_csv,
    per_question_rows,
    warnings,
)

# ------------------------------------------------------------------ question files


def test_csv_question_set_with_lists_and_unanswerable():
    text = (
        "question,gold_answer,relevant_sources\n"
        "Who wrote it?,Sholes | C. Sholes,a.pdf; b.pdf\n"
        "What is absent?,,\n"
    )
    qs = parse_question_file(text, "set.csv")
    assert [q.qid for q in qs] == ["q0001", "q0002"]
    assert qs[0].answers == ("Sholes", "C. Sholes") and qs[0].qrels() == {"a.pdf": 1, "b.pdf": 1}
    assert qs[0].answerable and not qs[1].answerable


def test_jsonl_question_set_accepts_lists_and_ids():
    lines = [
        {"id": "x1", "question": "Q one?", "gold_answer": ["A", "B"], "relevant_sources": ["a.txt"]},
        {"question": "Q two?", "gold_answer": "C"},
    ]
    qs = parse_question_file("\n".join(json.dumps(x) for x in lines) + "\n\n", "set.jsonl")
    assert qs[0].qid == "x1" and qs[0].answers == ("A", "B") and qs[1].answers == ("C",)
    assert qs[1].answerable and not qs[1].relevant


@pytest.mark.parametrize(
    "text, name, message",
    [
        ("query,answer\nx,y\n", "s.csv", "s.csv: no 'question' column (found: query, answer)"),
        ("question\n\n", "s.csv", "s.csv: no questions found"),
        ("question,gold_answer\n ,y\n", "s.csv", "s.csv: line 2 has no question"),
        ('{"question": "a"}\n{oops\n', "s.jsonl", "s.jsonl: line 2 is not valid JSON"),
        ('["a"]\n', "s.jsonl", "s.jsonl: line 1 is not a JSON object"),
        ('{"id": 1, "question": "a"}\n{"id": 1, "question": "b"}\n', "s.jsonl", "repeats the id '1'"),
        ("question\nx\n", "s.xlsx", "s.xlsx: question sets are .csv or .jsonl"),
    ],
)
def test_bad_question_files_name_file_and_cause(text, name, message):
    with pytest.raises(RagkitError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_question_file(text, name)


# ------------------------------------------------------------------ labels


def chunk(cid: str, source: str, page: int, start: int, end: int) -> Chunk:
    return Chunk(cid, "d-" + source, source, 0, "x" * (end - start), (Span(page, start, end),))


def hits(*chunks: Chunk) -> list[Hit]:
    return [Hit(c, i + 1, 1.0 / (i + 1), "dense") for i, c in enumerate(chunks)]


def test_pool_is_the_union_in_an_order_independent_of_the_configs():
    c1, c2, c3 = (
        chunk("c1", "a.txt", 1, 0, 100),
        chunk("c2", "a.txt", 1, 100, 200),
        chunk("c3", "b.txt", 1, 0, 50),
    )
    ab = pool_candidates("q?", [hits(c1, c2), hits(c3, c1)])
    ba = pool_candidates("q?", [hits(c3, c1), hits(c2, c1)])
    assert [c.chunk_id for c in ab] == [c.chunk_id for c in ba]  # neither config's ranking leaks in
    assert sorted(c.chunk_id for c in ab) == ["c1", "c2", "c3"]
    orders = {
        tuple(c.chunk_id for c in pool_candidates(f"question {i}", [hits(c1, c2, c3)])) for i in range(20)
    }
    assert len(orders) > 1  # the order is not simply A's rank order or sorted ids


def test_labels_persist_latest_wins_and_become_passages(tmp_path):
    path = tmp_path / "labels.jsonl"
    ls = LabelSet(path)
    c1, c2 = chunk("c1", "a.txt", 1, 0, 100), chunk("c2", "a.txt", 1, 100, 200)
    ls.set("Who?", c1, True)
    ls.set("Who?", c2, True)
    ls.set("who? ", c2, False)  # same question (case/space), latest label wins
    ls.set("Nothing here?", c1, False)
    ls.save()
    again = LabelSet(path)
    assert len(again) == 3
    qs = {q.question: q for q in again.questions()}
    who = qs["Who?"]
    assert who.qid == question_id("WHO?") and [(e.source, e.spans) for e in who.evidence] == [
        ("a.txt", ((1, 0, 100),))
    ]
    # every candidate judged not relevant is not "no evidence": the question stays unlabelled until the
    # user says so explicitly
    assert qs["Nothing here?"].status == "unlabelled" and again.counts() == {
        "evidence": 1,
        "absent": 0,
        "unlabelled": 1,
    }
    again.set_absent("Nothing here?")
    again.save()
    assert {q.question: q.status for q in LabelSet(path).questions()}["Nothing here?"] == "absent"
    assert not list(tmp_path.glob("*.tmp*"))


def test_chunk_labels_of_the_first_format_are_read_as_passages_and_rewritten(tmp_path):
    path = tmp_path / "labels.jsonl"
    old = {"qid": question_id("Who?"), "question": "Who?", "chunk_id": "doc-abc-00003", "source": "a.pdf",
           "spans": [[2, 10, 510]], "relevant": True, "at": "2026-01-01T00:00:00+00:00"}  # fmt: skip
    path.write_text(json.dumps(old) + "\n")
    ls = LabelSet(path)
    assert ls.migrated == 1
    (q,) = ls.questions()
    assert [(e.source, e.spans) for e in q.evidence] == [("a.pdf", ((2, 10, 510),))]
    ls.save()
    line = json.loads(path.read_text())
    assert line["v"] == 2 and line["kind"] == "passage" and line["chunk_id"] == "doc-abc-00003"


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


# ------------------------------------------------------------------ report functions


def test_pareto_front():
    pts = [("fast-bad", 10, 0.5), ("slow-good", 100, 0.9), ("dominated", 120, 0.8), ("mid", 50, 0.7)]
    assert pareto_front(pts) == ["fast-bad", "slow-good", "mid"]
    assert pareto_front([("a", 10, 0.5), ("b", 10, 0.5)]) == ["a", "b"]  # equal points dominate neither
    assert pareto_front([("a", 10, 0.5), ("b", 10, 0.6)]) == ["b"]


def fake_result(n: int = 4) -> dict:
    intents = ["FACT", "FACT", "CONCEPT", "COMPARISON"]

    def pq(vals):
        return {
            f"q{i}": {"question": f"question {i}", "intent": intents[i % 4], "f1": v, "latency_ms": 1.0}
            for i, v in enumerate(vals)
        }

    a = [0.0, 0.5, 1.0, 0.0][:n]
    b = [1.0, 0.5, 0.0, 0.0][:n]
    return {
        "dataset": "x.json",
        "dataset_kind": "squad",
        "dataset_hash": "0" * 64,
        "ragkit_version": "0",
        "questions": n,
        "metric_names": ["f1"],
        "lower_is_better": [],
        "configs": [
            {
                "name": n_,
                "hash": "h" * 12,
                "metrics": {"f1": sum(v) / n},
                "latency_ms": {"p50": lat, "p95": lat},
                "per_question": pq(v),
            }
            for n_, v, lat in (("A", a, 5.0), ("B", b, 9.0))
        ],
        "comparisons": [
            {
                "a": "A",
                "b": "B",
                "metric": "f1",
                "n": n,
                "diff": 0.0,
                "ci_low": -0.5,
                "ci_high": 0.5,
                "p_value": 1.0,
                "test": "sign test",
                "significant": False,
                "too_small": True,
                "differing": 2,
                "verdict": "too few questions differ to tell (2 of 4); not significant",
            }
        ],
    }


def test_intent_slices_name_the_winner_per_intent():
    rows = {r["intent"]: r for r in intent_slices(fake_result(), "f1")}
    assert rows["FACT"]["A"] == 0.25 and rows["FACT"]["B"] == 0.75 and rows["FACT"]["best"] == "B"
    assert rows["CONCEPT"]["best"] == "A" and rows["COMPARISON"]["best"] == "tie"
    assert rows["FACT"]["questions"] == 2


def test_warnings_and_markdown_say_too_small_plainly():
    r = fake_result()
    w = warnings(r)
    assert any("Only 4 questions" in x for x in w) and any("Too few questions differ" in x for x in w)
    md = markdown_report(r)
    assert "**Warning:**" in md and "not significant" in md and "| FACT | 2 |" in md
    assert "Pareto front (p50 latency vs f1): A\n" in md  # same mean f1, B slower: dominated


def test_per_question_csv_round_trips():
    r = fake_result()
    rows = list(csv.DictReader(io.StringIO(per_question_csv(r))))
    assert len(rows) == 4 and rows[0]["A: f1"] == "0.0" and rows[0]["B: f1"] == "1.0"
    assert [x["id"] for x in rows] == [x["id"] for x in per_question_rows(r)]


def test_configs_are_interleaved_question_by_question_with_rotating_order():
    from ragkit.evaluation.runner import run_interleaved

    calls: list[tuple[str, int]] = []

    class Fake:
        def __init__(self, name):
            self.name = name

        def items(self, limit):
            return list(range(6))[: limit or None]

        def step(self, item):
            calls.append((self.name, item))

        def finish(self):
            return [i for n, i in calls if n == self.name]

    done = run_interleaved([Fake("a"), Fake("b"), Fake("c")], limit=4)
    assert done == [[0, 1, 2, 3]] * 3
    firsts = [calls[3 * i][0] for i in range(4)]
    assert firsts == ["a", "b", "c", "a"]  # who goes first rotates
    assert [i for _, i in calls] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]  # same question for all, then next
