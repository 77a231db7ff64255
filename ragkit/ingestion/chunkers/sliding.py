"""Sliding character windows with overlap that never cut inside a word (unless one word is longer than
the window, which is then cut at the window's end)."""

from __future__ import annotations

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option, Settings
from ragkit.ingestion.chunkers.base import MAX_CHUNK_CHARS, BaseChunker, Segment, word_windows


class SlidingChunker(BaseChunker):
    """Windows of ``size`` characters, each starting ``size - overlap`` after the previous one."""

    component = Component(
        "chunker",
        "sliding",
        "character windows with overlap, never cutting a word shorter than the window",
        options=(
            Option("size", "int", 500, 1, 10_000_000, flag="--chunk-size", step=50,
                   help="window size in characters", suggest=(200, 500, 1000)),
            Option("overlap", "int", 100, 0, 10_000_000, step=50,
                   help="characters a window shares with the previous one (sentence: sentences)",
                   suggest=(0, 50, 100)),
        ),
    )  # fmt: skip

    def check(self, settings: Settings) -> None:
        if not settings.overlap < settings.size:
            raise ConfigError(
                f"sliding: overlap must be >= 0 and below size ({settings.size}), got {settings.overlap}"
            )

    def max_chars(self) -> int:
        return max(self.config.size, MAX_CHUNK_CHARS)

    def segments(self, text: str) -> list[Segment]:
        c = self.config
        return [Segment(s, e) for s, e in word_windows(text, 0, len(text), c.size, c.overlap)]
