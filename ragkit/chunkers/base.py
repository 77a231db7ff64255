"""The ``Chunker`` protocol and the helper every chunker shares to turn text segments into chunks.

A chunker finds ``Segment``s — ``(start, end, heading_path)`` offsets into ``Document.text`` (the pages
joined by a blank line) — and :func:`build_chunks` maps them back to per-page spans and stable ids.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from ragkit.errors import ConfigError
from ragkit.hashing import config_key
from ragkit.types import Chunk, Document, Span


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    heading_path: tuple[str, ...] = ()


@runtime_checkable
class Chunker(Protocol):
    """Splits a document into chunks; same document + same config -> same chunks and ids."""

    name: ClassVar[str]

    @property
    def config(self) -> Any: ...

    def split(self, document: Document) -> list[Chunk]: ...

    def spec(self) -> dict[str, Any]: ...


class BaseChunker:
    """Shared plumbing: config validation, ``spec()`` for manifests, ids and page spans."""

    name: ClassVar[str] = ""
    config_class: ClassVar[type]

    def __init__(self, config: Any = None, **overrides: Any) -> None:
        if config is None:
            config = self.config_class(**overrides)
        elif overrides:
            raise ConfigError("pass either a config object or keyword settings, not both")
        if not isinstance(config, self.config_class):
            raise ConfigError(f"{self.name} chunker needs a {self.config_class.__name__}")
        self._config = config

    @property
    def config(self) -> Any:
        return self._config

    def spec(self) -> dict[str, Any]:
        """``{"name", "config"}``: what the manifest records and what keys chunk ids."""
        return {"name": self.name, "config": asdict(self._config)}

    def key(self) -> str:
        return config_key(self.spec())[:8]

    def segments(self, text: str) -> list[Segment]:  # pragma: no cover - abstract
        raise NotImplementedError

    def split(self, document: Document) -> list[Chunk]:
        return build_chunks(document, self.segments(document.text), self.key())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._config!r})"


def build_chunks(document: Document, segments: list[Segment], key: str) -> list[Chunk]:
    """Turn segments of ``document.text`` into chunks with page spans and ids ``<doc>-<key>-<n>``."""
    text = document.text
    starts = document.page_starts()
    chunks: list[Chunk] = []
    for seg in segments:
        start, end = trim(text, seg.start, seg.end)
        if start >= end:
            continue
        spans = _spans(document, starts, start, end)
        if not spans:
            continue
        index = len(chunks)
        chunks.append(
            Chunk(
                chunk_id=f"{document.doc_id}-{key}-{index:05d}",
                doc_id=document.doc_id,
                source=document.source,
                index=index,
                text=text[start:end],
                spans=tuple(spans),
                heading_path=seg.heading_path,
            )
        )
    return chunks


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither begins nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _spans(document: Document, starts: list[int], start: int, end: int) -> list[Span]:
    spans = []
    first = bisect.bisect_right(starts, start) - 1
    for i in range(max(first, 0), len(starts)):
        p_start = starts[i]
        p_end = p_start + len(document.pages[i].text)
        if p_start >= end:
            break
        s, e = max(start, p_start), min(end, p_end)
        if s < e and document.pages[i].text[s - p_start : e - p_start].strip():
            spans.append(Span(document.pages[i].number, s - p_start, e - p_start))
    return spans


_WORD_BREAK = re.compile(r"\s")


def word_windows(text: str, start: int, end: int, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character windows of at most ``size`` over ``text[start:end]`` that never cut a word.

    A window ends at the last whitespace before ``size``; a single word longer than ``size`` is kept
    whole. The next window starts ``overlap`` characters earlier, moved forward to a word start.
    """
    out: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            break
        limit = pos + size
        if limit >= end:
            out.append((pos, end))
            break
        cut = limit
        if not text[limit].isspace():
            # back up to the whitespace before the word that straddles the limit
            back = text.rfind(" ", pos, limit)
            back = max(back, text.rfind("\n", pos, limit), text.rfind("\t", pos, limit))
            if back > pos:
                cut = back
            else:  # one word longer than the window: keep it whole
                m = _WORD_BREAK.search(text, limit, end)
                cut = m.start() if m else end
        out.append((pos, cut))
        if cut >= end:
            break
        nxt = max(cut - overlap, pos + 1)
        # start at a word boundary: move forward to the next word start
        if nxt < cut and not text[nxt - 1].isspace():
            m = _WORD_BREAK.search(text, nxt, cut)
            nxt = m.start() if m else cut
        pos = nxt
    return out
