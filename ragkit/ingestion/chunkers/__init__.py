"""Chunkers: ``sliding``, ``sentence`` and ``markdown``, each declaring its own settings; looked up by name
in :data:`CHUNKERS`."""

from __future__ import annotations

from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.options import Option, short_repr
from ragkit.core.registry import Registry
from ragkit.ingestion.chunkers.base import BaseChunker, Chunker, Segment, build_chunks
from ragkit.ingestion.chunkers.markdown import MarkdownChunker
from ragkit.ingestion.chunkers.sentence import SentenceChunker
from ragkit.ingestion.chunkers.sliding import SlidingChunker

CHUNKERS: Registry[BaseChunker] = Registry("chunker", SlidingChunker, SentenceChunker, MarkdownChunker)


def make_chunker(name: str, **settings: Any) -> BaseChunker:
    """Build a chunker by registry name; unknown settings raise a ``ConfigError`` listing valid ones."""
    return CHUNKERS.get(name)(**settings)


def chunker_from_spec(spec: dict[str, Any]) -> BaseChunker:
    """Rebuild a chunker from ``chunker.spec()`` (as stored in a manifest)."""
    return make_chunker(spec["name"], **spec.get("config", {}))


def chunker_for(config: Any) -> BaseChunker:
    """The chunker a pipeline config names, with its settings."""
    return make_chunker(config.chunker, **config.chunker_params)


def _check_params(owner: str, value: Any) -> dict[str, Any]:
    """An object of settings; the chosen chunker checks their names, types and ranges."""
    if not isinstance(value, dict):
        raise ConfigError(f"{owner}: chunker_params must be an object, got {short_repr(value)}")
    return dict(value)


#: the config fields that choose and set the chunker
OPTIONS = (
    Option("chunker", "choice", "sliding", choices=CHUNKERS.names, field="chunker", label="Chunker",
           help="how documents are cut into chunks"),
    Option("chunker_params", "any", {}, field="chunker_params", widget="custom", validate=_check_params,
           help="the chunker's own settings (see each chunker)", sweep="main"),
)  # fmt: skip

__all__ = [
    "CHUNKERS",
    "OPTIONS",
    "BaseChunker",
    "Chunker",
    "MarkdownChunker",
    "Segment",
    "SentenceChunker",
    "SlidingChunker",
    "build_chunks",
    "chunker_for",
    "chunker_from_spec",
    "make_chunker",
]
