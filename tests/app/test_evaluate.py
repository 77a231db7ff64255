"""The Evaluate page through AppTest: load a set, run two configs, tables, charts, exports, saved runs,
drill-down into Compare, labelling and a labelled-set run, and errors as messages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.app.conftest import QUESTION, ROOT, texts

pytestmark = pytest.mark.slow
EVALUATE = str(ROOT / "pages" / "evaluate.py")


@pytest.fixture
def question_file(tmp_path) -> Path:
    p = tmp_path / "set.csv"
    p.write_text(
        "question,gold_answer,relevant_sources\n"
        f'"{QUESTION}",Sholes,docling_multi_page.pdf\n'
        '"What was the IBM MT/ST?",magnetic tape,docling_multi_page.pdf\n'
        '"What is the boiling point of liquid nitrogen on Mars?",,\n'
    )
    return p


def button(at, label):
    return next(b for b in at.button if b.label == label)


def open_evaluate(at):
    at.run()
    at.switch_page(EVALUATE).run()
    assert not at.exception, at.exception
    return at


def test_run_two_configs_on_a_question_file(app, question_file):
    at = open_evaluate(app)
    at.radio(key="eval_source").set_value("path").run()
    at.text_input(key="eval_path").set_value(str(question_file)).run()
    assert at.multiselect(key="eval_configs").value == ["A", "B"]
    button(at, "Run evaluation").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    # warnings in plain words: 3 questions is too small to tell
    assert "too small to tell" in texts(at.warning)
    assert len(at.dataframe) >= 4  # metrics, comparisons, intent slices, per question
    md = texts(at.markdown)
    assert "**A vs B** on ndcg@10:" in md and "not significant" in md
    assert len(at.get("plotly_chart")) >= 4  # quality-latency, intent, reliability, risk-coverage
    assert {"Export JSON", "Export CSV", "Export Markdown"} <= {b.label for b in at.get("download_button")}
    result = at.session_state["eval_result"]
    assert [c["name"] for c in result["configs"]] == ["A", "B"] and result["questions"] == 3
    assert {"ndcg@10", "contains_gold", "false_abstention", "idk_when_absent"} <= set(result["metric_names"])
    a = result["configs"][0]["per_question"]["q0001"]
    assert a["contains_gold"] == 1.0 and a["ndcg@10"] == 1.0  # the one PDF holds the answer
    runs = list((Path(os.environ["RAGKIT_INDEX_ROOT"]) / ".eval" / "runs").glob("*.json"))
    assert len(runs) == 1 and json.loads(runs[0].read_text())["run_id"] == result["run_id"]

    # saved runs: re-run says whether anything changed
    button(at, "Re-run").click().run()
    assert not at.exception, at.exception
    assert "Re-run: same dataset and ragkit version as before" in texts(at.info)
    assert len(list(runs[0].parent.glob("*.json"))) == 2

    # drill-down: open a question in the Compare view
    at.selectbox(key="eval_drill_a").set_value("B")
    at.selectbox(key="eval_drill_b").set_value("A")
    next(b for b in at.button if b.label == "Open in Compare").click().run()
    assert not at.exception, at.exception
    subheaders = texts(at.subheader)
    assert "Config B" in subheaders and "Config A" in subheaders
    assert "Opened from an evaluation run" in texts(at.caption)


def test_label_candidates_then_run_on_labels(app):
    at = open_evaluate(app)
    at.text_input(key="label_question_text").set_value(QUESTION)
    button(at, "Find candidates (A ∪ B)").click().run()
    assert not at.exception, at.exception
    question, chunks = at.session_state["label_pool"]
    assert question == QUESTION and chunks
    sholes = [i for i, c in enumerate(chunks) if "Sholes" in c.text]
    assert sholes, "a candidate holding the answer"
    for i in range(len(chunks)):
        at.radio(key=f"label_{i}").set_value("relevant" if i in sholes else "not relevant")
    button(at, "Save labels").click().run()
    assert f"Saved {len(chunks)} labels" in texts(at.success)
    saved = (Path(os.environ["RAGKIT_INDEX_ROOT"]) / "papers" / "labels.jsonl").read_text().splitlines()
    assert len(saved) == len(chunks)
    at.radio(key="eval_source").set_value("labels").run()
    button(at, "Run evaluation").click().run()
    assert not at.exception and not at.error, texts(at.error)
    result = at.session_state["eval_result"]
    assert result["level"] == "chunk" and result["dataset_kind"] == "labels"
    for c in result["configs"]:
        assert c["metrics"]["recall@10"] == 1.0  # every relevant candidate came from A or B's top-k


def test_errors_are_messages(app, tmp_path):
    at = open_evaluate(app)
    at.radio(key="eval_source").set_value("path").run()
    at.text_input(key="eval_path").set_value(str(tmp_path / "missing.json")).run()
    button(at, "Run evaluation").click().run()
    assert "missing.json: no such file or directory" in texts(at.error)
    bad = tmp_path / "bad.csv"
    bad.write_text("query\nx\n")
    at.text_input(key="eval_path").set_value(str(bad)).run()
    button(at, "Run evaluation").click().run()
    assert "bad.csv: no 'question' column" in texts(at.error)
    at.multiselect(key="eval_configs").set_value(["A"]).run()
    button(at, "Run evaluation").click().run()
    assert "choose at least two configurations" in texts(at.error)
    at.radio(key="eval_source").set_value("labels").run()
    at.multiselect(key="eval_configs").set_value(["A", "bm25"]).run()
    button(at, "Run evaluation").click().run()
    assert "has no labelled questions yet" in texts(at.error)
