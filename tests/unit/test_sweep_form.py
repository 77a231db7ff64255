"""The Sweep tab's form and the JSON grid round-trip exactly, and the form's dimensions come from the
components' declarations (a new choice option appears by itself)."""

import json
from pathlib import Path

import pytest

from ragkit.app import sweep_form as form
from ragkit.app.sweep_form import (
    CHUNK_MODE,
    EVERY,
    ORDER,
    PAIRED,
    chunk_key,
    dimensions,
    json_key,
    vary_from,
    vary_key,
    widget_values,
)
from ragkit.core.errors import ConfigError
from ragkit.core.options import Option
from ragkit.evaluation.sweep.grid import Grid
from ragkit.pipeline import fields

ROOT = Path(__file__).resolve().parents[2]

GRIDS = [
    # what the form makes: sizes × overlaps, retrievers, weight ratios, k1/b, a switch, top-k
    {
        "chunker_params": [
            {"size": 300, "overlap": 0},
            {"size": 300, "overlap": 50},
            {"size": 800, "overlap": 0},
            {"size": 800, "overlap": 50},
        ],
        "retriever": ["bm25", "hybrid"],
        "bm25_k1": [0.9, 1.5],
        "bm25_b": [0.4, 0.75],
        "hybrid_weights": [{"bm25": 1, "dense": 1}, {"bm25": 2, "dense": 1}, {"bm25": 0.5, "dense": 1.0}],
        "rerank": [False, True],
        "top_k": [3, 5],
    },
    # paired chunk settings, in the grid's own field order
    {
        "retriever": ["dense"],
        "chunker_params": [{"size": 200, "overlap": 50}, {"size": 1000, "overlap": 200}],
    },
    # another chunker's settings (the one chunker varied), ints and floats kept as written
    {"chunker": ["sentence"], "chunker_params": [{"n": 2}, {"n": 5}], "rrf_k": [60, 10.0]},
    # what no control shows exactly: defaults next to explicit settings, a model name, repeats
    {
        "chunker_params": [{}, {"size": 300, "overlap": 50}],
        "embedding_model": ["sentence-transformers/all-MiniLM-L6-v2"],
        "retriever": ["bm25", "bm25"],
        "hybrid_weights": [{"bm25": 1}],
    },
    # several chunkers: their settings only as JSON
    {"chunker": ["sliding", "sentence"], "chunker_params": [{"overlap": 0}]},
]


def canon(vary):
    return list(vary), json.dumps(vary, sort_keys=True)


@pytest.mark.parametrize("vary", GRIDS)
def test_a_grid_shown_in_the_form_makes_the_same_grid(vary):
    shown = widget_values(vary, "sliding")
    assert canon(vary_from(shown, "sliding")) == canon(vary)
    Grid.from_dict({"base": {}, "vary": vary})  # each is a grid the CLI reads


def test_every_grid_in_bench_round_trips_through_the_form():
    for path in sorted((ROOT / "bench" / "sweeps").glob("*.json")):
        grid = Grid.load(path)
        chunker = grid.base.get("chunker", "sliding")
        assert canon(vary_from(widget_values(grid.vary, chunker), chunker)) == canon(grid.vary), path.name


def test_form_values_make_a_grid_that_shows_as_the_same_values():
    typed = widget_values({}, "sliding")
    typed |= {
        chunk_key("size"): "300, 800",
        chunk_key("overlap"): "0, 50",
        vary_key("retriever"): ["bm25", "hybrid"],
        vary_key("hybrid_weights"): "1:1, 2:1, 1:2",
        vary_key("bm25_k1"): "0.9, 1.2, 1.5, 2.0",
        vary_key("rerank"): [False, True],
    }
    vary = vary_from(typed, "sliding")
    assert vary["chunker_params"][:2] == [{"size": 300, "overlap": 0}, {"size": 300, "overlap": 50}]
    assert len(vary["chunker_params"]) == 4 and vary["hybrid_weights"][2] == {"bm25": 1, "dense": 2}
    again = widget_values(vary, "sliding")
    assert again == {**typed, ORDER: list(vary)}
    paired = {**typed, CHUNK_MODE: PAIRED}
    assert vary_from(paired, "sliding")["chunker_params"] == [
        {"size": 300, "overlap": 0},
        {"size": 800, "overlap": 50},
    ]
    assert widget_values(vary_from(paired, "sliding"), "sliding")[CHUNK_MODE] == PAIRED


def test_hand_written_values_the_controls_cannot_show_go_to_json():
    shown = widget_values(GRIDS[3], "sliding")
    assert shown[json_key("chunker_params")] == json.dumps([{}, {"size": 300, "overlap": 50}])
    assert (
        shown[json_key("embedding_model")]
        and shown[json_key("retriever")]
        and shown[json_key("hybrid_weights")]
    )
    assert shown[vary_key("retriever")] == [] and shown[CHUNK_MODE] == EVERY


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ({vary_key("top_k"): "3, x"}, "values of top_k: 'x' is not a number"),
        ({vary_key("bm25_b"): "0.4, 1.5"}, "bm25_b must be between 0 and 1"),
        ({vary_key("hybrid_weights"): "1:1, 2"}, "a ratio bm25 : dense"),
        (
            {chunk_key("size"): "300, 500", chunk_key("overlap"): "50", CHUNK_MODE: PAIRED},
            "2 size and 1 overlap",
        ),
        ({json_key("top_k"): "[3,"}, "values of top_k as JSON"),
    ],
)
def test_a_value_the_form_cannot_take_is_an_error_naming_the_field(typed, says):
    with pytest.raises(ConfigError, match=says):
        vary_from({**widget_values({}, "sliding"), **typed}, "sliding")


def test_the_dimensions_come_from_the_declarations(monkeypatch):
    dims = {d.field: d for d in dimensions()}
    main = {f for f, d in dims.items() if d.section == "main"}
    assert {
        "retriever",
        "chunker",
        "chunker_params",
        "pdf_parser",
        "bm25_k1",
        "bm25_b",
        "hybrid_weights",
    } <= main
    assert "bm25_engine" not in dims  # declared as measuring nothing (same scores)
    assert "embedding_model" not in dims and "ollama_host" not in dims  # free text, a service address
    k1 = dims["bm25_k1"]
    assert (
        "0.9, 1.2, 1.5, 2.0" in k1.placeholder and "typically 0.9–2" in k1.help and "allowed 0–100" in k1.help
    )
    assert "bm25 : dense" in dims["hybrid_weights"].label
    # a choice another component declares tomorrow (an embedding backend) appears with the first choices
    backend = Option(
        "embedding_backend", "choice", "torch", choices=("torch", "onnx"), field="embedding_backend"
    )
    monkeypatch.setitem(fields.GROUPS, "index", (*fields.GROUPS["index"], backend))
    monkeypatch.setitem(fields.FIELDS, "embedding_backend", backend)
    new = {d.field: d for d in form.dimensions()}["embedding_backend"]
    assert new.section == "main" and new.control == "choices" and new.choices == ("torch", "onnx")
