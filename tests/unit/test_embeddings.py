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
