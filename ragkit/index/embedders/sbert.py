"""The float32 (or bfloat16) backend: the model as sentence-transformers runs it with torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component
from ragkit.index.embedders.threads import tune_threads

DTYPES = ("float32", "bfloat16")


class TorchBackend:
    """sentence-transformers on torch: the reference every other backend is measured against."""

    component = Component(
        "embedder",
        "torch",
        "the model in float32 with sentence-transformers and torch (the reference)",
        in_process=True,
    )

    @staticmethod
    def variant(dtype: str, resolve: Callable[[str], str]) -> tuple[str, str]:
        """``(precision recorded in the manifest, what tells its vectors apart in the cache)`` for the
        asked ``dtype`` (``auto`` resolved by ``resolve``): here both are the precision."""
        dtype = resolve(dtype)
        if dtype not in DTYPES:
            raise ConfigError(f"embedding dtype must be one of {(*DTYPES, 'auto')}, got {dtype!r}")
        return dtype, dtype

    @staticmethod
    def load(model_id: str, path: str, dtype: str, device: str, progress: Any = None) -> Any:
        """A ``SentenceTransformer`` (its ``encode`` and ``get_embedding_dimension`` are what is used)."""
        import torch
        from sentence_transformers import SentenceTransformer

        tune_threads()
        kwargs: dict[str, Any] = {}
        if dtype == "bfloat16":
            kwargs["model_kwargs"] = {"torch_dtype": torch.bfloat16}
        return SentenceTransformer(path, device=device, **kwargs)
