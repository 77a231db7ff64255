"""Config fidelity: every PipelineConfig field is declared once, and no field changes what a pipeline
retrieves without changing the key the app caches its retriever under (the sidebar bug of round 3: the
BM25 engine and the dense index never reached Ask and Compare)."""

from __future__ import annotations

import argparse
from dataclasses import fields, replace
from typing import Any

import numpy as np
import pytest

from ragkit.cli.flags import add_config_flags, config_from_args
from ragkit.core.options import NO_LEGACY
from ragkit.index.ingest import open_or_create
from ragkit.ingestion.chunkers import SlidingChunker, chunker_for
from ragkit.ingestion.parsing import OPTIONS as PARSE_OPTIONS
from ragkit.ingestion.parsing import ParseSettings
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import FIELDS, GROUPS
from ragkit.retrievers import retriever_from_config
from tests.conftest import ingest_bytes

#: values for fields whose declared kind has no automatic alternative
SPECIAL: dict[str, Any] = {
    "chunker_params": {"size": 400, "overlap": 50},
    "hybrid_weights": {"bm25": 0.3, "dense": 0.7},
    "prompt_template": {"user": "{sources}\n{question}"},
    "confidence_calibration": {"method": "platt", "a": 1.0, "b": 0.0},
    "embedding_model": "fake/hash-embedder-2",
}


PARSE_FIELDS = tuple(o.key for o in PARSE_OPTIONS)  # they decide the index's path


def alternative(field: str) -> Any:
    return SPECIAL[field] if field in SPECIAL else FIELDS[field].alternative()


def fingerprint(obj: Any, depth: int = 0) -> Any:
    """What a built retriever really is: its class and settings, recursively (the index, the embedder and
    caches left out: they are shared, not settings)."""
    if depth > 6:
        return repr(obj)
    if isinstance(obj, dict):
        return {k: fingerprint(v, depth + 1) for k, v in sorted(obj.items())}
    if isinstance(obj, list | tuple):
        return [fingerprint(v, depth + 1) for v in obj]
    if isinstance(obj, int | float | str | bool | type(None) | np.generic):
        return obj
    if isinstance(obj, set | frozenset):
        return sorted(map(repr, obj))
    if not hasattr(obj, "__dict__"):
        return type(obj).__name__
    attrs = {
        k: fingerprint(v, depth + 1)
        for k, v in vars(obj).items()
        if not k.startswith("_") and k not in ("store", "embedder", "last_intent")
    }
    return {"class": type(obj).__name__, **attrs}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from tests.conftest import FakeEmbedder

    emb = FakeEmbedder()
    st, ch = open_or_create(
        tmp_path_factory.mktemp("fidelity") / "idx", emb, SlidingChunker(size=200, overlap=0)
    )
    ingest_bytes(
        st, [("a.txt", b"Paris is the capital of France."), ("b.md", b"# Rome\n\nRome is in Italy.")], ch, emb
    )
    return st, emb


def test_every_config_field_is_declared_exactly_once():
    assert set(FIELDS) == {f.name for f in fields(PipelineConfig)}
    declared = [o.field for group in GROUPS.values() for o in group if o.field]
    assert len(declared) == len(set(declared))


def test_every_declared_default_passes_its_own_check_and_is_what_empty_inputs_give():
    for name, option in FIELDS.items():
        assert option.check("default", option.default) == option.default, name
    parser = argparse.ArgumentParser()
    add_config_flags(parser, *GROUPS)
    from_cli = config_from_args(parser.parse_args([]))
    assert from_cli == PipelineConfig()
    # a config file that names no value for a field added with a ``legacy`` meaning was written before it
    # existed: it gets that meaning (embedding_backend: torch), every other field its declared default
    before = {n: o.value_before() for n, o in FIELDS.items() if o.legacy is not NO_LEGACY}
    assert before == {"embedding_backend": "torch"}
    assert PipelineConfig.from_dict({}) == replace(PipelineConfig(), **before)
    assert PipelineConfig.from_dict(PipelineConfig().to_dict()) == PipelineConfig()


@pytest.mark.parametrize("field", sorted(FIELDS))
def test_a_field_that_changes_the_retriever_changes_the_apps_cache_key(field, store):
    from ui.resources import RETRIEVER_FIELDS, retriever_settings

    st, emb = store
    # every retriever is built, so that fields of the parts of a hybrid are exercised too
    for retriever in ("bm25", "dense", "hybrid"):
        # the no-retrieval baseline needs a generative backend to be valid at all
        base = PipelineConfig(retriever=retriever, **({"llm": "groq"} if field == "no_retrieval" else {}))
        if field == "retriever":
            continue
        varied = replace(base, **{field: alternative(field)})
        emb.model_id = varied.embedding_model  # a fake model of that name: the retriever checks it
        try:
            st.model_id = varied.embedding_model
            changed = fingerprint(retriever_from_config(varied, st, emb)) != fingerprint(
                retriever_from_config(replace(base, embedding_model=varied.embedding_model), st, emb)
            )
        finally:
            emb.model_id = st.model_id = "fake/hash-embedder"
        index_changed = (
            chunker_for(varied).spec() != chunker_for(base).spec()
            or varied.embedding_model != base.embedding_model
            or varied.embedding_backend != base.embedding_backend  # another backend: another index
            or ParseSettings.of(varied) != ParseSettings.of(base)  # another index: another path
        )
        if changed or index_changed:
            assert field in RETRIEVER_FIELDS, (
                f"{field} changes the {retriever} retriever but is not in its key"
            )
            assert retriever_settings(varied) != retriever_settings(base), field
        elif field in RETRIEVER_FIELDS and retriever == "hybrid":
            # declared as deciding the retriever: the hybrid (which holds every part) must show it, or the
            # reranker must (its fields only act when reranking is on)
            reranked = replace(varied, rerank=True), replace(base, rerank=True)
            assert field in ("chunker", "retriever", *PARSE_FIELDS) or fingerprint(
                retriever_from_config(reranked[0], st, emb)
            ) != fingerprint(retriever_from_config(reranked[1], st, emb)), (
                f"{field} is keyed but has no effect"
            )


def test_the_retriever_fields_are_exactly_the_index_and_retrieval_groups():
    from ui.resources import RETRIEVER_FIELDS

    for name in ("bm25_engine", "dense_index", "hnsw_m", "hnsw_ef_search", "bm25_language"):
        assert name in RETRIEVER_FIELDS  # the round-3 sidebar bug: these were missing
    assert "llm" not in RETRIEVER_FIELDS and "top_k" not in RETRIEVER_FIELDS
