"""The index manifest on disk: reading it, the generation of data files, listing the indexes under a folder,
and checking where an index keeps its vectors."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ragkit import __version__
from ragkit.core.errors import IndexStoreError
from ragkit.core.types import Chunk, Document

SCHEMA_VERSION = 1


MANIFEST = "manifest.json"


_DATA_PREFIXES = ("documents", "chunks", "vectors")


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest alone (cheap: no chunks or vectors are read)."""
    mpath = Path(path) / MANIFEST
    if not mpath.is_file():
        raise IndexStoreError(f"no ragkit index at {path} (no {MANIFEST}); ingest files first")
    try:
        manifest = json.loads(mpath.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise IndexStoreError(f"index {path}: {MANIFEST} is unreadable ({e})") from None
    if manifest.get("schema_version") != SCHEMA_VERSION:
        raise IndexStoreError(
            f"index {path} has schema version {manifest.get('schema_version')}; this ragkit "
            f"({__version__}) reads version {SCHEMA_VERSION}: re-ingest into a new directory"
        )
    return manifest


class _Vanished(Exception):
    """A data file disappeared while the index was being opened (a concurrent save)."""


def _generation_of(name: str) -> int | None:
    """``7`` for ``chunks-000007.jsonl``; None for anything that is not a data file."""
    prefix, _, rest = name.partition("-")
    if prefix not in _DATA_PREFIXES:
        return None
    digits = rest.split(".", 1)[0]
    return int(digits) if digits.isdigit() else None


def _manifest_generation(path: Path) -> int | None:
    try:
        return int(json.loads((path / MANIFEST).read_text(encoding="utf-8"))["generation"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _lines(path: Path) -> Iterator[str]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield line


def read_generation(path: Path, m: dict[str, Any]) -> tuple[list[Document], list[Chunk], np.ndarray]:
    """The documents, chunks and vectors of the generation manifest ``m`` names (vectors of width 0 when
    they live in a vector store); a file replaced by a concurrent save raises ``_Vanished``."""
    files = m["files"]
    emb = m["embedding"]
    try:
        docs = [Document.from_dict(json.loads(line)) for line in _lines(path / files["documents"])]
        chunks = [Chunk.from_dict(json.loads(line)) for line in _lines(path / files["chunks"])]
        vectors = (
            np.load(path / files["vectors"], allow_pickle=False)
            if "vectors" in files
            else np.zeros((len(chunks), 0), dtype=np.float32)  # the vectors live in the store
        )
    except FileNotFoundError as e:
        if _manifest_generation(path) != m["generation"]:
            raise _Vanished from None  # a save replaced the generation we were reading
        raise IndexStoreError(f"index {path} is damaged: {e}") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise IndexStoreError(f"index {path} is damaged: {e}") from None
    if vectors.shape != (len(chunks), emb["dimension"] if "vectors" in files else 0):
        raise IndexStoreError(
            f"index {path} is damaged: {len(chunks)} chunks but vectors of shape {vectors.shape}"
        )
    return docs, chunks, vectors


def remove_stale(path: Path, current: dict[str, str], generation: int) -> None:
    """Delete data files older than the previous generation, and temp files of dead writers (only one
    writer runs at a time, under the lock). The previous generation stays for readers that read the old
    manifest an instant before a save switched it."""
    keep = set(current.values()) | {MANIFEST, ".lock"}
    for p in path.iterdir():
        if not p.is_file() or p.name in keep:
            continue
        gen = _generation_of(p.name)
        old_data = gen is not None and gen < generation - 1
        if old_data or p.name.endswith(".tmp"):
            with contextlib.suppress(OSError):
                p.unlink()
