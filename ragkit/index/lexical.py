"""Indexes of chunks without vectors, for retrievers that read only the text (BM25), built with no
embedding model loaded (issue 25: vectors only when something needs them): :class:`LexicalStore`, in
memory in the time it takes to chunk (datasets), and :data:`TEXT_ONLY`, the embedder of a collection's
saved index for BM25 alone (its vectors have no components). A dense retriever over either is an error
that says so; the gauge embeds only the chunks a question retrieved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ragkit.core.errors import IndexStoreError
from ragkit.core.types import Chunk, Document


class LexicalStore:
    """Chunks of documents, read by text-only retrievers; the attributes BM25 and the runners read."""

    path = None  # never on disk: BM25 keeps no saved state for it
    generation = 0
    changes = 0
    store_description = "in memory, text only (no vectors)"

    def __init__(self, documents: Sequence[Document], chunker: Any) -> None:
        self.documents = {d.doc_id: d for d in documents}
        self.chunker = chunker.spec()
        self.chunks: list[Chunk] = [c for d in documents for c in chunker.split(d)]

    @property
    def vectors(self) -> Any:
        raise IndexStoreError("this index holds no vectors (built for a text-only retriever such as bm25)")


def needs_vectors(config: Any) -> bool:
    """Whether a config's retrieval reads chunk vectors: every retriever but BM25 alone does (a reranker
    reads text, but its set-up expects a full index)."""
    return config.retriever != "bm25" or bool(config.rerank)


class TextOnlyEmbedder:
    """The embedder of an index that holds no vectors: every text becomes a vector with no components,
    so the index machinery (generations, locks, the manifest, the per-file report) works unchanged and
    nothing is embedded or loaded. Its ``model_id`` names the index as text-only."""

    model_id = "none (text only)"
    cache_key = "text-only"
    dimension = 0
    dtype = "float32"
    new_embeddings = 0

    def embed(self, texts: Sequence[str], progress: Any = None) -> np.ndarray:
        return np.zeros((len(texts), 0), dtype=np.float32)

    def embed_query(self, query: str) -> np.ndarray:
        raise IndexStoreError("this index holds no vectors (built for a text-only retriever such as bm25)")


TEXT_ONLY = TextOnlyEmbedder()


def open_text_only(path: Any, config: Any) -> Any:
    """A saved text-only index opened for ``config``; a retriever that reads vectors is an error saying
    why (the gauge's model is the config's, not the index's: it has none)."""
    from ragkit.index.store import IndexStore

    if needs_vectors(config):
        raise IndexStoreError(
            f"index {path} is text only (built for BM25 alone): it holds no vectors for the "
            f"{config.retriever} retriever; search it with --retriever bm25, or use the collection's "
            "embedded index"
        )
    return IndexStore.open(path, model_id=TEXT_ONLY.model_id)


def is_text_only(manifest: dict[str, Any]) -> bool:
    """Whether an index's manifest says it holds no vectors."""
    return manifest["embedding"]["dimension"] == 0


def holds_no_vectors(store: Any) -> bool:
    """Whether ``store`` was built without vectors (in memory for a dataset, or saved text-only)."""
    return isinstance(store, LexicalStore) or getattr(store, "dimension", None) == 0
