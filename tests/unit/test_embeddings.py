"""Unit tests of :mod:`ragkit.index.embeddings`."""

from __future__ import annotations

import multiprocessing as mp
import os
import time

import pytest

from ragkit.core.errors import ConfigError, IndexStoreError
from ragkit.index.embeddings import default_threads


def test_auto_precision_follows_the_cpu(monkeypatch):
    from ragkit.index import embeddings

    monkeypatch.setattr(embeddings, "native_bf16", lambda: True)
    assert embeddings.Embedder(dtype="auto").dtype == "bfloat16"
    monkeypatch.setattr(embeddings, "native_bf16", lambda: False)
    assert embeddings.Embedder(dtype="auto").dtype == "float32"
    assert embeddings.Embedder(dtype="bfloat16").dtype == "bfloat16"  # an explicit choice stands
    with pytest.raises(ConfigError, match="embedding dtype must be one of"):
        embeddings.Embedder(dtype="int8")


def test_an_index_never_mixes_precisions(tmp_path, fake_embedder):
    from ragkit.index.ingest import open_or_create

    store, _ = open_or_create(tmp_path / "idx", fake_embedder)
    store.save()
    fake_embedder.dtype = "bfloat16"
    with pytest.raises(IndexStoreError, match=r"holds float32 vectors, not bfloat16: .*--dtype float32"):
        open_or_create(tmp_path / "idx", fake_embedder)


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def test_the_environment_setting_wins(monkeypatch):
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "0")
    assert default_threads() == 1


def test_default_is_the_cores_this_process_may_use_not_the_hosts(monkeypatch):
    monkeypatch.delenv("RAGKIT_TORCH_THREADS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    for allowed in ({0}, {0, 1, 2}):
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid, a=allowed: a)
        assert default_threads() == len(allowed)
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "3")
    assert default_threads() == 3


def test_free_leaves_busy_cores_out(monkeypatch):
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "free")
    cores = len(os.sched_getaffinity(0))
    assert 1 <= default_threads() <= cores
    stop = mp.Event()
    procs = [mp.Process(target=_spin, args=(stop,), daemon=True) for _ in range(cores)]
    for p in procs:
        p.start()
    try:
        time.sleep(0.5)
        assert default_threads(sample_s=0.5) == 1  # every core is busy: one thread, not a spinning pool
    finally:
        stop.set()
        for p in procs:
            p.join()


def test_an_index_never_mixes_backends(tmp_path, fake_embedder):
    from ragkit.core.errors import ModelMismatchError
    from ragkit.index.ingest import open_or_create
    from ragkit.retrievers.dense import DenseRetriever

    fake_embedder.backend = "onnx-int8"
    store, _ = open_or_create(tmp_path / "idx", fake_embedder)
    store.save()
    assert store.summary()["embedding_backend"] == "onnx-int8"
    fake_embedder.backend = "torch"
    with pytest.raises(ModelMismatchError, match=r"embedded by the onnx-int8 backend, not torch"):
        open_or_create(tmp_path / "idx", fake_embedder)
    with pytest.raises(ModelMismatchError, match="never mixed"):
        DenseRetriever(store, fake_embedder)


def test_an_index_from_before_backends_reads_as_torch(tmp_path, fake_embedder):
    import json

    from ragkit.index.ingest import open_or_create
    from ragkit.index.store import IndexStore

    store, _ = open_or_create(tmp_path / "idx", fake_embedder)
    store.save()
    manifest = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    del manifest["embedding"]["backend"]  # as ragkit wrote it before backends existed
    (tmp_path / "idx" / "manifest.json").write_text(json.dumps(manifest))
    assert IndexStore.open(tmp_path / "idx").embedding_backend == "torch"
    fake_embedder.backend = "torch"
    open_or_create(tmp_path / "idx", fake_embedder)  # a torch embedder may add to it


def test_a_config_that_names_no_backend_means_torch_and_keeps_its_hash():
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.fields import FIELDS

    old = PipelineConfig().to_dict()
    del old["embedding_backend"]  # a config saved before the field existed
    before = PipelineConfig.from_dict(old)
    assert before.embedding_backend == "torch"
    assert PipelineConfig.from_dict({**old, "embedding_backend": "torch"}).cache_key() == before.cache_key()
    other = next(b for b in FIELDS["embedding_backend"].allowed() if b != "torch")
    assert PipelineConfig.from_dict({**old, "embedding_backend": other}).cache_key() != before.cache_key()
    assert PipelineConfig().embedding_backend == FIELDS["embedding_backend"].default  # new configs


def test_backends_are_kept_apart_in_the_cache_key_and_refuse_a_foreign_dtype():
    from ragkit.index.embeddings import Embedder

    assert Embedder().cache_key == "sentence-transformers/all-MiniLM-L6-v2|float32"  # unchanged: old cache
    assert Embedder(backend="onnx-int8").cache_key.endswith("|onnx-int8")
    with pytest.raises(ConfigError, match="setting of the torch backend"):
        Embedder(backend="onnx-int8", dtype="bfloat16")
    with pytest.raises(ConfigError, match="unknown embedder 'int4'; choose one of: torch, onnx-int8"):
        Embedder(backend="int4")


def test_a_missing_onnx_is_one_line_naming_the_install(tmp_path, monkeypatch):
    import sys

    from ragkit.core.errors import MissingDependencyError
    from ragkit.index.embeddings import Embedder

    monkeypatch.setenv("RAGKIT_CACHE_DIR", str(tmp_path))  # nothing converted yet
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError) as e:
        _ = Embedder(backend="onnx-int8", cache=False).dimension
    assert str(e.value) == (
        "converting the embedding model to int8 needs the package onnx, which is not installed: "
        "pip install 'ragkit[int8]' (or pip install onnx)"
    )
