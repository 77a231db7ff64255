"""The int8 backend: the same model, its MatMuls quantised to int8 per output channel, run by ONNX Runtime.
It tokenises with the model's own tokenizer (truncated at its ``max_seq_length``), mean-pools the token
vectors over the attention mask and L2-normalises them, as sentence-transformers does; no torch at run
time (torch is needed once, to make the int8 model: :mod:`ragkit.index.embedders.convert`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragkit.core.errors import ConfigError
from ragkit.core.optional import require
from ragkit.core.options import Component
from ragkit.index.embedders.convert import INPUTS, ensure_int8
from ragkit.index.embedders.threads import default_threads


class OnnxEncoder:
    """An int8 model folder loaded into ONNX Runtime; ``encode`` takes what ``SentenceTransformer.encode``
    takes (the arguments the embedder passes)."""

    def __init__(self, folder: Path) -> None:
        ort = require("onnxruntime", "the onnx-int8 embedding backend")
        tokenizers = require("tokenizers", "the onnx-int8 embedding backend")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        self.max_seq_length = int(meta["max_seq_length"])
        self.dimension = int(meta["dimension"])
        self.tokenizer = tokenizers.Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(max_length=self.max_seq_length)
        self.tokenizer.no_padding()  # each batch is padded to its own longest text below
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = default_threads()
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), opts, providers=["CPUExecutionProvider"]
        )

    def get_embedding_dimension(self) -> int:
        return self.dimension

    def encode(self, sentences: Sequence[str], batch_size: int = 64, **_: Any) -> np.ndarray:
        """Unit-norm float32 vectors of ``sentences``, in order; batches of similar length (less padding)."""
        texts = list(sentences)
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            out[rows] = self._batch([texts[i] for i in rows])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        encs = self.tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encs)
        feed = {k: np.zeros((len(encs), width), dtype=np.int64) for k in INPUTS}
        for row, e in enumerate(encs):
            n = len(e.ids)
            feed["input_ids"][row, :n] = e.ids
            feed["attention_mask"][row, :n] = 1
            feed["token_type_ids"][row, :n] = e.type_ids
        hidden = self.session.run(None, feed)[0]
        mask = feed["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None)


class OnnxInt8Backend:
    """int8 weights (one scale per output channel), activations quantised per batch at run time."""

    component = Component(
        "embedder",
        "onnx-int8",
        "the same model quantised to int8 (per channel) and run by ONNX Runtime: about twice as fast here",
        in_process=True,
        extras={"pip": "int8"},
    )

    @staticmethod
    def variant(dtype: str, resolve: Callable[[str], str]) -> tuple[str, str]:
        """``("int8", "onnx-int8")``: its own precision; a torch precision asked of it is an error."""
        if dtype not in ("float32", "auto", "int8"):
            raise ConfigError(
                f"embedding dtype {dtype!r} is a setting of the torch backend; onnx-int8 has its own "
                "precision"
            )
        return "int8", "onnx-int8"

    @staticmethod
    def load(
        model_id: str,
        path: str,
        dtype: str,
        device: str,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> OnnxEncoder:
        """The int8 model of ``model_id`` (converted from ``path`` on first use), ready to encode."""
        if device != "cpu":
            raise ConfigError(f"the onnx-int8 backend runs on the CPU, not {device!r}")
        return OnnxEncoder(ensure_int8(model_id, path, progress))
