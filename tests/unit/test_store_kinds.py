"""Vector stores are declared once: the CLI's store flags, the sidebar's "Vectors in" choices and the
manifest's store spec all come from the declarations (a store added in one place appears everywhere)."""

from __future__ import annotations

import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option
from ragkit.index.vectorstores import STORES, StoreKind, describe_store, store_spec


class DummyKind(StoreKind):
    component = Component(
        "store",
        "dummy",
        "a store made up for this test",
        options=(Option("shards", "int", 1, 1, 8, flag="--dummy-shards", help="how many shards"),),
        extras={"choices": {"Dummy, sharded": False}},
    )

    @classmethod
    def describe(cls, spec):
        return f"dummy with {spec.get('shards', 1)} shards"


@pytest.fixture
def dummy(monkeypatch):
    monkeypatch.setitem(STORES._classes, "dummy", DummyKind)


def test_a_declared_store_gets_its_cli_flags_and_its_spec(dummy):
    from ragkit.cli import build_parser
    from ragkit.cli.common import store_from_args

    parse = build_parser().parse_args
    spec = store_from_args(parse(["ingest", "--index", "x", "--store", "dummy", "--dummy-shards", "3", "f"]))
    assert spec == {"kind": "dummy", "shards": 3} and describe_store(spec) == "dummy with 3 shards"
    with pytest.raises(ConfigError, match="between 1 and 8"):
        store_from_args(parse(["ingest", "--index", "x", "--store", "dummy", "--dummy-shards", "9", "f"]))
    with pytest.raises(ConfigError, match="--dummy-shards applies to --store dummy only, not milvus"):
        store_spec("milvus", "http://h:19530", shards=2)


def test_the_sidebar_offers_every_declared_store(dummy):
    from ui.sidebar import store_choices

    choices = store_choices()
    assert choices["Dummy, sharded"] == ("dummy", False)
    assert choices["Milvus server (URI)"] == ("milvus", True)
    assert choices["Qdrant, embedded"] == ("qdrant", False)
    assert next(iter(choices)) == "local files (FAISS)"  # the default first


def test_the_uri_flag_alone_still_means_qdrant_and_milvus_needs_a_uri():
    from ragkit.cli import build_parser
    from ragkit.cli.common import store_from_args

    parse = build_parser().parse_args
    spec = store_from_args(parse(["ingest", "--index", "x", "--uri", "http://q:6333", "f"]))
    assert spec == {"kind": "qdrant", "uri": "http://q:6333"}
    with pytest.raises(ConfigError, match="needs the server's URI"):
        store_from_args(parse(["ingest", "--index", "x", "--store", "milvus", "f"]))
