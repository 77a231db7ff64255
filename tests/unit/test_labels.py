"""Unit tests of :mod:`ragkit.evaluation.datasets.labels`."""

from __future__ import annotations

import json

from ragkit.core.types import Chunk, Hit, Span
from ragkit.evaluation.datasets.labels import LabelSet, pool_candidates, question_id


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


def test_two_sessions_labelling_at_once_keep_each_others_labels(tmp_path):
    """Each session holds its own LabelSet, read before the other saved: neither save loses a label."""
    path = tmp_path / "labels.jsonl"
    first, second = LabelSet(path), LabelSet(path)
    a = Chunk("c1", "d1", "a.txt", 0, "alpha text", (Span(1, 0, 10),))
    b = Chunk("c2", "d2", "b.txt", 0, "beta text", (Span(1, 0, 9),))
    first.set("Where is alpha?", a, True)
    second.set("Where is beta?", b, True)
    second.set_absent("Is there gamma?", True)
    first.save()
    second.save()
    again = LabelSet(path)
    assert again.for_question("Where is alpha?").relevant and again.for_question("Where is beta?").relevant
    assert again.for_question("Is there gamma?").absent
    assert first.for_question("Where is alpha?").relevant  # the saving set sees the merged file too
    first.set("Where is alpha?", a, False)  # a later judgement of the same passage wins
    first.save()
    assert not LabelSet(path).for_question("Where is alpha?").relevant
