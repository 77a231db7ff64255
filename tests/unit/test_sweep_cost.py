"""The cost shown before a sweep runs: set-ups after merging, indexes to build and which are cached,
question evaluations at most, minutes from the measured rates (and what they rest on), and the
confirmation a grid over the limit asks for."""

import json
from pathlib import Path

import pytest

from ragkit.evaluation.datasets.loaders import BeirDataset
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.runs.beir import dataset_index
from ragkit.evaluation.runs.config_run import embedder_key
from ragkit.evaluation.sweep import cost as cost_mod
from ragkit.evaluation.sweep.cost import CONFIRM_SETUPS, cost_lines, estimate_cost
from ragkit.evaluation.sweep.grid import Grid
from ragkit.evaluation.sweep.rates import (
    CHUNK_RATE,
    embed_rate_name,
    load_rates,
    question_rate_name,
    rate,
    save_rates,
    setup_rate_name,
)
from ragkit.evaluation.sweep.runner import Sweep
from ragkit.ingestion.chunkers import make_chunker
from tests.conftest import FakeEmbedder, write_beir

MODEL = "fake/hash-embedder"
WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()


def beir(n_docs: int = 30, n_queries: int = 40) -> QuestionSet:
    corpus = {
        f"d{i}": (f"title {i}", " ".join(WORDS[(i + j) % 12] for j in range(150))) for i in range(n_docs)
    }
    queries = {str(q): f"what about {WORDS[q % 12]}?" for q in range(n_queries)}
    qrels = {str(q): {f"d{q % n_docs}": 1} for q in range(n_queries)}
    ds = BeirDataset("planted", Path("planted"), corpus, queries, qrels)
    return QuestionSet("planted", "beir", "planted", "hash-beir", beir=ds)


GRID = {
    "base": {"embedding_model": MODEL},
    "vary": {
        "retriever": ["bm25", "dense", "hybrid"],
        "chunker_params": [{"size": 200, "overlap": 0}, {"size": 400, "overlap": 0}],
        "bm25_k1": [0.9, 1.5],
    },
}
RATES = {"bm25": 0.01, "dense": 0.02, "hybrid": 0.03}
SETUP = {"bm25": 0.1, "dense": 0.2, "hybrid": 0.3}


def faked(sweep: Sweep, fake: FakeEmbedder) -> dict:
    """The sweep's embedders: the fake, under the key of every candidate's model and backend."""
    return {embedder_key(c.config): fake for c in sweep.candidates}


def plant_rates(root: Path) -> None:
    rates = {
        question_rate_name(f"retrieval · {r}"): rate(s, "s per question", "planted") for r, s in RATES.items()
    }
    rates |= {
        setup_rate_name(f"retrieval · {r}"): rate(s, "s per set-up", "planted") for r, s in SETUP.items()
    }
    rates[CHUNK_RATE] = rate(1e6, "characters per s", "planted")
    rates[embed_rate_name(f"{MODEL}@float32")] = rate(100.0, "chunks per s", "planted")
    save_rates(root, rates)


def test_the_cost_counts_set_ups_indexes_and_evaluations_on_a_planted_grid(tmp_path):
    qs, fake = beir(), FakeEmbedder(MODEL)
    docs = qs.beir.documents()
    small = make_chunker("sliding", size=200, overlap=0)
    dataset_index(qs.name, docs, small, fake, tmp_path)  # the 200-character index is built already
    plant_rates(tmp_path)
    sweep = Sweep(qs, Grid.from_dict(GRID), "ndcg@10", index_root=tmp_path)
    cost = estimate_cost(sweep, faked(sweep, fake), probe=False)
    # 3 retrievers × 2 chunkings × 2 k1 = 12 combinations; dense reads no k1: 2 merged
    assert (cost["combinations"], cost["candidates"], cost["merged_duplicates"]) == (12, 10, 2)
    assert cost["questions"] == 40 and (cost["n_selection"], cost["n_holdout"]) == (28, 12)
    assert cost["evaluations_max"] == 10 * 40
    states = sorted((ix["label"], ix["state"], len(ix["setups"])) for ix in cost["indexes"])
    assert states == [
        ("sliding(size=200, overlap=0) · hash-embedder", "cached", 3),  # dense + hybrid × 2 k1
        ("sliding(size=200, overlap=0) · text only", "in memory", 2),  # bm25 × 2 k1: chunked, not embedded
        ("sliding(size=400, overlap=0) · hash-embedder", "to build", 3),
        ("sliding(size=400, overlap=0) · text only", "in memory", 2),
    ]
    # minutes from the planted rates: 4 bm25, 2 dense, 4 hybrid set-ups on 40 questions each, each one
    # prepared over its index; three indexes chunked (1e6 characters per s) and one embedded (100 chunks
    # per s); the cached one opened
    chars = sum(len(p.text) for d in docs for p in d.pages)
    chunks = sum(len(make_chunker("sliding", size=400, overlap=0).split(d)) for d in docs)
    questions = 40 * (4 * 0.01 + 2 * 0.02 + 4 * 0.03)
    assert cost["question_minutes"] * 60 == pytest.approx(questions)
    setups = 4 * 0.1 + 2 * 0.2 + 4 * 0.3
    assert cost["build_minutes"] * 60 == pytest.approx(3 * chars / 1e6 + chunks / 100 + setups)
    assert not cost["lower_bound"] and not cost["confirm"]
    lines = "\n".join(cost_lines(cost))
    assert "10 set-ups from 12 combinations, 2 merged" in lines and "4 indexes" in lines
    assert "1 cached" in lines and "1 to build" in lines and "2 in memory" in lines
    assert "At most 400 question evaluations (10 × 40)" in lines
    assert "known only after the race" in lines and "%" not in lines  # no fixed saving is promised
    assert "rests on" in lines and "planted" in lines and "10 ms per question" in lines


def test_a_rate_never_measured_makes_the_estimate_a_lower_bound_and_the_probe_measures_queries(tmp_path):
    qs, fake = beir(), FakeEmbedder(MODEL)
    grid = {"base": {"embedding_model": MODEL}, "vary": {"retriever": ["bm25", "dense"]}}
    sweep = Sweep(qs, Grid.from_dict(grid), "ndcg@10", index_root=tmp_path)
    blind = estimate_cost(sweep, faked(sweep, fake), probe=False)
    assert blind["lower_bound"] and "questions of retrieval · dense" in blind["not_estimated"]
    said = "\n".join(cost_lines(blind))
    assert "at least" in said and "never measured here yet" in said
    probed = estimate_cost(sweep, faked(sweep, fake), probe=True)
    kept = load_rates(tmp_path)  # what the probe measured is kept for the next estimate
    assert question_rate_name("retrieval · dense") in kept and CHUNK_RATE in kept
    assert kept[question_rate_name("retrieval · dense")]["source"].startswith("probe")
    assert embed_rate_name(fake.cache_key) in kept and fake.new_embeddings > 0  # its own chunks, embedded
    assert "questions of retrieval · dense" not in probed["not_estimated"] and not probed["lower_bound"]
    bm25 = kept[question_rate_name("retrieval · bm25")]["source"]
    assert bm25 == "probe over 30 of its documents, 5 questions"
    assert kept[setup_rate_name("retrieval · bm25")]["value"] > 0  # its preparation, timed by the probe too


def test_set_ups_whose_llm_calls_a_server_are_not_probed_and_stay_unknown(tmp_path):
    from tests.unit.test_sweep import PlantedRunner, qset

    PlantedRunner.built = []
    grid = {"base": {"retriever": "bm25"}, "vary": {"llm": ["extractive", "groq"]}}
    sweep = Sweep(qset(), Grid.from_dict(grid), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner)
    cost = estimate_cost(sweep, probe=True)
    unknown = ["preparing set-ups of answers · bm25 · groq", "questions of answers · bm25 · groq"]
    assert cost["not_estimated"] == unknown and cost["lower_bound"]
    assert {b["name"] for b in PlantedRunner.built} == {"extractive"}  # timed; groq never called
    assert "at least" in "\n".join(cost_lines(cost))


def test_a_grid_over_the_limit_asks_for_confirmation(tmp_path, monkeypatch):
    qs = beir()
    plant_rates(tmp_path)
    wide = {"base": {"retriever": "bm25"}, "vary": {"top_k": list(range(1, CONFIRM_SETUPS + 2))}}
    cost = estimate_cost(Sweep(qs, Grid.from_dict(wide), "ndcg@10", index_root=tmp_path), probe=False)
    assert cost["candidates"] == CONFIRM_SETUPS + 1 and "over the limit" in cost["confirm"][0]
    monkeypatch.setattr(cost_mod, "CONFIRM_MINUTES", 0.001)
    narrow = {"base": {"retriever": "bm25"}, "vary": {"top_k": [3, 5]}}
    slow = estimate_cost(Sweep(qs, Grid.from_dict(narrow), "ndcg@10", index_root=tmp_path), probe=False)
    assert slow["candidates"] == 2 and "minute limit" in slow["confirm"][0]


def test_a_finished_sweep_keeps_the_rates_it_measured(tmp_path):
    from tests.unit.test_sweep import PlantedRunner, qset

    grid = {"base": {}, "vary": {"retriever": ["bm25", "dense"]}}
    sweep = Sweep(qset(), Grid.from_dict(grid), "ndcg@10", index_root=tmp_path, runner_factory=PlantedRunner)
    sweep.run()
    kept = json.loads((tmp_path / "sweeps" / "rates.json").read_text())
    for kind in ("answers · bm25 · extractive", "answers · dense · extractive"):
        assert kept[question_rate_name(kind)]["value"] > 0
        assert kept[question_rate_name(kind)]["source"] == "sweep on planted, 1 set-up(s)"


def beir_folder(root: Path, n_docs: int = 30, n_queries: int = 40) -> Path:
    """The planted set as a BEIR folder, as ``ragkit sweep --dataset`` reads it."""
    ds = beir(n_docs, n_queries).beir
    return write_beir(root, ds.corpus, ds.queries, ds.qrels)


def test_the_cli_prints_the_cost_first_and_a_grid_over_the_limit_needs_yes(tmp_path, monkeypatch, capsys):
    import io

    from ragkit.cli import main

    data = beir_folder(tmp_path / "planted")
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"base": {"retriever": "bm25"}, "vary": {"bm25_k1": [0.9, 1.5]}}))
    monkeypatch.setattr(cost_mod, "CONFIRM_SETUPS", 1)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # a script: nobody to ask
    args = ["sweep", "--dataset", str(data), "--grid", str(grid), "--index-root", str(tmp_path / "ix")]
    out = tmp_path / "out.json"
    assert main([*args, "--json", str(out)]) == 2
    said = capsys.readouterr().err
    assert "2 set-ups from 2 combinations" in said and "At most 80 question evaluations" in said
    assert "not started: 2 set-ups, over the limit of 1" in said and "--yes" in said and not out.exists()
    assert main([*args, "--json", str(out), "--yes"]) == 0
    result = json.loads(out.read_text())
    assert result["question_set"]["n_holdout"] == 12 and result["holdout"]["status"] == "scored"
    for c in result["candidates"]:  # every set-up kept is re-scored on the held-out questions
        assert not c["best_within_noise"] or {"holdout_mean", "holdout_ci_low", "holdout_ci_high"} <= set(c)
    assert "optimism" in result and "optimism_ci_low" in result
