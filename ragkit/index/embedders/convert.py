"""The int8 model, made once from the packaged float32 weights and kept under ``$RAGKIT_CACHE_DIR/models``:
exported to ONNX with ``torch.onnx``, then every MatMul's weights quantised to int8 with one scale per
output channel (ONNX Runtime's dynamic quantisation). Nothing is downloaded; a second process that wants
it meanwhile waits for the first one's conversion instead of converting again."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragkit.core.errors import ModelNotAvailableError
from ragkit.core.files import file_lock
from ragkit.core.hashing import sha256_text
from ragkit.core.optional import require

log = logging.getLogger(__name__)

STAGE = "converting the embedding model to int8 (once)"
#: what the conversion does, recorded beside the model (and part of its folder's name: change it, and
#: the next use converts anew instead of reading a model made another way)
RECIPE = "onnx-opset17+dynamic-int8-per-channel-matmul"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def models_dir() -> Path:
    """``$RAGKIT_CACHE_DIR/models`` (default ``~/.cache/ragkit/models``), as the local LLM's."""
    root = os.environ.get("RAGKIT_CACHE_DIR") or Path.home() / ".cache" / "ragkit"
    return Path(root) / "models"


def int8_dir(model_id: str, path: str) -> Path:
    """Where the int8 model of ``model_id`` (loaded from ``path``) is kept."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id.rstrip("/").rsplit("/", 1)[-1])[:60]
    key = sha256_text(f"{model_id}|{os.path.abspath(path)}|{RECIPE}")[:10]
    return models_dir() / f"{slug}-onnx-int8-{key}"


def is_converted(target: Path) -> bool:
    return (target / "meta.json").is_file() and (target / "model.onnx").is_file()


def read_pooling(path: Path) -> tuple[int, int]:
    """``(max_seq_length, dimension)`` of a mean-pooling sentence-transformers model folder; any other
    pooling is an error (the int8 backend pools as sentence-transformers' mean pooling does)."""
    try:
        pooling = json.loads((path / "1_Pooling" / "config.json").read_text(encoding="utf-8"))
        st = json.loads((path / "sentence_bert_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ModelNotAvailableError(
            f"the onnx-int8 backend needs a sentence-transformers model folder; {path}: {e}"
        ) from None
    if not pooling.get("pooling_mode_mean_tokens"):
        raise ModelNotAvailableError(
            f"the onnx-int8 backend mean-pools token vectors; {path} pools otherwise: use the torch backend"
        )
    return int(st.get("max_seq_length") or 512), int(pooling["word_embedding_dimension"])


def ensure_int8(model_id: str, path: str, progress: Callable[[str, int, int], None] | None = None) -> Path:
    """The folder of the int8 model of ``model_id`` (``model.onnx``, its tokenizer, ``meta.json``),
    converting it first if it is not there yet; ``progress(stage, done, total)`` follows the conversion."""
    target = int8_dir(model_id, path)
    if is_converted(target):
        return target
    source = Path(path)
    if not source.is_dir():
        raise ModelNotAvailableError(
            f"cannot load embedding model {model_id!r} with the onnx-int8 backend: {path!r} is not a model "
            "folder on this machine, and weights cannot be downloaded here: pass a local directory holding "
            "a sentence-transformers model (--model /path/to/model)"
        )
    max_len, dim = read_pooling(source)
    require("onnx", "converting the embedding model to int8")
    require("onnxruntime", "the onnx-int8 embedding backend")
    with file_lock(target.parent / f".{target.name}.lock", f"the int8 model {target.name}"):
        if is_converted(target):  # another process converted it while this one waited
            return target
        log.warning("%s: %s -> %s", STAGE, model_id, target)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".int8-convert-"))
        try:
            _convert(source, tmp, progress)
            shutil.copy(source / "tokenizer.json", tmp / "tokenizer.json")
            meta = {"model": model_id, "recipe": RECIPE, "max_seq_length": max_len, "dimension": dim,
                    "pooling": "mean", "normalize": True, "versions": _versions()}  # fmt: skip
            (tmp / "meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
            os.replace(tmp, target)  # atomic: a half-converted model is never picked up
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if progress:
            progress(STAGE, 4, 4)
    return target


def _convert(source: Path, out: Path, progress: Callable[[str, int, int], None] | None) -> None:
    """Export ``source`` to ONNX (float32, in ``out``), then quantise it to ``out/model.onnx``."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    def step(done: int) -> None:
        if progress:
            progress(STAGE, done, 4)

    step(0)
    model = AutoModel.from_pretrained(str(source)).eval()
    step(1)

    class Hidden(torch.nn.Module):  # the token vectors: pooling and normalising happen outside
        def __init__(self, m: Any) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.m(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    ids = torch.tensor([[101, 7592, 2088, 102], [101, 7592, 102, 0]])
    sample = (ids, (ids > 0).long(), torch.zeros_like(ids))
    fp32 = out / "model-float32.onnx"
    axes = {k: {0: "batch", 1: "tokens"} for k in [*INPUTS, "last_hidden_state"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Hidden(model), sample, str(fp32), input_names=list(INPUTS), dynamic_axes=axes,
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False)  # fmt: skip
    step(2)
    quant_log = logging.getLogger()  # the quantiser warns on the root logger about pre-processing
    level = quant_log.level
    quant_log.setLevel(logging.ERROR)
    try:
        quantize_dynamic(str(fp32), str(out / "model.onnx"), weight_type=QuantType.QInt8, per_channel=True)
    finally:
        quant_log.setLevel(level)
    fp32.unlink()
    step(3)


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("torch", "transformers", "onnx", "onnxruntime"):
        with contextlib.suppress(PackageNotFoundError):
            out[dist] = version(dist)
    return out
