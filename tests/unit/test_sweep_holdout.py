"""Selection and report on different questions: the split (seeded, stratified by document, stable across a
resume), the held-out re-scoring of the set the race kept, and the winner's curse it measures."""

from typing import ClassVar

import numpy as np
import pytest

from ragkit.core.errors import ConfigError
from ragkit.evaluation.datasets.loaders import LabelledQuestion
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.runs.config_run import ConfigRun
from ragkit.evaluation.sweep.grid import Grid
from ragkit.evaluation.sweep.holdout import held_count, min_questions, optimism, split, stratum
from ragkit.evaluation.sweep.report import optimism_text, sweep_csv, sweep_markdown
from ragkit.evaluation.sweep.runner import Sweep
from tests.unit.test_sweep import GRID, N, PlantedRunner, qset


@pytest.fixture(autouse=True)
def _reset():
    PlantedRunner.answered = []
    PlantedRunner.built = []


def by_document(docs: int = 10, per_doc: int = 10, absent: int = 5) -> QuestionSet:
    qs = [
        LabelledQuestion(
            f"d{d}q{i}", f"question {i} on doc {d}?", answers=("x",), relevant=((f"doc{d}.pdf", 1),)
        )
        for d in range(docs)
        for i in range(per_doc)
    ]
    qs += [LabelledQuestion(f"none{i}", f"nothing {i}?", absent=True) for i in range(absent)]
    return QuestionSet("docs", "questions", "docs.jsonl", "hash-docs", qs)


def test_the_split_is_stratified_by_document_and_seeded():
    qs = by_document()
    ids = [q.qid for q in qs.questions]
    doc = {q.qid: stratum(qs, q) for q in qs.questions}
    race, held, status = split(ids, doc.get, 0.3, seed=0)
    assert status == "split" and len(held) == held_count(len(ids), 0.3) == 32
    assert sorted(race + held) == sorted(ids) and not set(race) & set(held)
    assert [q for q in ids if q in set(race)] == race  # each part keeps the given order
    per_doc = {d: sum(doc[q] == d for q in held) for d in set(doc.values())}
    # every document gives its 30 % (10 questions: 3 each), not whatever a shuffle happened to give it
    assert all(per_doc[f"doc{d}.pdf"] == 3 for d in range(10)) and per_doc["(no evidence)"] == 2
    assert split(ids, doc.get, 0.3, seed=0) == (race, held, status)  # seeded: the same every time
    assert split(list(reversed(ids)), doc.get, 0.3, seed=0)[1] == list(reversed(held))
    assert set(split(ids, doc.get, 0.3, seed=1)[1]) != set(held)


@pytest.mark.parametrize("share", [-0.1, 0.6, 1.0])
def test_a_share_the_race_could_not_run_on_is_refused(share):
    with pytest.raises(ConfigError, match=r"held-out share must be between 0 and 0\.5"):
        split([str(i) for i in range(100)], str, share, 0)


def test_a_beir_query_is_stratified_by_its_best_graded_document():
    class Beir:
        qrels: ClassVar[dict] = {"1": {"b": 1, "a": 1, "c": 2}, "2": {"z": 1, "y": 1}, "3": {}}

    beir = QuestionSet("b", "beir", "b", "h", beir=Beir())
    assert [stratum(beir, q) for q in ("1", "2", "3")] == ["c", "y", "(no evidence)"]


def test_too_few_questions_are_not_split_and_the_scores_are_called_optimistic(tmp_path):
    n = min_questions(0.3)
    assert held_count(n, 0.3) >= 10 and n - held_count(n, 0.3) >= 20
    assert held_count(n - 1, 0.3) < 10 or n - 1 - held_count(n - 1, 0.3) < 20
    assert split([str(i) for i in range(n - 1)], str, 0.3, 0)[2] == "too few questions"
    sweep = Sweep(
        qset(n - 1), Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner
    )
    result = sweep.run(checkpoint=False)
    assert len(sweep.items) == n - 1 and result["holdout"]["status"] == "too few questions"
    assert result["selection_optimistic"] and result["optimism"] is None
    assert not any("holdout_mean" in c for c in result["candidates"])
    text = optimism_text(result)
    assert "optimistic" in text and f"at least {n}" in text and "optimistic" in sweep_markdown(result)


class EqualRunner:
    """Set-ups that are all equally good: each set-up's per-question scores are its own shuffle of the
    same values, so over all the questions every mean is exactly the same. Only noise tells them apart."""

    VALUES = np.linspace(0.0, 1.0, 200)

    def __init__(self, qs, config, embedders, index_root, **judging):
        rng = np.random.default_rng(config.top_k)
        self.values, self.config, self.rows = rng.permutation(self.VALUES), config, {}

    def step(self, q):
        self.rows[q.qid] = {"ndcg@10": float(self.values[int(q.qid[1:])]), "latency_ms": 1.0}

    def finish(self):
        return ConfigRun(self.config, dict(self.rows), {}, {})


def test_the_winner_of_equal_noisy_set_ups_scores_lower_on_questions_the_race_never_saw(tmp_path):
    grid = {"base": {"retriever": "bm25"}, "vary": {"top_k": list(range(1, 13))}}
    sweep = Sweep(qset(200), Grid.from_dict(grid), "ndcg@10", index_root=tmp_path, runner_factory=EqualRunner)
    result = sweep.run(checkpoint=False)
    assert result["holdout"]["status"] == "scored"
    assert result["question_set"]["n_selection"] == 140 and result["question_set"]["n_holdout"] == 60
    win = next(c for c in result["candidates"] if c["config_hash"] == result["best"])
    true_mean = float(EqualRunner.VALUES.mean())
    # by construction every set-up's mean over all 200 questions is the same: the winner is noise
    assert (140 * win["mean"] + 60 * win["holdout_mean"]) / 200 == pytest.approx(true_mean, abs=1e-12)
    assert win["mean"] > true_mean > win["holdout_mean"]  # picked for its luck, which does not hold out
    assert result["optimism"] == pytest.approx(win["mean"] - win["holdout_mean"]) and result["optimism"] > 0
    assert result["optimism_ci_low"] < result["optimism"] < result["optimism_ci_high"]
    assert win["holdout_ci_low"] < win["holdout_mean"] < win["holdout_ci_high"] and win["holdout_n"] == 60
    assert not result["selection_optimistic"]
    # and as every mean over all questions is the same, a luckier race means unluckier held-out questions:
    # the race's winner is the last of the set-ups kept on them, and the pick's own optimism is its lead
    kept = [c for c in result["candidates"] if c["best_within_noise"]]
    lead = win["mean"] - sum(c["mean"] for c in kept) / len(kept)
    assert win["holdout_rank"] == len(kept) > 1 and sorted(c["holdout_rank"] for c in kept) == list(
        range(1, len(kept) + 1)
    )
    assert result["pick_optimism"] == pytest.approx((1 + 140 / 60) * lead) and lead > 0
    for c in result["candidates"]:  # every set-up the race kept is re-scored, with its interval
        assert ("holdout_mean" in c) == c["best_within_noise"]
    header = sweep_csv(result).splitlines()[0]
    assert "holdout_mean,holdout_ci_low,holdout_ci_high,optimism" in header
    assert "held out" in optimism_text(result) and "Optimism (selection − held-out): +" in optimism_text(
        result
    )


def test_optimism_turns_with_a_metric_where_lower_is_better():
    flattering = optimism([0.1, 0.2, 0.1], [0.3, 0.4, 0.3], higher_is_better=False)
    assert flattering is not None and flattering[0] == pytest.approx(0.2)
    assert optimism([0.5], [], True) is None


def test_only_the_set_the_race_kept_answers_the_held_out_questions(tmp_path):
    sweep = Sweep(qset(), Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner)
    result = sweep.run(checkpoint=False)
    held = sweep.held_ids
    assert len(held) == held_count(N, 0.3) and result["holdout"]["question_ids"] == sorted(held)
    asked = {}
    for name, q in PlantedRunner.answered:
        asked.setdefault(name, set()).add(q)
    for c in result["candidates"]:
        answered_held = asked.get(c["name"], set()) & held
        assert answered_held == (held if c["best_within_noise"] else set()), c["name"]
        assert c["questions_evaluated"] <= N - len(held)  # the race never saw a held-out question
    assert result["holdout_evaluations"] == len(held) * len(result["best_within_noise"])
    assert result["evaluations_full"] == len(result["candidates"]) * (N - len(held))


def test_a_sweep_cancelled_while_re_scoring_resumes_on_the_same_held_out_questions(tmp_path):
    first = Sweep(qset(), Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner)

    def stop():  # stop once seven held-out answers are in: the race is over, its re-scoring is not
        return sum(q in first.held_ids for _, q in PlantedRunner.answered) >= 7

    cut = first.run(should_stop=stop)
    assert cut["status"] == "cancelled" and cut["holdout"]["status"].startswith("not scored")
    assert "optimistic until it is re-scored on the held-out questions" in optimism_text(cut)
    before = list(PlantedRunner.answered)
    again = Sweep(qset(), Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner)
    assert again.held_ids == first.held_ids and again.key() == first.key()
    assert again.resume() == len(before)
    PlantedRunner.answered = []
    resumed = again.run()
    assert not set(PlantedRunner.answered) & set(before)  # nothing asked twice
    assert all(q in again.held_ids for _, q in PlantedRunner.answered)  # only re-scoring was left
    assert resumed["holdout"]["status"] == "scored"
    whole = Sweep(
        qset(), Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path / "x", runner_factory=PlantedRunner
    ).run(checkpoint=False)
    strip = lambda r: [(c["name"], c["mean"], c.get("holdout_mean")) for c in r["candidates"]]  # noqa: E731
    assert strip(resumed) == strip(whole)
