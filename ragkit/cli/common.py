"""What the commands share: stderr messages, progress, the embedding model's flags, the vector store's
flags, and writing a result file atomically."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.errors import RagkitError
from ragkit.index.embeddings import DTYPES


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def say_problems(qset: Any) -> None:
    """Every row of a question file that was set aside, at once, with why (and the nearest passage)."""
    from ragkit.app.presentation import problem_line

    if qset.problems:
        say(f"{len(qset.problems)} question(s) set aside, the other {qset.n} run:")
        for p in qset.problems:
            say(f"  {problem_line(p)}")


def load_models(embedder: Any, what: str = "the embedding model") -> float:
    """Load the embedding model now, saying so on stderr; returns the milliseconds it took (reported as
    the ``load`` stage, never inside a query's latency)."""
    say(f"loading {what} {embedder.model_id} …")
    t = time.perf_counter()
    _ = embedder.dimension
    return (time.perf_counter() - t) * 1000


def progress_bar(enabled: bool) -> tuple[Callable[[str, int, int], None] | None, Callable[[], None]]:
    """Progress on stderr (a bar on a terminal, periodic lines when redirected), and its closer."""
    from ragkit.core.progress import CliProgress

    if not enabled:
        return None, lambda: None
    progress = CliProgress()
    return progress, progress.close


def run_interruptible(work: Callable[[Any, Callable[[], bool]], Any]) -> Any:
    """``work(progress, should_stop)`` with a progress bar, Ctrl-C asking it to stop and keep what it
    did (a sweep's measurements, generated questions) instead of killing the command."""
    import signal

    stop = {"now": False}

    def on_signal(signum: int, frame: Any) -> None:
        stop["now"] = True

    previous = signal.signal(signal.SIGINT, on_signal)
    progress, close = progress_bar(True)
    try:
        return work(progress, lambda: stop["now"])
    finally:
        close()
        signal.signal(signal.SIGINT, previous)


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        default=None,
        help="sentence-transformers model name or local path (default: all-MiniLM-L6-v2, shipped offline)",
    )
    p.add_argument(
        "--dtype",
        default="float32",
        choices=[*DTYPES, "auto"],
        help="embedding precision of a new index (bfloat16 is faster on AMX CPUs; auto picks it where the "
        "CPU has native bf16); an existing index keeps its own",
    )
    p.add_argument(
        "--cache-dir",
        default=None,
        help="embedding cache directory (default $RAGKIT_CACHE_DIR or ~/.cache/ragkit)",
    )


def embedder_from_args(args: argparse.Namespace, model: str | None = None) -> Any:
    from ragkit.index.embeddings import Embedder

    cache = Path(args.cache_dir) / "embeddings.sqlite" if args.cache_dir else None
    return Embedder(model or args.model, dtype=args.dtype, cache=cache)


def add_store_args(p: argparse.ArgumentParser, new: bool = False) -> None:
    from ragkit.index.vectorstores import STORES

    g = p.add_argument_group("vector store")
    g.add_argument(
        "--store",
        choices=list(STORES),
        default=None,
        help=(
            "where a new index keeps its vectors: local files (default) or Qdrant (embedded, or a server "
            "with --uri)"
            if new
            else "where the index keeps its vectors (default: as recorded in the index; a different one is "
            "refused)"
        ),
    )
    g.add_argument(
        "--uri", default=None, help="Qdrant server URL, e.g. http://localhost:6333 (key: $QDRANT_API_KEY)"
    )
    g.add_argument("--collection", default=None, help="Qdrant server collection (default ragkit_<index>)")


def store_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """The store spec the flags ask for (None: no flag given)."""
    from ragkit.index.vectorstores import store_spec

    if args.store is None and not args.uri and not args.collection:
        return None
    kind = args.store or "qdrant"  # --uri alone means a Qdrant server
    return store_spec(kind, args.uri, args.collection)


def check_store_args(args: argparse.Namespace, index: str) -> None:
    """Refuse --store/--uri flags that contradict where the index keeps its vectors."""
    from ragkit.index.maintenance import check_store

    check_store(index, store_from_args(args))


def parse_where(items: Sequence[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RagkitError(f"--where {item!r}: use KEY=VALUE, e.g. kind=code")
        out[key.strip()] = value.strip()
    return out


def write_file(target: str | None, write: Callable[[Any], None]) -> None:
    """Write ``target`` (if given) through a temp file, creating its folder."""
    if not target:
        return
    from ragkit.core.files import atomic_write

    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, write)


def write_json(target: str | None, obj: Any) -> None:
    write_file(target, lambda f: json.dump(obj, f, indent=2))
