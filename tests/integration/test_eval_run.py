"""``ragkit eval run``: configs over tiny BEIR and SQuAD fixtures, comparisons, report, JSON schema."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ragkit.config import PipelineConfig
from ragkit.errors import RagkitError
from ragkit.evaluation.runner import evaluate_configs, markdown_report
from tests.conftest import run_ragkit

pytestmark = pytest.mark.slow

DOCS = {
    "d1": ("Insulin", "Insulin regulates blood glucose by promoting uptake into muscle and fat cells."),
    "d2": ("Photosynthesis", "Plants convert light, water and carbon dioxide into sugar and oxygen."),
    "d3": ("Volcanoes", "Magma rising through the crust erupts as lava from volcanic vents."),
    "d4": ("Antibiotics", "Penicillin kills bacteria by blocking the synthesis of their cell walls."),
    "d5": ("Tides", "The moon's gravity pulls the oceans, causing two high tides a day."),
    "d6": ("Memory", "The hippocampus consolidates short-term memories into long-term storage."),
}
QUERIES = {
    "1": ("What hormone controls blood sugar?", "d1"),
    "2": ("How do plants make sugar from light?", "d2"),
    "3": ("Why are there two high tides each day?", "d5"),
    "4": ("Which drug blocks bacterial cell wall synthesis?", "d4"),
    "5": ("Where are memories consolidated in the brain?", "d6"),
    "6": ("What comes out of volcanic vents?", "d3"),
}


@pytest.fixture(scope="module")
def beir_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("beir") / "tiny"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": k, "title": t, "text": x}) + "\n" for k, (t, x) in DOCS.items())
    )
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": t}) + "\n" for q, (t, _) in QUERIES.items())
    )
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, (_, d) in QUERIES.items())
    )
    return root


@pytest.fixture(scope="module")
def squad_file(tmp_path_factory):
    paragraphs = [
        {
            "context": f"{t}. {x}",
            "qas": [
                {
                    "id": f"q{i}",
                    "question": QUERIES[str(i + 1)][0],
                    "answers": [{"text": ans, "answer_start": 0}],
                }
            ],
        }
        for i, ((t, x), ans) in enumerate(
            zip(
                [DOCS[QUERIES[str(i + 1)][1]] for i in range(6)],
                [
                    "Insulin",
                    "sugar and oxygen",
                    "The moon's gravity",
                    "Penicillin",
                    "The hippocampus",
                    "lava",
                ],
                strict=True,
            )
        )
    ]
    p = tmp_path_factory.mktemp("squad") / "tiny.json"
    p.write_text(json.dumps({"data": [{"title": "tiny", "paragraphs": paragraphs}]}))
    return p


def test_beir_run_compares_configs(beir_dir, tmp_path):
    bm25 = PipelineConfig(name="bm25", retriever="bm25", chunker_params={"size": 1000, "overlap": 0})
    dense = replace(bm25, name="dense", retriever="dense")
    same = replace(bm25, name="bm25-again")
    result = evaluate_configs(beir_dir, [bm25, dense, same], index_root=str(tmp_path / "idx"))
    assert result["dataset_kind"] == "beir" and result["questions"] == 6 and len(result["dataset_hash"]) == 64
    names = [c["name"] for c in result["configs"]]
    assert names == ["bm25", "dense", "bm25-again"]
    for c in result["configs"]:
        assert set(c["metrics"]) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}
        assert (
            all(0 <= v <= 1 for v in c["metrics"].values())
            and c["hash"] == PipelineConfig.from_dict(c["config"]).cache_key()
        )
    assert result["configs"][1]["metrics"]["recall@10"] == 1.0  # dense finds every paraphrased answer
    identical = [x for x in result["comparisons"] if (x["a"], x["b"]) == ("bm25", "bm25-again")]
    assert identical and all(
        x["diff"] == 0 and x["ci_low"] <= 0 <= x["ci_high"] and not x["significant"] for x in identical
    )
    assert {"a", "b", "metric", "diff", "ci_low", "ci_high", "p_value", "significant"} <= set(identical[0])
    report = markdown_report(result)
    assert "| bm25 |" in report and "ndcg@10" in report and "not significant" in report


def test_squad_run_reports_answers_abstention_and_calibration(squad_file, tmp_path):
    a = PipelineConfig(name="sliding", chunker="sliding", llm="extractive")
    b = PipelineConfig(name="sentence", chunker="sentence", llm="extractive")
    result = evaluate_configs(squad_file, [a, b], index_root=str(tmp_path / "idx"))
    assert result["dataset_kind"] == "squad" and result["questions"] == 6
    for c in result["configs"]:
        m = c["metrics"]
        assert {"contains_gold", "f1", "exact_match", "abstained", "ece"} <= set(m)
        assert m["contains_gold"] >= 0.5  # the extractive answer holds the gold span on most of these
        cal = c["calibration"]
        assert len(cal["bins"]) == 10 and cal["risk_coverage"] and 0 <= cal["ece"] <= 1
    assert {x["metric"] for x in result["comparisons"]} == {"contains_gold", "f1", "exact_match", "abstained"}
    assert all(x["too_small"] or x["n"] == 6 for x in result["comparisons"])


def test_config_limits_and_names(beir_dir):
    c = PipelineConfig(name="x")
    with pytest.raises(RagkitError, match="names must differ"):
        evaluate_configs(beir_dir, [c, c])
    with pytest.raises(RagkitError, match="1 to 4 configs"):
        evaluate_configs(beir_dir, [replace(c, name=str(i)) for i in range(5)])


def test_cli_eval_run_with_shipped_configs(beir_dir, tmp_path):
    from pathlib import Path

    configs = Path(__file__).resolve().parents[2] / "configs"
    out, rep = tmp_path / "run.json", tmp_path / "run.md"
    proc = run_ragkit(
        "eval",
        "run",
        "--dataset",
        str(beir_dir),
        "--config",
        str(configs / "bm25.json"),
        "--config",
        str(configs / "hybrid.json"),
        "--index-root",
        str(tmp_path / "idx"),
        "--json",
        str(out),
        "--report",
        str(rep),
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert [c["name"] for c in data["configs"]] == ["bm25", "hybrid"]
    assert {"dataset", "configs", "comparisons"} <= set(data)
    assert "| bm25 | hybrid | ndcg@10 |" in rep.read_text() and "| hybrid |" in proc.stdout
