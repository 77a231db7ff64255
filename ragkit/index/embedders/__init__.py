"""Embedding backends: the same model run by torch in float32 (the reference) or quantised to int8 and run
by ONNX Runtime. Each declares itself; the config's ``embedding_backend`` lists the names registered here."""

from __future__ import annotations

from typing import Any

from ragkit.core.registry import Registry
from ragkit.index.embedders.onnx_int8 import OnnxInt8Backend
from ragkit.index.embedders.sbert import DTYPES, TorchBackend

BACKENDS: Registry[Any] = Registry("embedder", TorchBackend, OnnxInt8Backend)

#: what an index or config written before backends existed was embedded with
LEGACY_BACKEND = "torch"

__all__ = ["BACKENDS", "DTYPES", "LEGACY_BACKEND", "OnnxInt8Backend", "TorchBackend"]
