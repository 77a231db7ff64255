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


def add_model_args(p: argparse.ArgumentParser, backend: str | None = None) -> None:
    """``--model``, ``--dtype``, ``--cache-dir``; with ``backend`` (its help) also ``--embedding-backend``
    (commands whose config flags include the index's fields get that flag from them)."""
    p.add_argument(
        "--model",
        default=None,
        help="sentence-transformers model name or local path (default: all-MiniLM-L6-v2, shipped offline)",
    )
    p.add_argument(
        "--dtype",
        default="float32",
        choices=[*DTYPES, "auto"],
        help="embedding precision of a new index with the torch backend (bfloat16 is faster on AMX CPUs; "
        "auto picks it where the CPU has native bf16); an existing index keeps its own",
    )
    p.add_argument(
        "--cache-dir",
        default=None,
        help="embedding cache directory (default $RAGKIT_CACHE_DIR or ~/.cache/ragkit)",
    )
    if backend is not None:
        from dataclasses import replace

        from ragkit.cli.flags import add_option
        from ragkit.pipeline.fields import FIELDS

        add_option(p, replace(FIELDS["embedding_backend"], help=backend), "f_embedding_backend")


def index_backend(index: str | Path) -> str | None:
    """The embedding backend an existing index was built with (None: no index there yet)."""
    from ragkit.index.embedders import LEGACY_BACKEND
    from ragkit.index.store import IndexStore

    if not IndexStore.exists(index):
        return None
    return IndexStore.read_manifest(index)["embedding"].get("backend", LEGACY_BACKEND)


def embedder_from_args(args: argparse.Namespace, model: str | None = None, backend: str | None = None) -> Any:
    """The embedder the flags ask for; its backend is the ``--embedding-backend`` flag's, else ``backend``
    (an index's own, or a config's), else the declared default."""
    from ragkit.index.embeddings import Embedder
    from ragkit.pipeline.fields import FIELDS

    cache = Path(args.cache_dir) / "embeddings.sqlite" if args.cache_dir else None
    backend = getattr(args, "f_embedding_backend", None) or backend or FIELDS["embedding_backend"].default
    return Embedder(model or args.model, dtype=args.dtype, cache=cache, backend=backend)


def add_store_args(p: argparse.ArgumentParser, new: bool = False) -> None:
    """``--store`` and every store option's flag (``--uri``, ``--collection``, ...), from the stores'
    declarations; an option several stores declare is one flag."""
    from ragkit.index.vectorstores import STORES

    g = p.add_argument_group("vector store")
    kinds = ", ".join(f"{c.name} ({c.summary})" for c in STORES.components())
    g.add_argument(
        "--store",
        choices=STORES.names(),
        default=None,
        help=f"where a new index keeps its vectors (default local): {kinds}"
        if new
        else "where the index keeps its vectors (default: as recorded in the index; a different one is "
        "refused)",
    )
    flags: dict[str, list[tuple[str, Any]]] = {}  # flag -> (store, option) of every store declaring it
    for c in STORES.components():
        for o in c.options:
            flags.setdefault(o.cli_flag(), []).append((c.name, o))
    for flag, owners in flags.items():
        helps = "; ".join(f"--store {name}: {o.help}" for name, o in owners)
        if owners[0][1].name == "uri":
            keys = [f"${STORES.component(n).key_env}" for n, _ in owners if STORES.component(n).key_env]
            helps += f" (the key from {' or '.join(keys)}, never written)"
        kind = owners[0][1].kind
        cast = {"int": int, "int?": int, "float": float}.get(kind, str)
        g.add_argument(flag, dest=f"store_{owners[0][1].name}", default=None, type=cast, help=helps)


def store_from_args(args: argparse.Namespace) -> dict[str, Any] | None:
    """The store spec the flags ask for (None: no flag given); ``--uri`` alone means the first store that
    takes one (Qdrant)."""
    from ragkit.index.vectorstores import STORES, store_spec

    given = {k[len("store_") :]: v for k, v in vars(args).items() if k.startswith("store_") and v is not None}
    if args.store is None and not given:
        return None
    kind = args.store or next(c.name for c in STORES.components() if any(o.name == "uri" for o in c.options))
    return store_spec(kind, **given)


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
