"""Sliding character windows with overlap that never cut inside a word."""

from __future__ import annotations

from dataclasses import dataclass

from ragkit.chunkers.base import BaseChunker, Segment, word_windows
from ragkit.errors import ConfigError


@dataclass(frozen=True)
class SlidingConfig:
    size: int = 500
    overlap: int = 100

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ConfigError(f"sliding: size must be >= 1, got {self.size}")
        if not 0 <= self.overlap < self.size:
            raise ConfigError(
                f"sliding: overlap must be >= 0 and below size ({self.size}), got {self.overlap}"
            )


class SlidingChunker(BaseChunker):
    """Windows of ``size`` characters, each starting ``size - overlap`` after the previous one."""

    name = "sliding"
    config_class = SlidingConfig

    def segments(self, text: str) -> list[Segment]:
        c = self.config
        return [Segment(s, e) for s, e in word_windows(text, 0, len(text), c.size, c.overlap)]
