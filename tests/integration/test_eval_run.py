"""``ragkit eval run``: configs over tiny BEIR and SQuAD fixtures, comparisons, report, JSON schema."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ragkit.core.errors import RagkitError
from ragkit.evaluation.datasets.questionsets import load_question_set
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.evaluation.runs.report_markdown import markdown_report
from ragkit.pipeline.config import PipelineConfig
from tests.conftest import run_ragkit, write_beir

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
    return write_beir(
        root, DOCS, {q: t for q, (t, _) in QUERIES.items()}, {q: {d: 1} for q, (_, d) in QUERIES.items()}
    )


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
        assert set(c["metrics"]) == {"ndcg@10", "recall@10", "recall@100", "mrr@10", "ece"}
        # the gauge on the top-k chunks, against "a relevant document among them"
        assert c["calibration"]["n"] == 6 and "top 5 chunks" in c["calibration"]["correct_means"]
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
    # every 3rd paragraph held out of the index: its question has no evidence
    result = evaluate_configs(squad_file, [a, b], index_root=str(tmp_path / "idx"), holdout=0.34)
    assert result["dataset_kind"] == "squad" and result["questions"] == 6
    assert result["params"]["held_out_paragraphs"] == 2
    for c in result["configs"]:
        m, counts = c["metrics"], c["counts"]
        assert {"contains_gold", "f1", "exact_match", "false_abstention", "idk_when_absent", "ece"} <= set(m)
        assert {"ndcg@10", "recall@10", "mrr@10"} <= set(m)  # the gold paragraph is the relevant source
        assert counts["contains_gold"] == 4 and counts["idk_when_absent"] == 2
        assert m["contains_gold"] >= 0.5  # the extractive answer holds the gold span on most of these
        cal = c["calibration"]
        assert len(cal["bins"]) == 10 and cal["risk_coverage"] and 0 <= cal["ece"] <= 1 and cal["n"] == 6
        assert {"embed_query", "generate", "total"} <= set(c["stage_latency_ms"])
        assert c["models"]["embedding"] and c["models"]["llm"].startswith("extractive")
        row = c["per_question"]["q0"]
        assert row["question"] == QUERIES["1"][0] and row["intent"] in ("FACT", "CONCEPT", "COMPARISON")
        absent = [v for v in c["per_question"].values() if not v["answerable"]]
        assert all(v["evidence_retrieved"] == 0.0 and v["contains_gold"] is None for v in absent)
    metrics = {x["metric"] for x in result["comparisons"]}
    assert {"contains_gold", "f1", "false_abstention", "idk_when_absent", "ndcg@10"} <= metrics
    assert all(x["n"] == 2 for x in result["comparisons"] if x["metric"] == "idk_when_absent")
    # drill-down: a question of the run, asked again over the run's own index
    from ragkit.app.compare import compare_question
    from ragkit.evaluation.runs.saved import pipelines_for

    pa, pb = pipelines_for(result, ["sentence", "sliding"], tmp_path / "idx")
    assert pa.config.chunker == "sentence" and pb.config.chunker == "sliding"
    cmp = compare_question(pa, pb, QUERIES["4"][0])
    assert "Penicillin" in cmp.a.text and cmp.b.hits[0].chunk.source == "p0003"
    with pytest.raises(RagkitError, match="has no config named 'x'"):
        pipelines_for(result, ["x"], tmp_path / "idx")


# ------------------------------------------------------------------ sets over a collection


@pytest.fixture
def collection(tmp_path):
    from ragkit.index.collections import Collection

    c = Collection.create("tiny", tmp_path / "root")
    report = c.add_files([(f"{k}.txt", f"{t}\n\n{x}".encode()) for k, (t, x) in DOCS.items()])
    assert not report.failed
    return c


def csv_set() -> str:
    rows = ["question,gold_answer,relevant_sources"]
    gold = {"1": "Insulin", "3": "moon's gravity", "4": "Penicillin", "5": "hippocampus", "6": "lava"}
    for q, (text, doc) in QUERIES.items():
        if q in gold:
            rows.append(f'"{text}","{gold[q]}",{doc}.txt')
    rows.append('"What did the 1969 moon landing cost?",,')  # no evidence in the collection
    return "\n".join(rows) + "\n"


def test_csv_set_over_a_collection_and_rerun(collection, tmp_path):
    import ir_measures

    from ragkit.evaluation.runs.saved import list_runs, load_run, rerun, save_run

    qset = load_question_set(text=csv_set(), filename="mine.csv", collection=collection)
    assert qset.kind == "questions" and qset.n == 6
    bm25 = PipelineConfig(name="bm25", retriever="bm25", llm="extractive")
    dense = replace(bm25, name="dense", retriever="dense")
    root = tmp_path / "eval"
    result = evaluate_configs(qset, [bm25, dense], index_root=str(root))
    assert result["question_set"] and result["params"]["collection"] == "tiny"
    # the result is a typed object in JSON form: it round-trips, configs back as PipelineConfigs
    from ragkit.evaluation.runs.result import EvalRun

    typed = EvalRun.from_dict(json.loads(json.dumps(result)))
    assert typed.to_dict() == json.loads(json.dumps(result)) and typed.config("dense").config == dense
    for c in result["configs"]:
        assert c["counts"]["ndcg@10"] == 5 and c["counts"]["idk_when_absent"] == 1
        # source-level metrics agree with ir-measures run directly on the stored ranking, whose head
        # is what the reader read
        for qid, row in c["per_question"].items():
            if row["ndcg@10"] is None:
                continue
            assert [h["chunk_id"] for h in row["ranking"][: len(row["hits"])]] == [
                h["chunk_id"] for h in row["hits"]
            ]
            doc = next(x for x in qset.questions if x.qid == qid).qrels()
            best: dict[str, float] = {}
            for h in row["ranking"]:
                best[h["source"]] = max(best.get(h["source"], -1e9), h["score"])
            ref = ir_measures.pytrec_eval.calc_aggregate([ir_measures.nDCG @ 10], {qid: doc}, {qid: best})
            assert row["ndcg@10"] == pytest.approx(ref[ir_measures.nDCG @ 10])
            rr = ir_measures.msmarco.calc_aggregate([ir_measures.RR @ 10], {qid: doc}, {qid: best})
            assert row["mrr@10"] == pytest.approx(rr[ir_measures.RR @ 10])
    path = save_run(result, root)
    assert list_runs(root)[0]["run_id"] == result["run_id"] and load_run(path) == json.loads(path.read_text())
    again, notes = rerun(load_run(path), root, collection=collection)
    assert notes == [] and again["rerun_of"] == result["run_id"]
    for c1, c2 in zip(result["configs"], again["configs"], strict=True):
        assert c1["hash"] == c2["hash"]
        for m in ("ndcg@10", "contains_gold", "idk_when_absent"):
            assert c1["metrics"][m] == c2["metrics"][m]
    # the collection changes: a re-run says so
    collection.add_files([("extra.txt", b"Glaciers carve valleys over thousands of years.")])
    _, notes = rerun(load_run(path), root, collection=collection)
    assert any("dataset hash differs" in n for n in notes)


def test_csv_set_errors(collection):
    with pytest.raises(RagkitError, match="runs over a collection"):
        load_question_set(text=csv_set(), filename="mine.csv")
    with pytest.raises(RagkitError, match=r"mine\.csv: no question can run .*nope\.pdf is not a file of"):
        load_question_set(
            text="question,relevant_sources\nq?,nope.pdf\n", filename="mine.csv", collection=collection
        )


NOTES = "\n\n".join(
    [
        "Lab notebook, week 12. The centrifuge was serviced on Monday and calibrated again on Tuesday.",
        "We compared three buffers for the assay. The phosphate buffer gave the most stable readings.",
        "Reading group: penicillin kills bacteria by blocking the synthesis of their cell walls, which is "
        "why it does not harm human cells, which have no walls.",
        "The cold room thermostat failed twice. Samples were moved to the backup freezer in time.",
        "Next week we repeat the assay with fresh reagents and a second operator for blinding.",
    ]
)


def test_passage_labels_judge_two_chunkers_and_compare_sees_the_same_passage(collection, tmp_path, embedder):
    from ragkit.app.compare import compare_question
    from ragkit.evaluation.datasets.evidence import evidence_ranking
    from ragkit.evaluation.datasets.labels import LabelSet
    from ragkit.evaluation.metrics.retrieval import per_query_metrics
    from ragkit.ingestion.chunkers import make_chunker
    from ragkit.pipeline.rag import RagPipeline

    collection.add_files([("notes.txt", NOTES.encode())])
    a = PipelineConfig(
        name="A", retriever="dense", llm="extractive", top_k=3, chunker_params={"size": 200, "overlap": 0}
    )
    b = PipelineConfig(
        name="B", retriever="dense", llm="extractive", top_k=3, chunker="sentence", chunker_params={"n": 1}
    )
    question = "Which drug blocks bacterial cell wall synthesis?"
    labels = LabelSet.for_collection(collection)
    assert (
        labels.add_quote(
            question, "penicillin kills bacteria by blocking the synthesis", collection.documents()
        )
        == 2
    )
    labels.set_absent("What did the 1969 moon landing cost?")
    labels.set(
        "Where is the unlabelled question?",
        RagPipeline(a, collection.index(make_chunker("sliding", size=200, overlap=0), embedder)[0], embedder)
        .ask(question)
        .hits[0]
        .chunk,
        False,
    )
    labels.save()
    qset = load_question_set(collection=collection, labels=True)
    assert qset.level == "passage" and qset.n == 2 and qset.params["unlabelled_left_out"] == 1
    result = evaluate_configs(
        qset, [a, b], index_root=str(tmp_path / "eval"), embedders={a.embedding_model: embedder}
    )
    per_config = {}
    for c, cfg in zip(result["configs"], (a, b), strict=True):
        store, _ = collection.index(make_chunker(cfg.chunker, **cfg.chunker_params), embedder)
        by_id = {ch.chunk_id: ch for ch in store.chunks}
        q = next(x for x in qset.questions if x.question == question)
        row = c["per_question"][q.qid]
        # the reported figure is exactly the evidence rule applied to the hits this config returned
        ranking = evidence_ranking([by_id[h["chunk_id"]] for h in row["ranking"]], q.evidence)
        again = per_query_metrics({q.qid: q.qrels()}, {q.qid: ranking}, ("ndcg@10", "mrr@10"))[q.qid]
        assert row["ndcg@10"] == pytest.approx(again["ndcg@10"]) and row["mrr@10"] == pytest.approx(
            again["mrr@10"]
        )
        assert row["mrr@10"] > 0, (c["name"], row["hits"])  # the passage is found by both chunkers
        # a top-3 pipeline is scored on its own ranking to depth 10, whose first three it read
        assert len(row["hits"]) == 3 and len(row["ranking"]) == min(10, len(store.chunks)) > 3
        per_config[c["name"]] = row
        absent = next(v for v in c["per_question"].values() if v["status"] == "absent")
        assert absent["idk_when_absent"] is not None and absent["ndcg@10"] is None
    assert {h["chunk_id"].split("-")[1] for h in per_config["A"]["hits"]} != {
        h["chunk_id"].split("-")[1] for h in per_config["B"]["hits"]
    }
    # Compare: different chunkers, different ids, the same passage: shared by content
    pa = RagPipeline(a, collection.index(make_chunker("sliding", size=200, overlap=0), embedder)[0], embedder)
    pb = RagPipeline(b, collection.index(make_chunker("sentence", n=1), embedder)[0], embedder)
    cmp = compare_question(pa, pb, question)
    assert (
        cmp.hits.by == "content" and len(cmp.hits.shared) >= 1 and cmp.hits.jaccard > 0 and cmp.hits.rbo > 0
    )
    assert not cmp.a.cached_stages and not cmp.b.cached_stages  # both ran cold


def test_config_limits_and_names(beir_dir):
    c = PipelineConfig(name="x")
    with pytest.raises(RagkitError, match="names must differ"):
        evaluate_configs(beir_dir, [c, c])
    with pytest.raises(RagkitError, match="1 to 5 configs"):
        evaluate_configs(beir_dir, [replace(c, name=str(i)) for i in range(6)])


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


def test_cli_eval_run_over_a_collection_saves_the_run(collection, tmp_path):
    qfile = tmp_path / "mine.csv"
    qfile.write_text(csv_set())
    configs = Path(__file__).resolve().parents[2] / "configs"
    common = ["--config", str(configs / "bm25.json"), "--config", str(configs / "dense.json")]
    common += ["--index-root", str(tmp_path / "eval")]
    root = str(collection.path.parent)
    proc = run_ragkit(
        "eval",
        "run",
        "--collection",
        "tiny",
        "--dataset",
        str(qfile),
        "--save",
        *common,
        RAGKIT_INDEX_ROOT=root,
    )
    assert proc.returncode == 0, proc.stderr
    assert "idk_when_absent" in proc.stdout and "| bm25 | dense |" in proc.stdout
    saved = list((tmp_path / "eval" / "runs").glob("*.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["params"]["collection"] == "tiny"
    proc = run_ragkit("eval", "run", "--dataset", str(qfile), *common, RAGKIT_INDEX_ROOT=root)
    assert proc.returncode != 0 and "mine.csv: a CSV/JSONL question set runs over a collection" in proc.stderr
    proc = run_ragkit(
        "eval", "run", "--collection", "nope", "--dataset", "labels", *common, RAGKIT_INDEX_ROOT=root
    )
    assert proc.returncode != 0 and "no collection 'nope'" in proc.stderr


def test_every_config_embeds_its_own_queries(squad_file, tmp_path, embedder, monkeypatch):
    """Interleaved configs share the embedder; none may ride on another's cached query vector."""
    queries: list[str] = []
    real = embedder._encode

    def counting(texts, *a, **k):
        if len(texts) == 1:
            queries.append(texts[0])
        return real(texts, *a, **k)

    a = PipelineConfig(
        name="a", retriever="dense", llm="extractive", chunker_params={"size": 800, "overlap": 0},
        embedding_backend="torch",  # the session's float32 embedder, shared by model and backend
    )  # fmt: skip
    b = replace(a, name="b", retriever="bm25")
    shared = {(a.embedding_model, "torch"): embedder}
    evaluate_configs(squad_file, [a, b], index_root=str(tmp_path / "idx"), embedders=shared)
    monkeypatch.setattr(embedder, "_encode", counting)
    result = evaluate_configs(squad_file, [a, b], index_root=str(tmp_path / "idx"), embedders=shared)
    questions = [v["question"] for v in result["configs"][0]["per_question"].values()]
    for q in questions:
        assert queries.count(q) >= 2, q  # once per config (the extractive answer may embed more)
    for c in result["configs"]:
        assert all(v["timings_ms"]["embed_query"] > 0 for v in c["per_question"].values())


def test_groq_pipeline_tokens_and_ollama_judge_and_no_key_on_disk(collection, tmp_path, monkeypatch):
    """A Groq-backed config (real SDK, loopback server) reports tokens; an Ollama judge grades (SimpleQA);
    the saved run, its report and its CSV never contain the key."""
    from ragkit.evaluation.metrics.judge import build_judge
    from ragkit.evaluation.runs.report import metric_table, per_question_csv
    from ragkit.evaluation.runs.report_markdown import markdown_report
    from ragkit.evaluation.runs.saved import save_run
    from tests.fake_servers import FakeGroq, FakeOllama

    key = "gsk_eval_secret_key_0123456789"
    qset = load_question_set(text=csv_set(), filename="mine.csv", collection=collection)
    cfg = PipelineConfig(name="groq", retriever="bm25", llm="groq", llm_model="llama-3.1-8b-instant")
    with (
        FakeGroq(answer="Insulin controls it [1].", valid_key=key) as groq,
        FakeOllama(answer="A") as ollama,
    ):
        monkeypatch.setenv("GROQ_BASE_URL", groq.url)
        monkeypatch.delenv("GROQ_API_KEY", raising=False)
        judge = build_judge("ollama", "llama3.2", host=ollama.url)
        result = evaluate_configs(
            qset,
            [cfg],
            index_root=str(tmp_path / "eval"),
            api_key=key,
            judge=judge,
            judge_metrics=("simpleqa",),
            limit=3,
        )
    c = result["configs"][0]
    answered = [v for v in c["per_question"].values() if not v["abstained"]]
    assert answered and c["tokens"]["reported"] == len(answered)
    assert c["tokens"]["prompt"] == 42 * len(answered) and c["tokens"]["completion"] == 7 * len(answered)
    assert (
        metric_table(result)[0]["tokens (prompt/completion)"] == f"{42 * len(answered)}/{7 * len(answered)}"
    )
    graded = [v for v in c["per_question"].values() if v.get("simpleqa_grade")]
    assert graded and all(
        v["simpleqa_grade"] == ("NOT_ATTEMPTED" if v["abstained"] else "CORRECT") for v in graded
    )
    assert c["metrics"]["judge_parse_failures"] == 0.0 and c["models"]["judge"] == "ollama:llama3.2"
    assert c["models"]["llm"] == "groq:llama-3.1-8b-instant"
    path = save_run(result, tmp_path / "eval")
    for text in (path.read_text(), markdown_report(result), per_question_csv(result), json.dumps(result)):
        assert key not in text


def test_all_five_presets_run_end_to_end_through_eval_run(squad_file, tmp_path, monkeypatch):
    """Each preset as published, with what needs a service or missing weights swapped by
    --offline-fallbacks (and said on stderr); the web-rerank preset also with its cross-encoder stage
    really running (a tiny cross-encoder built here), its XML prompt and its 4096-token budget."""
    from pathlib import Path

    from ragkit.pipeline.presets import PRESETS_DIR, load_preset
    from tests.conftest import build_tiny_cross_encoder

    for var in ("GROQ_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    presets = sorted(PRESETS_DIR.glob("*.json"))
    out = tmp_path / "run.json"
    args = ["eval", "run", "--dataset", str(squad_file), "--index-root", str(tmp_path / "idx")]
    args += [a for p in presets for a in ("--config", str(p))]
    proc = run_ragkit(*args, "--offline-fallbacks", "--json", str(out), OLLAMA_HOST="http://127.0.0.1:9")
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads(out.read_text())
    assert [c["name"] for c in data["configs"]] == [p.stem for p in presets]
    for c in data["configs"]:
        assert c["config"]["llm"] == "extractive" and c["metrics"]["contains_gold"] >= 0
        assert f"note: {c['name']}: the " in proc.stderr  # every swap is said
    web = next(c for c in data["configs"] if c["name"] == "web-rerank")
    assert web["config"]["rerank"] is False and "cross-encoder" in proc.stderr
    # the web-rerank stages for real: a cross-encoder, XML sources, the token budget
    words = {
        w.strip(".,?'").lower()
        for q in json.loads(Path(squad_file).read_text())["data"]
        for p in q["paragraphs"]
        for w in p["context"].split()
    }
    (tmp_path / "ce").mkdir()
    ce = build_tiny_cross_encoder(tmp_path / "ce", words | {"what", "how", "why", "where", "which"})
    cfg = replace(load_preset("web-rerank"), llm="extractive", rerank_model=str(ce), context_tokens=128)
    result = evaluate_configs(squad_file, [cfg], index_root=str(tmp_path / "idx2"))
    rows = list(result["configs"][0]["per_question"].values())
    assert all(row["timings_ms"].get("rerank", 0) > 0 for row in rows)
    assert all("budget" in row["timings_ms"] for row in rows)


def test_a_failing_config_is_reported_while_the_other_finishes_and_is_saved(squad_file, tmp_path):
    """An OpenAI-compatible config whose server refuses the key fails on its first question; the
    extractive config beside it finishes, the run is saved, and the key appears nowhere."""
    from ragkit.evaluation.runs.saved import load_run, save_run
    from tests.fake_servers import FakeGroq

    secret = "sk-wrong-secret-0123456789"
    good = PipelineConfig(name="good", llm="extractive")
    with FakeGroq(valid_key="sk-right") as srv:
        bad = PipelineConfig(name="bad", llm="openai", llm_model="m", openai_base_url=f"{srv.url}/v1")
        result = evaluate_configs(
            squad_file, [good, bad], index_root=str(tmp_path / "idx"), api_key={"openai": secret}
        )
    assert [c["name"] for c in result["configs"]] == ["good"] and result["comparisons"] == []
    (f,) = result["failures"]
    assert f["config"] == "bad" and f["when"] == "question 1 of 6" and "rejected the API key" in f["error"]
    assert result["configs"][0]["counts"]["contains_gold"] == 6
    saved = load_run(save_run(result, tmp_path / "runs"))
    assert saved["failures"] == result["failures"]
    assert secret not in json.dumps(saved) and secret not in markdown_report(result)
    assert any(w.startswith("bad failed (question 1 of 6)") for w in __import__(
        "ragkit.evaluation.runs.report", fromlist=["warnings"]).warnings(result))  # fmt: skip
    # every config failing is an error naming each
    with (
        pytest.raises(RagkitError, match=r"every config failed: bad \(question 1 of 6\)"),
        FakeGroq(valid_key="sk-right") as srv,
    ):
        bad = replace(bad, openai_base_url=f"{srv.url}/v1")
        evaluate_configs(squad_file, [bad], index_root=str(tmp_path / "idx"), api_key={"openai": secret})


def test_presets_needing_a_service_run_offline_and_say_so(squad_file, tmp_path, monkeypatch):
    from ragkit.pipeline.presets import load_preset

    for var in ("OPENAI_API_KEY", "GROQ_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # no server there
    presets = [load_preset("code-qa"), load_preset("hybrid-intent-ollama")]
    result = evaluate_configs(
        squad_file, presets, index_root=str(tmp_path / "idx"), offline_fallbacks=True, limit=3
    )
    assert not result["failures"] and [c["name"] for c in result["configs"]] == [p.name for p in presets]
    assert all(c["config"]["llm"] == "extractive" for c in result["configs"])
    notes = result["params"]["fallbacks"]
    assert any(n.startswith("code-qa: the openai backend") for n in notes)
    assert any(n.startswith("hybrid-intent-ollama: the ollama backend") for n in notes)


def test_simpleqa_csv_as_published_through_the_cli(collection, tmp_path):
    """``eval run --dataset simple_qa_test_set.csv`` with SimpleQA's own columns runs over a collection."""
    p = tmp_path / "simple_qa_test_set.csv"
    p.write_text(
        "metadata,problem,answer\n"
        + "".join(
            f'"{{\'topic\': \'Science\'}}","{q}","{a}"\n'
            for q, a in [(QUERIES["4"][0], "Penicillin"), (QUERIES["6"][0], "lava")]
        ),
        encoding="utf-8",
    )
    out = tmp_path / "run.json"
    proc = run_ragkit(
        "eval", "run", "--dataset", str(p), "--collection", "tiny", "--config",
        str(Path(__file__).resolve().parents[2] / "configs" / "bm25.json"),
        "--index-root", str(tmp_path / "idx"), "--json", str(out),
        RAGKIT_INDEX_ROOT=str(tmp_path / "root"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["questions"] == 2 and result["primary_metric"] == "contains_gold"
    rows = result["configs"][0]["per_question"].values()
    assert [r["question"] for r in rows] == [QUERIES["4"][0], QUERIES["6"][0]]
    assert result["configs"][0]["counts"]["contains_gold"] == 2


def test_labels_made_on_the_layout_reading_judge_a_plain_parser_by_their_text(tmp_path, evaldata, embedder):
    """Walked with a sweep over pdf_parser: questions generated on the collection's (layout) reading were
    judged on the plain reading's text by the same character offsets, which there mark other words
    (BM25 over plain scored 0.85 against 1.00 for the same words). The evidence is moved onto each
    config's reading by its text, and the report says so."""
    from ragkit.evaluation.questiongen import QuestionGenerator, save_question_set
    from ragkit.index.collections import Collection

    pdf = evaldata / "pdfs" / "docling_multi_page.pdf"
    c = Collection.create("pdfs", tmp_path / "root")
    assert not c.add_files([(pdf.name, pdf.read_bytes())]).failed
    report = QuestionGenerator(c.documents(), "offline", embedder=embedder).run(8)
    qset = load_question_set(save_question_set(c, "gen", report), collection=c)
    layout = PipelineConfig(name="layout", retriever="bm25", llm="extractive")
    plain = replace(layout, name="plain", pdf_parser="plain")
    result = evaluate_configs(
        qset, [layout, plain], index_root=str(tmp_path / "eval"), embedders={layout.embedding_model: embedder}
    )
    rows = {c["name"]: c["per_question"] for c in result["configs"]}
    assert not any("evidence_moved" in r for r in rows["layout"].values())  # its own reading
    moved = sum(r.get("evidence_moved", 0) for r in rows["plain"].values())
    assert moved > 0 and sum(r.get("evidence_lost", 0) for r in rows["plain"].values()) == 0
    # BM25 on the same words: the plain reading finds each question's evidence as well as layout does
    for qid, r in rows["layout"].items():
        if r["ndcg@10"] == 1.0:
            assert rows["plain"][qid]["recall@10"] == 1.0, rows["plain"][qid]["question"]
    assert any("plain reads the PDFs differently" in w and f"{moved} evidence spans" in w
               for w in markdown_report(result).splitlines())  # fmt: skip
