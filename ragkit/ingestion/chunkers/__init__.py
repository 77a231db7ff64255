"""Chunkers: ``sliding``, ``sentence`` and ``markdown``, looked up by name in :data:`CHUNKERS`."""

from __future__ import annotations

from typing import Any

from ragkit.core.registry import Registry
from ragkit.ingestion.chunkers.base import BaseChunker, Chunker, Segment, build_chunks
from ragkit.ingestion.chunkers.markdown import MarkdownChunker, MarkdownConfig
from ragkit.ingestion.chunkers.sentence import SentenceChunker, SentenceConfig
from ragkit.ingestion.chunkers.sliding import SlidingChunker, SlidingConfig

CHUNKERS: Registry[BaseChunker] = Registry("chunker")
CHUNKERS.register("sliding", SlidingChunker)
CHUNKERS.register("sentence", SentenceChunker)
CHUNKERS.register("markdown", MarkdownChunker)


def make_chunker(name: str, **settings: Any) -> BaseChunker:
    """Build a chunker by registry name; unknown settings raise a ``ConfigError`` listing valid ones."""
    cls = CHUNKERS.get(name)
    try:
        return cls(**settings)
    except TypeError as e:
        from dataclasses import fields

        from ragkit.core.errors import ConfigError

        valid = ", ".join(f.name for f in fields(cls.config_class))
        raise ConfigError(f"{name} chunker: {e}; valid settings: {valid}") from None


def chunker_from_spec(spec: dict[str, Any]) -> BaseChunker:
    """Rebuild a chunker from ``chunker.spec()`` (as stored in a manifest)."""
    return make_chunker(spec["name"], **spec.get("config", {}))


__all__ = [
    "CHUNKERS",
    "BaseChunker",
    "Chunker",
    "MarkdownChunker",
    "MarkdownConfig",
    "Segment",
    "SentenceChunker",
    "SentenceConfig",
    "SlidingChunker",
    "SlidingConfig",
    "build_chunks",
    "chunker_from_spec",
    "make_chunker",
]
