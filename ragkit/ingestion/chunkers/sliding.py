"""Sliding character windows with overlap that never cut inside a word (unless one word is longer than
the window, which is then cut at the window's end)."""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.core.errors import ConfigError
from ragkit.ingestion.chunkers.base import MAX_CHUNK_CHARS, BaseChunker, Segment, word_windows
from ragkit.pipeline.config import check_value


@dataclass(frozen=True)
class SlidingConfig:
    size: int = 500
    overlap: int = 100

    def __post_init__(self) -> None:
        check_value("sliding", "size", self.size, "int", 1, 10_000_000)
        check_value("sliding", "overlap", self.overlap, "int", 0, 10_000_000)
        if not 0 <= self.overlap < self.size:
            raise ConfigError(
                f"sliding: overlap must be >= 0 and below size ({self.size}), got {self.overlap}"
            )


class SlidingChunker(BaseChunker):
    """Windows of ``size`` characters, each starting ``size - overlap`` after the previous one."""

    name = "sliding"
    config_class = SlidingConfig

    def max_chars(self) -> int:
        return max(self.config.size, MAX_CHUNK_CHARS)

    def segments(self, text: str) -> list[Segment]:
        c = self.config
        return [Segment(s, e) for s, e in word_windows(text, 0, len(text), c.size, c.overlap)]
