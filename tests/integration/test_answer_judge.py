"""The answer judge end to end: RAGAS-style metrics and SimpleQA grades through the real Groq, Ollama and
OpenAI SDKs against loopback servers whose judge follows a scripted, transparent rule
(``tests/judge_script.py``), malformed replies counted; two judges' agreement; the citation check in a
run; calibration fitted from a run, stored in the config and applied to the gauge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragkit.evaluation.datasets.questionsets import load_question_set
from ragkit.evaluation.metrics.judge import AnswerJudge
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.evaluation.runs.report import warnings
from ragkit.evaluation.runs.report_markdown import markdown_report
from ragkit.pipeline.config import PipelineConfig
from tests import judge_script
from tests.conftest import run_ragkit
from tests.fake_servers import FakeGroq, FakeOllama
from tests.integration.test_eval_run import DOCS, csv_set

pytestmark = pytest.mark.slow

CONTEXT = [
    "Paris is the capital of France. The Seine flows through Paris.",
    "Lyon is known for its cuisine and its silk industry.",
]


@pytest.fixture
def groq_judge(embedder):
    with FakeGroq(valid_key=None) as srv:
        srv.responder = judge_script.responder()
        from ragkit.llms.groq import GroqLLM

        yield AnswerJudge(GroqLLM(model="judge-70b", api_key="gsk_x", base_url=srv.url), embedder), srv


def test_an_unsupported_claim_lowers_faithfulness_by_exactly_one_over_n(groq_judge):
    judge, srv = groq_judge
    q = "What do we know about Paris?"
    supported = "Paris is the capital of France. The Seine flows through Paris."
    s_all = judge.faithfulness(q, supported, CONTEXT)
    s_one_off = judge.faithfulness(q, supported + " Paris has forty million inhabitants.", CONTEXT)
    assert s_all.value == 1.0 and s_all.parsed
    assert s_one_off.value == pytest.approx(2 / 3) and s_all.value - s_one_off.value == pytest.approx(1 / 3)
    assert s_one_off.detail["verdicts"] == [1, 1, 0]
    prompt = srv.requests[-1]["body"]["messages"][-1]["content"]
    assert CONTEXT[0] in prompt and "forty million" in prompt  # the real prompt reached the judge


def test_context_recall_precision_and_correctness_against_the_reference(groq_judge, embedder):
    judge, _ = groq_judge
    q, ref = "What is the capital of France?", "Paris is the capital of France."
    assert judge.context_recall(q, CONTEXT, ref).value == 1.0
    assert judge.context_recall(q, CONTEXT[1:], ref).value == 0.0  # the context lacks the gold: recall drops
    two = "Paris is the capital of France. The Seine flows through Paris."
    assert judge.context_recall(q, CONTEXT, two).value == 1.0
    assert judge.context_recall(q, [*CONTEXT[1:], "The Seine flows through Paris."], two).value == 0.5
    # useful context ranked first vs second: RAGAS precision 1.0 vs 0.5
    assert judge.context_precision(q, CONTEXT, ref).value == 1.0
    assert judge.context_precision(q, CONTEXT[::-1], ref).value == pytest.approx(0.5)
    # correctness = 0.75 * F1 + 0.25 * cosine(answer, reference); one TP and one FP: F1 = 2/3
    answer = "Paris is the capital of France. Lyon is the capital of Spain."
    s = judge.answer_correctness(q, answer, ref)
    v = embedder.embed([answer, ref])
    assert (s.detail["tp"], s.detail["fp"], s.detail["fn"]) == (1, 1, 0)
    assert s.value == pytest.approx(0.75 * (2 / 3) + 0.25 * float(v[0] @ v[1]), abs=1e-6)
    rel = judge.answer_relevancy(q, "Paris is the capital of France.")
    assert 0 < rel.value <= 1 and rel.detail["questions"] == ["Paris is the capital of France.?"]
    assert judge.answer_relevancy(q, "I don't know.").value == 0.0  # noncommittal


def test_simpleqa_grades_through_ollama_and_openai_sdks(monkeypatch):
    from ragkit.llms.ollama import OllamaLLM
    from ragkit.llms.openai_compat import OpenAILLM

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOllama(models=("qwen2.5:7b",)) as oll, FakeGroq(valid_key=None) as oai:
        oll.responder = oai.responder = judge_script.responder()
        for llm in (
            OllamaLLM(model="qwen2.5:7b", host=oll.url),
            OpenAILLM(model="gpt-x", base_url=f"{oai.url}/v1"),
        ):
            judge = AnswerJudge(llm)
            assert judge.simpleqa("Capital?", "It is Paris.", "Paris").detail["grade"] == "CORRECT"
            assert judge.simpleqa("Capital?", "It is Lyon.", "Paris").value == 0.0
            assert judge.simpleqa("Capital?", "I don't know.", "Paris").detail["grade"] == "NOT_ATTEMPTED"
        assert oai.requests[-1]["path"] == "/v1/chat/completions" and oll.requests[-1]["path"] == "/api/chat"


def test_malformed_judge_replies_are_counted_not_scored(embedder):
    from ragkit.llms.groq import GroqLLM

    with FakeGroq(answer="Looks fine to me!", valid_key=None) as srv:
        judge = AnswerJudge(GroqLLM(api_key="k", base_url=srv.url), embedder)
        for score in (
            judge.faithfulness("q", "Paris is big.", CONTEXT),
            judge.answer_relevancy("q", "Paris is big."),
            judge.context_precision("q", CONTEXT, "Paris"),
            judge.context_recall("q", CONTEXT, "Paris"),
            judge.answer_correctness("q", "Paris is big.", "Paris"),
            judge.simpleqa("q", "Paris", "Paris"),
        ):
            assert score.value is None and not score.parsed
        srv.answer = '{"statements": ["Paris is big."]}'  # statements parse, verdicts do not (wrong count)
        srv.replies = ['{"statements": ["a", "b"]}', '{"verdicts": [{"verdict": 1}]}']
        s = judge.faithfulness("q", "a. b.", CONTEXT)
        assert s.value is None and s.detail["step"] == "verdicts"


def test_eval_run_with_two_judges_citations_and_agreement(tmp_path, embedder):
    """A run over a collection with a Groq judge (every 7th reply malformed) and a well-behaved Ollama
    second judge: metrics per config with paired CIs, parse failures counted and warned, the judge's
    model and prompts stamped, agreement reported, citation precision/recall per answer."""
    from ragkit.llms.groq import GroqLLM
    from ragkit.llms.ollama import OllamaLLM

    c = tiny_collection(tmp_path)
    qset = load_question_set(text=csv_set(), filename="mine.csv", collection=c)
    a = PipelineConfig(name="bm25", retriever="bm25", confidence_threshold=0.0)
    b = PipelineConfig(name="dense", retriever="dense", confidence_threshold=0.0)
    with FakeGroq(valid_key=None) as g, FakeOllama(models=("llama3.2:latest",)) as o:
        g.responder = judge_script.responder(malformed_every=7)
        o.responder = judge_script.responder()
        j1 = AnswerJudge(GroqLLM(model="big-judge", api_key="k", base_url=g.url))
        j2 = AnswerJudge(OllamaLLM(model="llama3.2", host=o.url))
        metrics = ("faithfulness", "context_recall", "context_precision", "simpleqa")
        result = evaluate_configs(
            qset, [a, b], index_root=str(tmp_path / "eval"), judge=j1, judge2=j2, judge_metrics=metrics
        )
    total_failures = 0
    for cfg in result["configs"]:
        m, models = cfg["metrics"], cfg["models"]
        assert models["judge"] == "groq:big-judge" and models["judge2"] == "ollama:llama3.2"
        assert models["judge_prompts"] == AnswerJudge.prompts_hash() and models["judge_metrics"] == ",".join(
            metrics
        )
        rows = cfg["per_question"].values()
        failures = sum(len(v["judge_failures"]) for v in rows)
        total_failures += failures
        assert m["judge_parse_failures"] == failures and m.get("judge2_judge_parse_failures") == 0
        for v in rows:  # a failed metric has no value; a parsed one has
            for metric in v["judge_failures"]:
                assert v.get(metric if metric != "simpleqa" else "simpleqa_correct") is None
        assert 0 <= m["faithfulness"] <= 1 and 0 <= m["simpleqa_accuracy"] <= 1
        # judge 2 scored every answer: its faithfulness is defined on at least as many answers
        assert cfg["counts"]["judge2_faithfulness"] >= cfg["counts"].get("faithfulness", 0)
        agree = cfg["judge_agreement"]
        assert set(agree) == set(metrics) and "cohen_kappa" in agree["simpleqa"]
        # citations: the extractive backend cites its sources; each answer is checked
        answered = [v for v in rows if not v["abstained"]]
        assert answered and all(v["citation_precision"] is not None for v in answered)
        assert 0 <= m["citation_precision"] <= 1
    compared = {x["metric"] for x in result["comparisons"]}
    assert {"faithfulness", "citation_precision", "simpleqa_correct"} <= compared
    assert total_failures > 0  # every 7th reply was prose: counted, warned, never a zero
    assert any("did not parse for" in w for w in warnings(result))
    md = markdown_report(result)
    assert "## Answer judge" in md and "second judge ollama:llama3.2" in md and "Cohen's κ" in md


def test_cli_judge_run_calibrate_and_calibrated_gauge(tmp_path, monkeypatch, embedder):
    """``eval run --judge groq`` (key and base URL from the environment, never on disk), then ``ragkit
    calibrate`` on the saved JSON, then a pipeline from the calibrated config shows a calibrated gauge."""
    from ragkit.pipeline.rag import RagPipeline

    c = tiny_collection(tmp_path)
    qs = tmp_path / "q.csv"
    # more questions for the calibration: each of the six facts asked three ways, plus absent ones
    rows = ["question,gold_answer"]
    for _, (title, text) in DOCS.items():
        first = text.split(" ")[0]
        rows += [f'"What about {title.lower()}?","{first}"', f'"Tell me about {title}.","{first}"']
    rows += [f'"What did the 19{n}0 world fair cost?",' for n in range(5, 9)]
    qs.write_text("\n".join(rows) + "\n")
    cfg = tmp_path / "bm25.json"
    cfg.write_text(PipelineConfig(name="bm25", retriever="bm25").to_json())
    out = tmp_path / "run.json"
    r, _ = run_with_groq_judge(
        tmp_path, "eval", "run", "--dataset", str(qs), "--config", str(cfg),
        "--metrics", "faithfulness,simpleqa", "--json", str(out),
    )  # fmt: skip
    result = json.loads(out.read_text())
    conf = result["configs"][0]
    assert conf["models"]["judge"] == "groq:judge-8b" and "faithfulness" in conf["metrics"]
    assert "judge groq:judge-8b on faithfulness, simpleqa" in r.stderr
    calibrated = tmp_path / "calibrated.json"
    r = run_ragkit("calibrate", str(out), "--config", "bm25", "--out", str(calibrated))
    assert r.returncode != 0 and "no calibration: 16 labelled questions: a calibration needs at least 30" in (
        r.stderr
    )
    assert not calibrated.exists()
    # the same run with 400 questions on which the gauge under-states its odds (outcome p, gauge p²)
    import numpy as np

    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 400)
    hit = rng.uniform(0, 1, 400) < p
    result["configs"][0]["per_question"] = {
        f"q{i:04d}": {"confidence": float(x * x), "evidence_retrieved": float(h)}
        for i, (x, h) in enumerate(zip(p, hit, strict=True))
    }
    out.write_text(json.dumps(result))
    r = run_ragkit("calibrate", str(out), "--config", "bm25", "--out", str(calibrated))
    assert r.returncode == 0, r.stderr
    assert "calibrated (isotonic)" in r.stdout and "5-fold ECE" in r.stdout
    new = PipelineConfig.load(calibrated)
    assert new.confidence_calibration["n"] == 400 and new.confidence_calibration["scope"] == "collection:tiny"
    assert new.cache_key() != PipelineConfig.load(cfg).cache_key()
    from ragkit.ingestion.chunkers import make_chunker

    store, _ = c.index(make_chunker("sliding"), embedder)
    ans = RagPipeline(new, store, embedder).ask("What hormone controls blood sugar?")
    assert ans.confidence.calibration.startswith("calibrated (isotonic) on q")
    raw = ans.confidence.inputs["raw_value"]
    assert ans.confidence.value == pytest.approx(new_map_apply(new, raw))
    assert ans.to_dict()["confidence"]["inputs"]["calibration"] == ans.confidence.calibration  # kept on save
    r = run_ragkit("calibrate", str(out), "--config", "nope", "--out", str(calibrated))
    assert r.returncode != 0 and "the run has no config 'nope' (it has: bm25)" in r.stderr


def new_map_apply(config: PipelineConfig, raw: float) -> float:
    from ragkit.pipeline.calibration import CalibrationMap

    return CalibrationMap.from_dict(config.confidence_calibration).apply(raw)


def test_cli_sweep_optimises_a_judge_metric_through_the_groq_sdk(tmp_path):
    """``ragkit sweep --metric faithfulness --judge groq``: every set-up's answers graded by the judge
    through the real SDK (key from the environment, never written), the judge's calls counted up front,
    each set-up's index size reported."""
    tiny_collection(tmp_path)
    qs = tmp_path / "q.csv"
    qs.write_text(csv_set())
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"base": {"top_k": 2}, "vary": {"retriever": ["bm25", "dense"]}}))
    out = tmp_path / "sweep.json"
    r, judged = run_with_groq_judge(
        tmp_path, "sweep", "--questions", str(qs), "--grid", str(grid), "--metric", "faithfulness",
        "--json", str(out),
    )  # fmt: skip
    assert "At most 24 judge calls (groq:judge-8b grading faithfulness)" in r.stderr  # 2 set-ups × 6 × 2
    result = json.loads(out.read_text())
    assert result["metric"] == "faithfulness" and result["settings"]["judge"] == "groq:judge-8b"
    assert 0 < judged <= 24
    for cand in result["candidates"]:
        assert cand["questions_evaluated"] == 6 and cand["index_mb"] > 0
        assert cand["mean"] is not None and 0 <= cand["mean"] <= 1  # the judge's grades, not a default
    # BM25 alone reads the collection's text-only index: the same texts, without the 384 float32s a chunk
    sizes = {cand["config"]["retriever"]: round(cand["index_mb"] * 1e6) for cand in result["candidates"]}
    assert 0 < sizes["bm25"] < sizes["dense"] and (sizes["dense"] - sizes["bm25"]) % (384 * 4) == 0


JUDGE_KEY = "gsk_judge_secret_0123456789"


def tiny_collection(tmp_path):
    """The collection "tiny" (the six DOCS) under ``tmp_path/root``."""
    from ragkit.index.collections import Collection

    c = Collection.create("tiny", tmp_path / "root")
    c.add_files([(f"{k}.txt", f"{t}\n\n{x}".encode()) for k, (t, x) in DOCS.items()])
    return c


def run_with_groq_judge(tmp_path, *args: str):
    """``ragkit *args`` over "tiny" with a scripted Groq judge ``groq:judge-8b`` whose key and URL come
    from the environment; the command succeeded and its output and ``--json`` file hold no key.
    Returns the process and the judge's request count."""
    with FakeGroq(valid_key=JUDGE_KEY) as g:
        g.responder = judge_script.responder()
        r = run_ragkit(
            *args, "--collection", "tiny", "--judge", "groq", "--judge-model", "judge-8b",
            "--index-root", str(tmp_path / "eval"),
            GROQ_BASE_URL=g.url, GROQ_API_KEY=JUDGE_KEY, RAGKIT_INDEX_ROOT=str(tmp_path / "root"),
        )  # fmt: skip
        judged = len(g.requests)
    assert r.returncode == 0, r.stderr
    out = Path(args[args.index("--json") + 1])
    assert JUDGE_KEY not in out.read_text() and JUDGE_KEY not in r.stdout + r.stderr
    return r, judged
