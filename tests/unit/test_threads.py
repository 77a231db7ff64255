"""Torch threads: an explicit count wins; by default every core this process may run on; with ``free``,
fewer while other processes keep cores busy, never fewer than one."""

from __future__ import annotations

import multiprocessing as mp
import os
import time

from ragkit.index.embeddings import default_threads


def test_the_environment_setting_wins(monkeypatch):
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("RAGKIT_TORCH_THREADS", "0")
    assert default_threads() == 1


def _spin(stop) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def test_default_is_the_cores_this_process_may_use(monkeypatch):
    monkeypatch.delenv("RAGKIT_TORCH_THREADS", raising=False)
    assert default_threads() == len(os.sched_getaffinity(0))


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
