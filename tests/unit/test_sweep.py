"""The sweep: grids expanded from the components' declarations, racing over runners with planted scores,
cancellation and resume, constraints, failures, exports."""

import json
from typing import ClassVar

import numpy as np
import pytest

from ragkit.core.errors import ConfigError
from ragkit.evaluation.datasets.loaders import LabelledQuestion
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.runs.config_run import ConfigRun
from ragkit.evaluation.sweep.checkpoint import list_sweeps, save_sweep
from ragkit.evaluation.sweep.grid import Grid, effective_config
from ragkit.evaluation.sweep.report import sweep_csv, sweep_markdown
from ragkit.evaluation.sweep.runner import Sweep
from ragkit.pipeline.config import PipelineConfig

N = 120


def qset(n: int = N) -> QuestionSet:
    qs = [LabelledQuestion(f"q{i}", f"question {i}?", answers=("x",)) for i in range(n)]
    return QuestionSet("planted", "questions", "planted.jsonl", "hash-1", qs)


class PlantedRunner:
    """A runner whose per-question nDCG is planted: a shared difficulty plus the config's offset
    (by retriever and bm25_k1) and noise; counts every question it answers."""

    OFFSET: ClassVar[dict[str, float]] = {"bm25": -0.45, "dense": 0.0, "hybrid": 0.0}
    answered: ClassVar[list[tuple[str, str]]] = []

    built: ClassVar[list[dict]] = []

    def __init__(self, qs, config, embedders, index_root, **judging):
        PlantedRunner.built.append({"name": config.name, **judging})
        if config.retriever == "hybrid" and config.rrf_k == 1.0:
            raise RuntimeError("planted failure: cannot build this index")
        self.config, self.rows = config, {}
        seed = 7 if config.retriever == "dense" else 11
        rng = np.random.default_rng(seed)
        difficulty = np.random.default_rng(1).uniform(0, 1, N)
        self.values = np.clip(difficulty + self.OFFSET[config.retriever] + rng.normal(0, 0.2, N), 0, 1)
        self.latency = 50.0 if config.top_k == 9 else 5.0
        self.index_bytes = 5_000_000 if config.retriever == "bm25" else 40_000_000  # texts; + vectors

    def step(self, q):
        i = int(q.qid[1:])
        PlantedRunner.answered.append((self.config.name, q.qid))
        self.rows[q.qid] = {
            "ndcg@10": float(self.values[i]),
            "latency_ms": self.latency,
            "intent": "factual" if i % 2 else "why",
            "question": q.question,
        }

    def finish(self):
        return ConfigRun(self.config, dict(self.rows), {}, {})


@pytest.fixture(autouse=True)
def _reset():
    PlantedRunner.answered = []
    PlantedRunner.built = []


GRID = {"base": {"top_k": 5}, "vary": {"retriever": ["bm25", "dense", "hybrid"], "bm25_k1": [0.9, 1.2]}}


def make(grid=GRID, tmp_path=None, **kw) -> Sweep:
    """A sweep over the planted runner; racing on every question unless the test holds some out."""
    kw.setdefault("holdout", 0.0)
    return Sweep(
        qset(), Grid.from_dict(grid), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner, **kw
    )


def test_grid_merges_set_ups_that_differ_only_in_options_nothing_reads():
    cands, merged = Grid.from_dict(GRID).candidates()
    assert [c.name for c in cands] == [
        "bm25 · bm25_k1=0.9",
        "bm25 · bm25_k1=1.2",
        "dense",
        "hybrid · bm25_k1=0.9",
        "hybrid · bm25_k1=1.2",
    ]
    assert merged == [
        {"name": "dense · bm25_k1=1.2", "same_as": "dense", "why": "dense does not read bm25_k1"}
    ]
    dense = PipelineConfig(retriever="dense", bm25_k1=1.5, rerank_candidates=10)
    assert effective_config(dense).bm25_k1 == PipelineConfig().bm25_k1
    assert effective_config(dense).rerank_candidates == PipelineConfig().rerank_candidates
    assert effective_config(PipelineConfig(retriever="hybrid", bm25_k1=1.5)).bm25_k1 == 1.5


@pytest.mark.parametrize(
    ("grid", "says"),
    [
        ({"vary": {"colour": ["red"]}}, "cannot vary 'colour'"),
        ({"vary": {"retriever": []}}, "non-empty list"),
        ({"vary": {"top_k": [5, 0]}}, "top_k"),
        ({"base": {"retriever": "nope"}}, "retriever"),
        ([1, 2], "JSON object"),
    ],
)
def test_a_bad_grid_is_an_error_naming_the_field(grid, says):
    with pytest.raises(ConfigError, match=says):
        Grid.from_dict(grid).candidates()


def test_grid_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "g.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match=r"g\.json"):
        Grid.load(bad)


def test_racing_drops_the_worse_set_ups_early_and_names_the_best_within_noise(tmp_path):
    result = make(tmp_path=tmp_path).run(checkpoint=False)
    by_name = {c["name"]: c for c in result["candidates"]}
    assert result["status"] == "questions done" and result["finished"]
    for name in ("bm25 · bm25_k1=0.9", "bm25 · bm25_k1=1.2"):
        c = by_name[name]
        assert c["dropped_after"] is not None and c["dropped_after"] < N / 2
        assert not c["best_within_noise"] and "worse than" in c["drop"]["sentence"]
        assert c["questions_evaluated"] == c["dropped_after"]
    winners = {by_name[n]["config_hash"] for n in ("dense", "hybrid · bm25_k1=0.9", "hybrid · bm25_k1=1.2")}
    assert set(result["best_within_noise"]) == winners  # equal hybrids (same scores) and dense: no winner
    assert result["evaluations_full"] == 5 * N
    assert result["evaluations_used"] == len(PlantedRunner.answered) < result["evaluations_full"]
    assert by_name["dense"]["by_intent"]["why"]["n"] == N // 2
    assert "vs_best" in by_name["bm25 · bm25_k1=0.9"]


def test_exhaustive_sweep_runs_every_set_up_on_every_question(tmp_path):
    result = make(tmp_path=tmp_path, racing=False).run(checkpoint=False)
    assert result["evaluations_used"] == result["evaluations_full"] == 5 * N
    assert result["settings"]["schedule"]["looks"] == [N]
    assert len(result["best_within_noise"]) == 3  # the bm25 set-ups are worse at full alpha too


def test_building_a_set_ups_index_reports_its_stages_named_by_the_set_up(tmp_path):
    class Embedding(PlantedRunner):  # building an index: a stage with its own count, before any question
        def __init__(self, qs, config, embedders, index_root, progress=None, **judging):
            super().__init__(qs, config, embedders, index_root, **judging)
            for done in (0, 40, 80):
                progress("embed", done, 80)

    events = []
    s = make(tmp_path=tmp_path, budget=5)
    s.make_runner = Embedding
    s.run(lambda stage, done, total: events.append((stage, done, total)), checkpoint=False)
    assert ("embed — for bm25 · bm25_k1=0.9", 40, 80) in events
    assert events.index(("embed — for bm25 · bm25_k1=0.9", 80, 80)) < next(
        i for i, e in enumerate(events) if e[0].startswith("sweep — look 1 of")
    )  # reported while it is built, before the set-up's first question
    # without a progress callback nothing is passed (a runner need not take one)
    make(tmp_path=tmp_path, budget=5).run(checkpoint=False)


def test_a_set_ups_build_counts_the_chunks_its_own_backends_embedder_embedded(tmp_path):
    """Embedders are kept by model and backend (as the app and the runners make them): a build's new
    embeddings, which the embedding rate rests on, are read from the embedder the set-up used."""
    from ragkit.evaluation.runs.config_run import embedder_for, embedder_key
    from tests.conftest import FakeEmbedder

    class Embedding(PlantedRunner):
        def __init__(self, qs, config, embedders, index_root, **judging):
            super().__init__(qs, config, embedders, index_root, **judging)
            if config.retriever != "bm25":
                embedder_for(config, embedders).embed([f"{config.name} chunk {i}" for i in range(3)])

    grid = {"base": {"embedding_backend": "onnx-int8"}, "vary": {"retriever": ["bm25", "dense"]}}
    s = make(grid, tmp_path=tmp_path, budget=2)
    fake = s.embedders[embedder_key(s.candidates[0].config)] = FakeEmbedder()
    s.make_runner = Embedding
    s.run(checkpoint=False)
    assert embedder_key(s.candidates[0].config)[1] == "onnx-int8"
    built = {b["candidate"]: b["new_embeddings"] for b in s.timing["builds"]}
    assert built == {c.key: (0 if c.config.retriever == "bm25" else 3) for c in s.candidates}
    assert fake.new_embeddings == 3


def resume_and_run(tmp_path, holdout=0.0):
    """What ``ragkit sweep`` and *Start sweep* do with the same grid: load the checkpoint, then race."""
    sweep = Sweep(
        qset(),
        Grid.from_dict(GRID),
        metric="ndcg@10",
        index_root=tmp_path,
        runner_factory=PlantedRunner,
        holdout=holdout,
    )
    sweep.resume()
    return sweep.run()


def test_cancel_keeps_what_was_measured_and_the_same_sweep_resumes(tmp_path):
    calls = {"n": 0}

    def stop_after_50():
        calls["n"] += 1
        return calls["n"] > 50

    first = make(tmp_path=tmp_path).run(should_stop=stop_after_50)
    assert first["status"] == "cancelled" and not first["finished"]
    assert first["evaluations_used"] == 50 == len(PlantedRunner.answered)
    PlantedRunner.answered = []
    resumed = resume_and_run(tmp_path)
    assert len(PlantedRunner.answered) == resumed["evaluations_used"] - 50  # nothing asked twice
    uninterrupted = make(tmp_path=tmp_path / "other").run(checkpoint=False)
    strip = lambda r: [(c["name"], c["mean"], c["dropped_after"]) for c in r["candidates"]]  # noqa: E731
    assert strip(resumed) == strip(uninterrupted)
    PlantedRunner.answered = []
    again = resume_and_run(tmp_path)
    assert PlantedRunner.answered == [] and strip(again) == strip(resumed)  # re-run in place: no work


def test_a_latency_ceiling_drops_slow_set_ups_with_the_reason(tmp_path):
    grid = {"base": {}, "vary": {"retriever": ["dense"], "top_k": [5, 9]}}
    result = make(grid, tmp_path=tmp_path, max_latency_ms=20).run(checkpoint=False)
    slow = next(c for c in result["candidates"] if c["name"] == "dense · top_k=9")
    assert slow["drop"]["reason"] == "constraint" and "ceiling" in slow["drop"]["sentence"]
    assert result["status"] == "one left"


def test_a_failing_set_up_is_recorded_and_the_others_finish(tmp_path):
    grid = {"base": {}, "vary": {"retriever": ["dense", "hybrid"], "rrf_k": [60.0, 1.0]}}
    result = make(grid, tmp_path=tmp_path).run(checkpoint=False)
    failed = [c for c in result["candidates"] if c["failure"]]
    assert [c["name"] for c in failed] == ["hybrid · rrf_k=1.0"]
    assert "planted failure" in failed[0]["failure"]["error"]
    assert failed[0]["config_hash"] not in result["best_within_noise"]


def test_budget_stops_the_sweep(tmp_path):
    result = make(tmp_path=tmp_path, budget=30).run(checkpoint=False)
    assert result["status"] == "budget spent" and result["evaluations_used"] == 30


def test_exports_and_saved_sweeps(tmp_path):
    result = make(tmp_path=tmp_path).run(checkpoint=False)
    md = sweep_markdown(result)
    assert "Not significantly worse than the best (3)" in md and "dropped after" in md
    rows = sweep_csv(result).splitlines()
    assert rows[0].startswith("name,config_hash,ndcg@10") and len(rows) == 6
    path = save_sweep(result, tmp_path)
    assert json.loads(path.read_text())["sweep_id"] == result["sweep_id"]
    assert list_sweeps(tmp_path)[0]["sweep_id"] == result["sweep_id"]


def test_an_index_size_ceiling_drops_set_ups_before_they_answer_anything(tmp_path):
    result = make(tmp_path=tmp_path, max_index_mb=10).run(checkpoint=False)
    by_name = {c["name"]: c for c in result["candidates"]}
    for name in ("dense", "hybrid · bm25_k1=0.9", "hybrid · bm25_k1=1.2"):
        c = by_name[name]
        assert c["index_mb"] == 40.0 and c["questions_evaluated"] == 0 and c["drop"]["reason"] == "constraint"
        assert "index 40.0 MB (texts + vectors) > the 10 MB ceiling" in c["drop"]["sentence"]
    assert {n for n, _ in PlantedRunner.answered} == {"bm25 · bm25_k1=0.9", "bm25 · bm25_k1=1.2"}
    assert by_name["bm25 · bm25_k1=0.9"]["index_mb"] == 5.0
    assert result["settings"]["max_index_mb"] == 10 and "| index MB |" in sweep_markdown(result)
    # a set-up that answered nothing has no latency and no difference to the best, not "best"
    line = next(x for x in sweep_markdown(result).splitlines() if x.startswith("| dense |"))
    assert line.startswith("| dense | – | 0 | – | – | 40.0 | – | dropped after 0 questions")
    # without a ceiling the sizes are reported all the same, and the ceiling is part of the sweep's identity
    assert make(tmp_path=tmp_path).key() != make(tmp_path=tmp_path, max_index_mb=10).key()


def test_the_pareto_front_counts_a_smaller_index_as_better():
    from ragkit.evaluation.metrics.pareto import Point, dominates, pareto_front

    small = Point("small", 5.0, 0.7, 4.0, 6.0, 0.65, 0.75, size=10.0)
    big = Point("big", 5.0, 0.7, 4.0, 6.0, 0.65, 0.75, size=40.0)
    assert dominates(small, big) and not dominates(big, small)
    assert pareto_front([small, big]) == ["small"]
    # size unknown on one side: latency and quality alone decide (here: neither)
    assert pareto_front([small, big._replace(size=None)]) == ["small", "big"]


class Judge:
    model_id = "groq:judge-8b"
    llm = None


def test_a_judge_metric_needs_a_judge_and_reaches_every_runner(tmp_path, monkeypatch):
    from ragkit.core.errors import RagkitError

    monkeypatch.delenv("GROQ_API_KEY", raising=False)

    with pytest.raises(RagkitError, match="faithfulness is graded by an LLM judge: choose a judge backend"):
        Sweep(qset(), Grid.from_dict(GRID), "faithfulness", index_root=tmp_path, runner_factory=PlantedRunner)
    beir = QuestionSet("scifact", "beir", "scifact/", "hash-b", [])
    with pytest.raises(RagkitError, match="a BEIR set is ranked by retrieval only"):
        Sweep(beir, Grid.from_dict(GRID), "faithfulness", judge=Judge(), runner_factory=PlantedRunner)
    from ragkit.evaluation.metrics.judge import AnswerJudge
    from ragkit.llms.groq import GroqLLM

    keyless = AnswerJudge(GroqLLM(model="judge-8b", api_key=None))
    with pytest.raises(RagkitError, match="no Groq API key"):  # before any set-up is built
        Sweep(qset(), Grid.from_dict(GRID), "faithfulness", judge=keyless, runner_factory=PlantedRunner)
    assert PlantedRunner.built == []
    judge = Judge()
    s = Sweep(
        qset(),
        Grid.from_dict(GRID),
        "simpleqa_correct",
        judge=judge,
        index_root=tmp_path,
        runner_factory=PlantedRunner,
        budget=5,
    )
    s.run(checkpoint=False)
    assert PlantedRunner.built and all(
        b["judge"] is judge and b["judge_metrics"] == ("simpleqa",) for b in PlantedRunner.built
    )
    assert s.result()["settings"]["judge"] == "groq:judge-8b"
    # a retrieval metric passes no judge to the runners, and the judge is part of the sweep's identity
    PlantedRunner.built = []
    make(tmp_path=tmp_path, budget=5).run(checkpoint=False)
    assert PlantedRunner.built and all("judge" not in b for b in PlantedRunner.built)


def test_the_estimate_counts_the_judges_calls():
    grid = Grid.from_dict({"base": {"top_k": 4}, "vary": {"retriever": ["bm25", "dense"]}})
    assert grid.estimate(10, False)["judge_calls_max"] == 0
    assert grid.estimate(10, False, "faithfulness")["judge_calls_max"] == 2 * 10 * 2  # statements + verdicts
    assert grid.estimate(10, False, "context_precision")["judge_calls_max"] == 2 * 10 * 4  # one per chunk


def test_a_ceiling_every_set_up_breaks_ends_the_sweep_with_none_left(tmp_path):
    result = make(tmp_path=tmp_path, max_index_mb=1).run(checkpoint=False)
    assert result["status"] == "none left" and result["finished"] and result["best_within_noise"] == []
    assert PlantedRunner.answered == [] and result["evaluations_used"] == 0


def test_a_set_up_in_the_best_set_says_why_it_was_kept_in_the_last_looks_terms(tmp_path):
    """Its interval beside the best is one comparison's; the decision was the corrected test: the
    outcome gives p × the last look's comparisons against that look's alpha (or the Friedman gate)."""
    from ragkit.evaluation.sweep.report import outcome

    result = make(tmp_path=tmp_path).run(checkpoint=False)
    last = result["looks"][-1]
    kept = [c for c in result["candidates"] if c["best_within_noise"] and "vs_best" in c]
    assert kept
    for c in kept:
        vs = c["vs_best"]
        assert vs["comparisons"] == last["alive_before"] - 1 and vs["alpha"] == last["alpha"]
        assert vs["p_corrected"] == pytest.approx(min(1.0, vs["p_value"] * vs["comparisons"]))
        assert outcome(c).startswith("in the best set (") and f"{vs['alpha']:.2g}" in outcome(c)
    base = {"best_within_noise": True, "drop": None, "failure": None}
    vs = {"n": 120, "p_value": 0.003, "comparisons": 20, "p_corrected": 0.06, "alpha": 0.025}
    assert outcome({**base, "vs_best": {**vs, "friedman_p": 1e-9}}) == (
        "in the best set (p = 0.003 × 20 comparisons = 0.06 ≥ 0.025)"
    )
    gate = outcome({**base, "vs_best": {**vs, "friedman_p": 0.4}})
    assert "Friedman p = 0.4 ≥ 0.025" in gate
    ci = outcome({**base, "vs_best": {**vs, "p_corrected": 0.01, "friedman_p": None}})
    assert ci == "in the best set (its interval includes 0)"
    assert outcome({**base}) == "in the best set"  # the best itself
