"""An index of chunks without vectors, for retrievers that read only the text (BM25): built in memory in
the time it takes to chunk, with no embedding model loaded (issue 25: vectors only when something needs
them). A dense retriever over it is an error that says so; nothing here is saved."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
