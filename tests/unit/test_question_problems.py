"""A question file with some bad rows runs its good rows: every quote not found is listed at once with
the nearest passage and how it differs, a follow-up names the question it continues."""

from __future__ import annotations

import pytest

from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.loaders import parse_question_file
from ragkit.evaluation.datasets.nearest import nearest_passage, why_not
from ragkit.evaluation.datasets.questionsets import collection_question_set
from tests.conftest import make_doc

PAGE = (
    "The centrifuge was serviced on Monday. The ultra-high-speed rotor spins at 48,000 rpm and is "
    "checked every month. Samples are stored in the cold room at 4 °C."
)


class Collection:
    name = "lab"

    def documents(self):
        return [make_doc(PAGE, source="lab.txt"), make_doc("An unrelated page about birds.", source="b.txt")]


FILE = """question,gold_answer,relevant_sources,evidence,follows
How fast does the rotor spin?,"48,000 rpm",lab.txt,"The ultra high speed rotor spins at 48,000 rpm",
And how often is it checked?,every month,lab.txt,the rotor is checked every week,1
Where are samples stored?,cold room,lab.txt,Samples are stored in the cold room,
What about birds?,,nowhere.txt,,
"""


def test_good_rows_run_and_every_bad_row_is_listed_with_its_nearest_passage():
    qs = parse_question_file(FILE, "mine.csv")
    assert [q.follows for q in qs] == ["", "q0001", "", ""]
    qset = collection_question_set("mine", "mine.csv", qs, Collection())
    assert [q.qid for q in qset.questions] == ["q0001", "q0003"]  # quote 1 matches despite the hyphens
    bad = {p["qid"]: p for p in qset.problems}
    assert set(bad) == {"q0002", "q0004"}
    near = bad["q0002"]["nearest"]
    assert near["source"] == "lab.txt" and "checked every month" in near["text"]
    assert "“week”" in near["why"] and "“month”" in near["why"]
    assert "nowhere.txt is not a file of collection 'lab'" in bad["q0004"]["why"]


def test_a_follow_up_of_a_question_set_aside_is_set_aside_too():
    text = (
        "question,evidence,follows\nWhat spins?,a quote that is nowhere at all in here,\nAnd how fast?,,1\n"
    )
    text += "Where are samples stored?,Samples are stored in the cold room,\n"
    qset = collection_question_set("m", "m.csv", parse_question_file(text, "m.csv"), Collection())
    assert [q.qid for q in qset.questions] == ["q0003"]
    assert "follows question q0001" in next(p for p in qset.problems if p["qid"] == "q0002")["why"]


def test_nothing_left_is_refused_and_a_follows_naming_no_earlier_row_is_an_error():
    with pytest.raises(RagkitError, match="no question can run"):
        qs = parse_question_file("question,relevant_sources\nq?,nope.pdf\n", "m.csv")
        collection_question_set("m", "m.csv", qs, Collection())
    with pytest.raises(RagkitError, match=r"m\.csv: line 2: follows 'q9' names no earlier question"):
        parse_question_file("question,follows\nAnd then?,q9\n", "m.csv")
    with pytest.raises(RagkitError, match="line 3: follows '3'"):
        parse_question_file("question,follows\nFirst?,\nSelf?,3\n", "m.csv")


def test_nearest_passage_and_why_not():
    docs = Collection().documents()
    near = nearest_passage("samples are kept in the cold room", docs)
    assert near is not None and near.source == "lab.txt" and near.text.startswith("Samples are stored")
    assert (
        why_not("samples are kept in the cold room", near.text)
        == "the quote has “kept” where the page has “stored”"
    )
    assert nearest_passage("penguins migrate south", docs) is None
    # a difference of punctuation alone is named (a typewriter's full stop read as a comma), not "only
    # spacing or case"; a mark the page sets after the quote's last word is no difference
    assert why_not("the policy of this order.", "the policy of this\norder,") == (
        "the quote has “order.” where the page has “order,”"
    )
    assert why_not("the policy of this order", "The policy of this order,") == "only spacing or case differ"
