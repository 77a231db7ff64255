"""Unit tests of :mod:`ragkit.pipeline.config`."""

from __future__ import annotations

import json

import pytest

from ragkit.core.errors import ConfigError
from ragkit.pipeline.config import PipelineConfig

HOSTILE = [
    ({"top_k": "5"}, "top_k must be a whole number, got str"),
    ({"top_k": None}, "top_k must be a whole number, got NoneType"),
    ({"top_k": 5.5}, "top_k must be a whole number, got float"),
    ({"top_k": True}, "top_k must be a whole number, got bool"),
    ({"top_k": 0}, "top_k must be between 1 and 1000"),
    ({"hybrid_weights": "abc"}, "hybrid_weights must be an object"),
    ({"hybrid_weights": {"bm25": float("nan"), "dense": 1}}, "hybrid_weights.bm25 must be a finite number"),
    ({"hybrid_weights": {"bm25": float("inf")}}, "hybrid_weights.bm25 must be a finite number"),
    ({"hybrid_weights": {"bm25": -1}}, "hybrid_weights.bm25 must be between 0"),
    ({"hybrid_weights": {"sparse": 1}}, "unknown retrievers ['sparse']"),
    ({"hybrid_weights": {"bm25": 0, "dense": 0}}, "all zero"),
    ({"bm25_k1": float("nan")}, "bm25_k1 must be a finite number"),
    ({"bm25_b": 2}, "bm25_b must be between 0 and 1"),
    ({"rrf_k": float("inf")}, "rrf_k must be a finite number"),
    ({"no_retrieval": "false"}, "no_retrieval must be true or false (a JSON boolean), got 'false'"),
    ({"rerank": 1}, "rerank must be true or false"),
    ({"intent_routing": None}, "intent_routing must be true or false"),
    ({"temperature": "hot"}, "temperature must be a number, got str"),
    ({"confidence_threshold": 1.5}, "confidence_threshold must be between 0 and 1"),
    ({"llm_model": 7}, "llm_model must be a string, got int"),
    ({"embedding_model": ""}, "embedding_model must not be empty"),
    ({"name": ["x"]}, "name must be a string"),
    ({"chunker_params": {"size": "500"}}, "chunker_params: sliding: size must be a whole number"),
    ({"chunker_params": {"size": 500, "window": 3}}, "chunker_params: sliding chunker"),
    ({"chunker_params": [1, 2]}, "chunker_params must be an object"),
    ({"chunker": "markdown", "chunker_params": {"max_chars": 1.5}}, "max_chars must be a whole number"),
    ({"retriever": "sparse"}, "retriever must be one of dense, bm25, hybrid"),
    ({"llm": "extractive", "no_retrieval": True}, "no-retrieval baseline needs a language model"),
    ({"rerank_candidates": -3}, "rerank_candidates must be between 1"),
    ({"max_tokens": 10**12}, "max_tokens must be between 1 and 1000000"),
]


@pytest.mark.parametrize("fields, message", HOSTILE)
def test_every_hostile_config_is_one_config_error_naming_the_field(fields, message):
    with pytest.raises(ConfigError) as e:
        PipelineConfig.from_dict(fields)
    assert message in str(e.value)
    # the same through JSON, as an import or a --config file would arrive (NaN/inf are valid Python JSON)
    with pytest.raises(ConfigError):
        PipelineConfig.from_json(json.dumps(fields))


def test_deeply_nested_or_non_object_json_is_a_config_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ConfigError, match="nested too deeply"):
        PipelineConfig.from_json(deep)
    with pytest.raises(ConfigError, match="must be an object"):
        PipelineConfig.from_json("[1, 2]")
    nested: dict = {"a": 1}
    for _ in range(500):
        nested = {"a": nested}
    with pytest.raises(ConfigError, match="unknown config keys"):
        PipelineConfig.from_json(json.dumps({"top_k": 3, "k" * 50: nested}))
    with pytest.raises(
        ConfigError,
        match=r"chunker_params: sliding: size must be a whole number, got dict \{'a': \{'a': \{\.\.\.\}\}\}",
    ):
        PipelineConfig.from_json(json.dumps({"chunker_params": {"size": nested}}))
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{")
    with pytest.raises(ConfigError, match=r"bad\.json"):
        PipelineConfig.load(bad)


def test_valid_numbers_are_normalised():
    cfg = PipelineConfig.from_dict(
        {"bm25_k1": 1, "temperature": 0, "hybrid_weights": {"bm25": 2, "dense": 1}}
    )
    assert cfg.bm25_k1 == 1.0 and isinstance(cfg.bm25_k1, float)
    assert cfg.hybrid_weights == {"bm25": 2.0, "dense": 1.0}
    assert PipelineConfig.from_json(cfg.to_json()) == cfg


def test_hnsw_options_in_the_config():
    from ragkit.pipeline.config import PipelineConfig

    c = PipelineConfig(dense_index="hnsw", hnsw_m=16, hnsw_ef_search=128)
    assert PipelineConfig.from_json(c.to_json()) == c and c.cache_key() != PipelineConfig().cache_key()
    with pytest.raises(ConfigError, match="dense_index must be one of"):
        PipelineConfig(dense_index="ivf")
    with pytest.raises(ConfigError, match="hnsw_m"):
        PipelineConfig(hnsw_m=1)
