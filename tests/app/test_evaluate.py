"""The Evaluate page through AppTest: load a set, run two configs, tables, charts, exports, saved runs,
drill-down into Compare, labelling and a labelled-set run, and errors as messages."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragkit.evaluation.datasets.labels import question_id
from tests.app.conftest import QUESTION, ROOT, make_app, texts

pytestmark = pytest.mark.slow
EVALUATE = str(ROOT / "app_pages" / "evaluate.py")


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


def labelled(elements, label):
    return next(e for e in elements if e.label == label)


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
    # warnings in plain words: 3 questions is too small to tell; file-level labels over 1 file saturate
    warnings = texts(at.warning)
    assert "too small to tell" in warnings
    assert "File-level labels over 1 files cannot separate these configs" in warnings
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
    assert f"Opened from evaluation run {result['run_id']}" in texts(at.caption)


def test_label_candidates_then_run_on_labels(app):
    at = open_evaluate(app)
    at.text_input(key="label_question_text").set_value(QUESTION)
    button(at, "Find candidates (A ∪ B)").click().run()
    assert not at.exception, at.exception
    question, chunks = at.session_state["label_pool"]
    assert question == QUESTION and chunks
    sholes = [i for i, c in enumerate(chunks) if "Sholes" in c.text]
    assert sholes, "a candidate holding the answer"
    qkey = question_id(QUESTION)
    for i in range(len(chunks)):
        at.radio(key=f"label_{qkey}_{i}").set_value("relevant" if i in sholes else "not relevant")
    button(at, "Save labels").click().run()
    assert not at.exception, at.exception
    saved = (Path(os.environ["RAGKIT_INDEX_ROOT"]) / "papers" / "labels.jsonl").read_text().splitlines()
    assert len(saved) == len(chunks) and all(json.loads(x)["kind"] == "passage" for x in saved)

    # a second question: its evidence is found by searching the whole collection, not by A or B
    other = "What did the IBM MT/ST record onto?"
    at.text_input(key="label_question_text").set_value(other)
    button(at, "Find candidates (A ∪ B)").click().run()
    search = next(t for t in at.text_input if t.label.startswith("Search the whole collection"))
    search.set_value("magnetic tape IBM MT/ST")
    button(at, "Search").click().run()
    assert not at.exception, at.exception
    found = at.session_state["_label_search"][1]
    tape = [i for i, c in enumerate(found) if "magnetic tape" in c.text.lower()]
    assert tape, [c.text[:80] for c in found]
    at.checkbox(key=f"label_found_{question_id(other)}_{tape[0]}").check()
    button(at, "Mark the ticked results as evidence").click().run()
    assert "Added 1 passages as evidence" in texts(at.success)
    # a third: marked explicitly as having no answer in the collection
    absent = "What is the boiling point of liquid nitrogen on Mars?"
    at.text_input(key="label_question_text").set_value(absent)
    button(at, "Find candidates (A ∪ B)").click().run()
    at.checkbox(key=f"label_absent_{question_id(absent)}").check()
    button(at, "Save labels").click().run()

    at.radio(key="eval_source").set_value("labels").run()
    button(at, "Run evaluation").click().run()
    assert not at.exception and not at.error, texts(at.error)
    result = at.session_state["eval_result"]
    assert result["level"] == "passage" and result["dataset_kind"] == "labels" and result["questions"] == 3
    for c in result["configs"]:
        pq = {v["question"]: v for v in c["per_question"].values()}
        assert pq[QUESTION]["recall@10"] == 1.0  # every relevant candidate came from A or B's top-k
        assert pq[absent]["status"] == "absent" and pq[absent]["idk_when_absent"] is not None


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


CALIBRATION_SET = [
    (QUESTION, "Sholes"),
    ("When did IBM introduce the electric typewriter?", "1935"),
    ("What did the IBM MT/ST combine?", "magnetic tape"),
    ("Which company made the Wang 1200?", "Wang"),
    ("What operating system was WordStar developed for?", "CP/M"),
    ("When did Microsoft launch Word for MS-DOS?", "1983"),
    ("Which word processor was popular among legal professionals?", "WordPerfect"),
    ("Which open-source office suites emerged in the 2000s?", "LibreOffice"),
    ("What is the boiling point of liquid nitrogen on Mars?", ""),
    ("Who won the 1998 football world cup?", ""),
    ("What is the airspeed of an unladen swallow?", ""),
    ("How many moons does Neptune have?", ""),
]


def test_judge_options_and_calibrating_the_gauge_from_a_run(app, tmp_path):
    """The judge panel offers every backend and metric; a run shows each gauge's cross-validated ECE;
    "Fit on this run and apply" on 12 questions is refused with the reason (too few to beat the noise).
    A calibrated config fitted on another collection says so in the sidebar and is not applied; "Use the
    raw gauge" takes it out."""
    p = tmp_path / "cal.csv"
    p.write_text(
        "question,gold_answer\n" + "".join(f'"{q}","{a}"\n' for q, a in CALIBRATION_SET), encoding="utf-8"
    )
    at = open_evaluate(app)
    # every generative backend can judge, in the registry's order
    assert set(at.selectbox(key="eval_judge_backend").options) == {"groq", "ollama", "openai", "local"}
    assert "simpleqa" in at.multiselect(key="eval_judge_metrics").options
    at.radio(key="eval_source").set_value("path").run()
    at.text_input(key="eval_path").set_value(str(p)).run()
    button(at, "Run evaluation").click().run()
    assert not at.exception, at.exception
    result = at.session_state["eval_result"]
    cal = [c["calibration"] for c in result["configs"]]
    assert all(c["n"] == len(CALIBRATION_SET) and not c["offer"]["offered"] for c in cal)
    assert "Calibrate the confidence gauge" in texts(at.markdown)
    at.selectbox(key="eval_cal_config").set_value("A")
    at.radio(key="eval_cal_side").set_value("B")
    button(at, "Fit on this run and apply").click().run()
    assert not at.exception, at.exception
    assert "Cannot calibrate A: no calibration: 12 labelled questions: a calibration needs at least 30" in (
        texts(at.error)
    )
    assert at.session_state["configs"]["B"].confidence_calibration is None
    # a config calibrated on another collection (imported, or followed here): shown, not applied
    from dataclasses import replace

    from ragkit.pipeline.calibration import CalibrationMap

    elsewhere = CalibrationMap(
        "isotonic", (0.0, 1.0), (0.67, 0.95), fitted_on="run x", n=300, scope="collection:other"
    )
    at.session_state["configs"]["B"] = replace(
        at.session_state["configs"]["B"], confidence_calibration=elsewhere.to_dict()
    )
    at.sidebar.radio(key="editing").set_value("B").run()
    assert "Gauge calibrated (isotonic) on run x" in texts(at.sidebar.caption)
    assert "Fitted on 'other', not on this collection" in texts(at.sidebar.warning)
    next(x for x in at.sidebar.button if x.label == "Use the raw gauge").click().run()
    assert at.session_state["configs"]["B"].confidence_calibration is None
    assert "Gauge not calibrated" in texts(at.sidebar.caption)


def test_presets_needing_a_key_or_server_run_offline_in_the_list(app, question_file, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # no server there
    at = open_evaluate(app)
    at.radio(key="eval_source").set_value("path").run()
    at.text_input(key="eval_path").set_value(str(question_file)).run()
    at.multiselect(key="eval_configs").set_value(["A", "code-qa", "hybrid-intent-ollama"]).run()
    at.selectbox(key="eval_primary").set_value("contains_gold").run()
    button(at, "Run evaluation").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    result = at.session_state["eval_result"]
    assert [c["name"] for c in result["configs"]] == ["A", "code-qa", "hybrid-intent-ollama"]
    assert all(c["config"]["llm"] == "extractive" for c in result["configs"]) and not result["failures"]
    warnings = texts(at.warning)
    assert "Ran offline instead: code-qa: the openai backend" in warnings
    assert "Ran offline instead: hybrid-intent-ollama: the ollama backend" in warnings
    # the declared primary metric decides, and its tests are the confirmatory family
    assert result["primary_metric"] == "contains_gold"
    assert "Primary metric, declared before the run: contains_gold" in texts(at.caption)
    assert {x["family"] for x in result["comparisons"] if x["metric"] == "contains_gold"} == {"primary"}
    assert {x["family"] for x in result["comparisons"] if x["metric"] != "contains_gold"} == {"exploratory"}


def test_a_simpleqa_csv_as_published_runs_on_the_page(app, tmp_path):
    p = tmp_path / "simple_qa_test_set.csv"
    p.write_text(
        f"metadata,problem,answer\n\"{{'topic': 'History'}}\",\"{QUESTION}\",Sholes\n"
        "\"{'topic': 'Geography'}\",\"What is the capital of Australia?\",Canberra\n",
        encoding="utf-8",
    )
    at = open_evaluate(app)
    at.radio(key="eval_source").set_value("path").run()
    at.text_input(key="eval_path").set_value(str(p)).run()
    button(at, "Run evaluation").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    result = at.session_state["eval_result"]
    assert result["questions"] == 2 and result["configs"][0]["counts"]["contains_gold"] == 2
    rows = list(result["configs"][0]["per_question"].values())
    assert rows[0]["question"] == QUESTION and rows[0]["contains_gold"] == 1.0


def test_sweep_tab_races_a_grid_and_loads_a_set_up_into_a(app, question_file, monkeypatch):
    """The Sweep tab: a grid built in the form (from the declared options), its cost before it runs,
    raced on a question file too small to hold questions out (and said so); the best within noise named,
    the sweep saved, a set-up loaded into A; a bad grid value is a message."""
    at = open_evaluate(app)
    at.radio(key="sweep_source").set_value("path").run()
    at.text_input(key="sweep_path").set_value(str(question_file)).run()
    assert at.multiselect(key="sweep_vary_retriever").value == []  # nothing varied until asked
    at.multiselect(key="sweep_vary_retriever").set_value(["bm25", "dense", "hybrid"]).run()
    at.text_input(key="sweep_vary_top_k").set_value("3, x").run()
    assert "values of top_k" in texts(at.error)
    at.text_input(key="sweep_vary_top_k").set_value("3, 5").run()
    assert not at.error, texts(at.error)
    assert "**6 set-ups**" in texts(at.caption)
    before = texts(at.markdown)
    assert "6 set-ups from 6 combinations · 3 questions" in before
    assert "At most 18 question evaluations" in before
    assert "known only after the race" in before and "Time on this machine" in before
    # a judge's metric asks for the judge; without its key the start is a message, nothing runs
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    at.selectbox(key="sweep_metric").set_value("faithfulness").run()
    at.selectbox(key="sweep_judge_backend").set_value("groq").run()
    button(at, "Start sweep").click().run()
    assert not at.exception, at.exception
    assert "sweep_result" not in at.session_state and "no Groq API key" in texts(at.error)
    at.selectbox(key="sweep_metric").set_value("(the set's default)").run()
    assert not any(s.key == "sweep_judge_backend" for s in at.selectbox)
    at.number_input(key="sweep_size_ceiling").set_value(1000.0).run()
    button(at, "Start sweep").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    result = at.session_state["sweep_result"]
    assert result["finished"] and len(result["candidates"]) == 6
    assert result["evaluations_full"] == 6 * 3 and result["metric"] == "ndcg@10"
    assert len(result["best_within_noise"]) == 6  # three questions cannot separate anything
    # three questions are too few to hold any out: the page says the scores picked the winner themselves
    assert result["holdout"]["status"] == "too few questions" and result["selection_optimistic"]
    assert "optimistic" in texts(at.warning)
    assert all(c["index_mb"] > 0 for c in result["candidates"]) and result["settings"]["max_index_mb"] == 1000
    assert any("Not significantly worse than the best: 6" in s for s in texts(at.subheader).split("\n"))
    saved = list((Path(os.environ["RAGKIT_INDEX_ROOT"]) / ".eval" / "sweeps").glob("2*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["sweep_id"] == result["sweep_id"]
    at.selectbox(key="sweep_pick").set_value("bm25 · top_k=3").run()
    button(at, "Load into A").click().run()
    assert not at.exception, at.exception
    a = at.session_state["configs"]["A"]
    assert a.retriever == "bm25" and a.top_k == 3
    # a reload or a second tab finds the grid and the set it ran on (walked in the browser: the form came
    # back empty, so resuming a sweep stopped by the reload meant typing the grid again)
    again = open_evaluate(make_app())
    assert again.text_input(key="sweep_vary_top_k").value == "3, 5"
    assert again.multiselect(key="sweep_vary_retriever").value == ["bm25", "dense", "hybrid"]
    assert again.radio(key="sweep_source").value == "path"
    assert again.text_input(key="sweep_path").value == str(question_file)
    assert again.number_input(key="sweep_size_ceiling").value == 1000.0
    assert "**6 set-ups**" in texts(again.caption) and "stopped before its end" not in texts(again.info)
    from ragkit.app.workspace import Workspace
    from ragkit.index.collections import Collection

    ws = Workspace(Collection("papers").path)  # a run cut short by a reload never marked its form finished
    ws.set_value("sweep_form", {**ws.get("sweep_form"), "finished": False})
    cut = open_evaluate(make_app())
    assert "stopped before its end" in texts(cut.info) and "**6 set-ups**" in texts(cut.caption)


def test_an_uploaded_grid_fills_the_form_and_comes_back_out_as_written(app):
    """*Use this grid*: the form shows the file's grid (its base as written, each value in its control)
    and the grid the page shows and downloads is the file's."""
    at = open_evaluate(app)
    grid = json.loads((ROOT / "bench" / "sweeps" / "scifact_grid_holdout.json").read_text())
    at.session_state["_sweep_pending_grid"] = grid  # what the button leaves for the next run
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox(key="sweep_base").value == "(the uploaded grid's base)"
    assert at.multiselect(key="sweep_vary_retriever").value == ["bm25", "dense", "hybrid"]
    assert at.text_input(key="sweep_chunk_size").value == "1000, 100000"
    assert at.text_input(key="sweep_chunk_overlap").value == "200, 0"
    assert at.radio(key="sweep_chunk_mode").value.startswith("paired")
    assert at.text_input(key="sweep_vary_hybrid_weights").value == "1:1, 2:1"
    assert json.loads(at.code[0].value) == grid
    assert "**8 set-ups**" in texts(at.caption)


def test_sweep_result_opens_compare_with_the_top_two_on_their_differing_questions(app):
    """A saved sweep's "compare the top two" puts them into A and B and the questions where they differ
    most into Compare's batch."""
    from ragkit.pipeline.config import PipelineConfig

    at = open_evaluate(app)
    one, two = PipelineConfig(retriever="bm25", top_k=3), PipelineConfig(retriever="dense", top_k=4)

    def cand(name, cfg, mean):
        return {
            "name": name,
            "config_hash": cfg.cache_key(),
            "config": cfg.to_dict(),
            "varied": {},
            "mean": mean,
            "questions_evaluated": 3,
            "dropped_after": None,
            "drop": None,
            "failure": None,
            "best_within_noise": True,
            "latency_ms": {"p50": 5.0},
            "metrics": {},
            "by_intent": {},
        }

    result = {
        "sweep_id": "s1",
        "metric": "ndcg@10",
        "finished": True,
        "status": "questions done",
        "candidates": [cand("bm25 · top_k=3", one, 0.9), cand("dense · top_k=4", two, 0.8)],
        "best_within_noise": [one.cache_key(), two.cache_key()],
        "evaluations_used": 6,
        "evaluations_full": 6,
        "pareto": [],
        "top_differences": [
            {"qid": "q2", "question": "What was the IBM MT/ST?", "a": 1.0, "b": 0.0, "gap": 1.0}
        ],
    }
    at.session_state["sweep_result"] = result
    at.run()
    next(b for b in at.button if b.label.startswith("Compare the top two")).click().run()
    assert not at.exception, at.exception
    configs = at.session_state["configs"]
    assert (configs["A"].retriever, configs["A"].top_k) == ("bm25", 3)
    assert (configs["B"].retriever, configs["B"].top_k) == ("dense", 4)
    assert at.session_state["batch_text"] == "What was the IBM MT/ST?"
    assert at.text_area(key="batch_text").value == "What was the IBM MT/ST?"  # Compare's batch, open


def test_generate_review_save_and_run_on_the_saved_set(app):
    """Generate tab (offline): a reviewed set — one question edited, one rejected — saved with the
    collection, then run on the Run tab as 'A question set saved with the active collection'."""
    from ragkit.evaluation.datasets.loaders import load_question_file

    at = open_evaluate(app)
    at.radio(key="gen_method").set_value("offline").run()
    assert "Kendall τ" in texts(at.caption) or "not measured" in texts(at.caption)
    at.number_input(key="gen_n").set_value(6).run()
    button(at, "Generate").click().run()
    assert not at.exception, at.exception
    assert not at.error, texts(at.error)
    report = at.session_state["gen_report"]
    made = report["questions"]
    assert len(made) == 6 and all(q["evidence"] for q in made)
    assert "favour lexical set-ups" in texts(at.warning)  # the offline method says its bias
    # edit question 1 (text and a shorter evidence quote), reject question 2
    evidence = made[0]["evidence_text"][0]
    short = " ".join(evidence.split()[:6])
    labelled(at.selectbox, "Review question").set_value(0).run()
    labelled(at.text_input, "Question").set_value("typewriter history question one")
    labelled(
        at.text_area, "Evidence (a quote of the passage; two-passage questions: one per line)"
    ).set_value(short)
    button(at, "Apply").click().run()
    assert not at.exception, at.exception
    labelled(at.selectbox, "Review question").set_value(1).run()
    labelled(at.radio, "Decision").set_value("reject")
    button(at, "Apply").click().run()
    reviewed = at.session_state["gen_report"]["questions"]
    assert reviewed[0]["question"] == "typewriter history question one" and reviewed[0]["edited"]
    assert reviewed[0]["evidence_text"][0].split() == short.split()
    assert reviewed[1]["status"] == "rejected" and reviewed[1]["reason"] == "rejected by the reviewer"
    at.text_input(key="gen_save_name").set_value("mine").run()
    button(at, "Save with the collection").click().run()
    assert "Saved 5 questions as mine.jsonl" in texts(at.success)
    saved = Path(os.environ["RAGKIT_INDEX_ROOT"]) / "papers" / "questions" / "mine.jsonl"
    qs = load_question_file(saved)
    assert len(qs) == 5 and qs[0].question == "typewriter history question one" and qs[0].evidence

    # a reload (a new session) finds the set under review again; another collection does not show it
    from ragkit.index.collections import Collection

    other = Collection.create("other", Path(os.environ["RAGKIT_INDEX_ROOT"]))
    other.add_files([("note.txt", b"The reading room closes at seven. " * 20)])
    again = open_evaluate(make_app())
    assert [q["question"] for q in again.session_state["gen_report"]["questions"]] == [
        q["question"] for q in at.session_state["gen_report"]["questions"]
    ]
    again.selectbox(key="collection").set_value("other").run()
    assert not again.exception, again.exception
    assert not [s for s in again.selectbox if s.label == "Review question"]

    at.radio(key="eval_source").set_value("saved").run()
    assert at.selectbox(key="eval_saved").value == "mine.jsonl"
    button(at, "Run evaluation").click().run()
    assert not at.exception, at.exception
    result = at.session_state["eval_result"]
    assert result["questions"] == 5 and result["level"] == "passage"


def test_a_running_marker_left_by_another_server_is_not_waited_for(tmp_path):
    """Stop waits for this server's interrupted run only: a marker a crashed (or another) server left
    behind names another process and is not waited on."""
    from ui.evaluate.generate import _ours

    marker = tmp_path / ".generating"
    marker.write_text("999999999")
    assert not _ours(marker)
    marker.write_text(str(os.getpid()))
    assert _ours(marker)
    marker.unlink()
    assert not _ours(marker)
