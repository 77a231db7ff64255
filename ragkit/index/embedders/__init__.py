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


def check_backend(index: Any, index_backend: str, embedder: Any) -> None:
    """Refuse ``embedder`` for an index whose vectors another backend made: int8 and float32 vectors of
    one text differ, so scores across them mean nothing (the index names its own backend)."""
    from ragkit.core.errors import ModelMismatchError

    theirs = getattr(embedder, "backend", LEGACY_BACKEND)
    if theirs != index_backend:
        raise ModelMismatchError(
            f"index {index} holds vectors embedded by the {index_backend} backend, not {theirs}: vectors "
            f"of two backends are never mixed; use --embedding-backend {index_backend} (embedding_backend "
            f"in a config), or ingest into a new index"
        )


__all__ = ["BACKENDS", "DTYPES", "LEGACY_BACKEND", "OnnxInt8Backend", "TorchBackend", "check_backend"]
