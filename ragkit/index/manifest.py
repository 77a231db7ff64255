"""The index manifest on disk: reading it, the generation of data files, listing the indexes under a folder,
and checking where an index keeps its vectors."""

from __future__ import annotations

import datetime as _dt
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.errors import IndexStoreError
from ragkit.index.vectorstores.base import store_spec

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


def check_store(path: str | os.PathLike[str], wanted: dict[str, Any] | None) -> dict[str, Any]:
    """The index's ``store`` spec; with ``wanted`` (flags the user gave), refuse a different one (an index
    has one home for its vectors: it cannot be read from another, or moved by a flag)."""
    have = read_manifest(path).get("store") or store_spec()
    if wanted is None:
        return have
    differs = wanted["kind"] != have.get("kind") or any(
        wanted.get(k) and wanted.get(k) != have.get(k) for k in ("uri", "collection")
    )
    if differs:
        from ragkit.index.vectorstores.base import describe_store

        raise IndexStoreError(
            f"index {path} keeps its vectors in {describe_store(have)}, not {describe_store(wanted)}: "
            "drop --store/--uri/--collection to use its own, or ingest into a new index"
        )
    return have


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


def list_indexes(root: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Summaries of the index directories directly under ``root`` (damaged ones say why)."""
    out: list[dict[str, Any]] = []
    root = Path(root)
    if not root.is_dir():
        return out
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not (d / MANIFEST).is_file():
            continue
        try:
            m = read_manifest(d)
        except IndexStoreError as e:
            out.append({"name": d.name, "path": str(d), "error": str(e)})
            continue
        out.append(
            {
                "name": d.name,
                "path": str(d),
                "documents": m["counts"]["documents"],
                "chunks": m["counts"]["chunks"],
                "model": m["embedding"]["model"],
                "chunker": m["chunker"]["name"],
                "updated_at": m["updated_at"],
                "error": None,
            }
        )
    return out
