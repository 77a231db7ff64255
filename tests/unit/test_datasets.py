"""Unit tests of :mod:`ragkit.evaluation.datasets.loaders`."""

from __future__ import annotations

import json

import pytest

from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.loaders import parse_question_file


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


def test_simpleqa_csv_as_published_is_a_question_set(tmp_path):
    """SimpleQA ships ``metadata, problem, answer``: problem is the question, answer the gold answer."""
    from ragkit.evaluation.datasets.loaders import load_question_file

    p = tmp_path / "simple_qa_test_set.csv"
    p.write_text(
        "metadata,problem,answer\n\"{'topic': 'Art', 'urls': ['https://x']}\",Who painted the ceiling?,"
        'Michelangelo\n"{}","In what year did X happen?","1868"\n',
        encoding="utf-8",
    )
    qs = load_question_file(p)
    assert [(q.question, q.answers, q.answerable) for q in qs] == [
        ("Who painted the ceiling?", ("Michelangelo",), True),
        ("In what year did X happen?", ("1868",), True),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text("query,gold\nq,a\n")
    with pytest.raises(RagkitError, match=r"bad.csv: no 'question' column .*or SimpleQA's problem, answer"):
        load_question_file(bad)
