"""Indexes as wholes: copying one into another vector store (no re-embedding), checking where an index
keeps its vectors against the flags a user gave, and listing the indexes under a folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ragkit.core.errors import IndexStoreError
from ragkit.index.manifest import MANIFEST, read_manifest
from ragkit.index.store import IndexStore
from ragkit.index.vectorstores import describe_store, store_spec


def copy_index(
    source: str | os.PathLike[str], target: str | os.PathLike[str], store: dict[str, Any] | None = None
) -> IndexStore:
    """Copy an index (documents, chunks and vectors, no re-embedding) into a new index whose vectors live
    in ``store`` (:func:`ragkit.index.vectorstores.store_spec`): how an index moves between stores."""
    if IndexStore.exists(target):
        raise IndexStoreError(f"index {target} already exists: copy into a new directory")
    src = IndexStore.open(source)
    dst = IndexStore(target, src.model_id, src.dimension, src.chunker, src.embedding_dtype, store)
    with dst.lock():
        for doc_id, doc in src.documents.items():
            chunks = src._chunks[doc_id]
            vectors = (
                src.vector_store.fetch([c.chunk_id for c in chunks])
                if not src.holds_vectors
                else src._vectors[doc_id]
            )
            dst.add(doc, chunks, vectors, {})
            dst.doc_info[doc_id] = dict(src.doc_info[doc_id])  # keeps when and how it was ingested
        dst.created_at = src.created_at
        dst.save()
    src.close()
    return dst


def check_store(path: str | os.PathLike[str], wanted: dict[str, Any] | None) -> dict[str, Any]:
    """The index's ``store`` spec; with ``wanted`` (flags the user gave), refuse a different one (an index
    has one home for its vectors: it cannot be read from another, or moved by a flag)."""
    have = read_manifest(path).get("store") or store_spec()
    if wanted is None:
        return have
    differs = wanted["kind"] != have.get("kind") or any(
        v and v != have.get(k) for k, v in wanted.items() if k != "kind"
    )
    if differs:
        raise IndexStoreError(
            f"index {path} keeps its vectors in {describe_store(have)}, not {describe_store(wanted)}: "
            "drop --store/--uri/--collection to use its own, or ingest into a new index"
        )
    return have


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
