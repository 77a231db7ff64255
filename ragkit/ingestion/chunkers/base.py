"""The ``Chunker`` protocol and the helper every chunker shares to turn text segments into chunks.

A chunker finds ``Segment``s — ``(start, end, heading_path)`` offsets into ``Document.text`` (the pages
joined by a blank line) — and :func:`build_chunks` maps them back to per-page spans and stable ids.

Two rules hold for every chunker, whatever its settings:

- **A hard length cap.** No chunk is longer than ``max(MAX_CHUNK_CHARS, the chunker's own size)``
  characters: a longer segment (a 2 MB "word", a paragraph without punctuation) is windowed, cutting
  inside a word only when one word is longer than the window. The embedder reads the first few hundred
  tokens of a chunk anyway; the cap keeps memory and time per chunk bounded.
- **Tables keep their header.** A chunk that starts inside a Markdown table, below its header, gets
  the header row(s) in front of its own text (and their span), so every piece of a split table says
  what its columns are — unless header and chunk together would break the length cap.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

from ragkit.core.hashing import config_key
from ragkit.core.options import Component, Settings
from ragkit.core.types import Chunk, Document, Span

#: the hard cap on chunk length for chunkers whose own size limit is smaller (see the module docstring)
MAX_CHUNK_CHARS = 4000


class Segment(NamedTuple):
    """``text[start:end]`` of a document's text, under ``heading_path`` (a tuple: cheap in bulk)."""

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
    """Shared plumbing: settings checked against the declared options, ``spec()`` for manifests, ids and
    page spans. A subclass declares ``component`` and implements :meth:`segments`."""

    component: ClassVar[Component]

    def __init__(self, **settings: Any) -> None:
        self._config = self.component.settings(settings, self.name)
        self.check(self._config)

    @property
    def name(self) -> str:
        return self.component.name

    def check(self, settings: Settings) -> None:
        """Rules between settings (an overlap below the size); raise ``ConfigError``."""

    @property
    def config(self) -> Settings:
        return self._config

    def spec(self) -> dict[str, Any]:
        """``{"name", "config"}``: what the manifest records and what keys chunk ids. Settings added in a
        later version are left out at their default, so existing indexes keep their chunk ids."""
        later = {o.name: o.default for o in self.component.options if o.added_later}
        config = {k: v for k, v in self._config.items() if not (k in later and v == later[k])}
        return {"name": self.name, "config": config}

    def key(self) -> str:
        return config_key(self.spec())[:8]

    def segments(self, text: str) -> list[Segment]:  # pragma: no cover - abstract
        raise NotImplementedError

    def max_chars(self) -> int:
        """The longest chunk this chunker may produce (its own size limit, at least the hard cap)."""
        return MAX_CHUNK_CHARS

    def split(self, document: Document) -> list[Chunk]:
        if document.kind == "qa":  # question-answer pairs have their own units (see ragkit.ingestion.qa)
            from ragkit.ingestion.qa import qa_chunks

            return qa_chunks(document, self.key())
        return build_chunks(document, self.segments(document.text), self.key(), self.max_chars())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._config!r})"


def build_chunks(
    document: Document, segments: list[Segment], key: str, max_chars: int = MAX_CHUNK_CHARS
) -> list[Chunk]:
    """Turn segments of ``document.text`` into chunks with page spans and ids ``<doc>-<key>-<n>``.

    Segments longer than ``max_chars`` are windowed first; a chunk starting inside a table below its
    header gets the header in front (see the module docstring).
    """
    text = document.text
    starts = document.page_starts()
    tables = table_regions(text)
    doc_id, source, prefix = document.doc_id, document.source, f"{document.doc_id}-{key}-"
    meta = chunk_meta(document)
    one_page, page_one = len(starts) == 1, document.pages[0].number if document.pages else 1
    chunks: list[Chunk] = []
    append, new_chunk = chunks.append, Chunk  # hot loop: 200k tiny paragraphs are 200k chunks
    for seg in segments:
        start, end = trim(text, seg.start, seg.end)
        if start >= end:
            continue
        pieces = ((start, end),) if end - start <= max_chars else word_windows(text, start, end, max_chars, 0)
        for p_start, p_end in pieces:
            if one_page:
                spans: tuple[Span, ...] = (Span(page_one, p_start, p_end),)
            else:
                spans = tuple(_spans(document, starts, p_start, p_end))
                if not spans:
                    continue
            body = text[p_start:p_end]
            header = _table_header(tables, p_start) if tables else None
            if header is not None and header[1] - header[0] + 1 + len(body) <= max_chars:
                h_start, h_end = header
                spans = (*_spans(document, starts, h_start, h_end), *spans)
                body = text[h_start:h_end] + "\n" + body
            index = len(chunks)
            append(
                new_chunk(
                    f"{prefix}{index:05d}",
                    doc_id,
                    source,
                    index,
                    body,
                    spans,
                    seg.heading_path,
                    dict(meta) if meta else {},
                )
            )
    return chunks


def chunk_meta(document: Document) -> dict[str, Any]:
    """What every chunk of a document carries: its ``url`` and ``title`` when it has them, and ``kind``
    (``text``; Q&A collections set ``question``/``answer``/``code`` themselves)."""
    meta: dict[str, Any] = {k: document.meta[k] for k in ("url", "title") if document.meta.get(k)}
    if meta:
        meta["kind"] = "text"
    return meta


_TABLE_ROW = re.compile(r"[ \t]*\|")
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")


def table_regions(text: str) -> list[tuple[int, int, int]]:
    """``(start, header_end, end)`` of each Markdown table: consecutive ``|`` lines whose second line is
    a ``|---|`` rule. ``text[start:header_end]`` is the header row and the rule."""
    out: list[tuple[int, int, int]] = []
    if "|" not in text:
        return out
    lines: list[tuple[int, int]] = []  # the current run of table lines
    pos = 0

    def close() -> None:
        if len(lines) >= 2 and _TABLE_RULE.match(text, lines[1][0], lines[1][1]):
            out.append((lines[0][0], lines[1][1], lines[-1][1]))
        lines.clear()

    n = len(text)
    while pos < n:
        nl = text.find("\n", pos)
        end = n if nl == -1 else nl
        if _TABLE_ROW.match(text, pos, end):
            lines.append((pos, end))
        elif lines:
            close()
        pos = end + 1
    close()
    return out


def _table_header(tables: list[tuple[int, int, int]], pos: int) -> tuple[int, int] | None:
    """The header ``(start, end)`` of the table that ``pos`` lies in, below its header; else None."""
    i = bisect.bisect_right(tables, (pos, 1 << 62, 0)) - 1
    if i >= 0:
        start, header_end, end = tables[i]
        if header_end < pos < end:
            return start, header_end
    return None


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink ``[start, end)`` so it neither begins nor ends with whitespace."""
    if start >= end or not (text[start].isspace() or text[end - 1].isspace()):
        return start, end  # the common case, without copying the segment
    piece = text[start:end]
    stripped = piece.lstrip()
    start += len(piece) - len(stripped)
    end = start + len(stripped.rstrip())
    return start, end


def _spans(document: Document, starts: list[int], start: int, end: int) -> list[Span]:
    if len(starts) == 1:  # one page: the offsets are the page's own (the common case, made cheap)
        return [Span(document.pages[0].number, start, end)] if start < end else []
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
    """Character windows of at most ``size`` over ``text[start:end]`` that cut no word shorter than them.

    A window ends at the last whitespace before ``size``; a single word longer than ``size`` is cut at
    ``size`` (an unbroken run must not become one unbounded chunk). The next window starts ``overlap``
    characters earlier, moved forward to a word start. Linear in the text length for a fixed ``size``.
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
            # (no whitespace: one word longer than the window, cut at the window's end)
            cut = back if back > pos else limit
        out.append((pos, cut))
        if cut >= end:
            break
        nxt = max(cut - overlap, pos + 1)
        # start at a word boundary: move forward to the next word start (never past the cut)
        if nxt < cut and not text[nxt - 1].isspace():
            m = _WORD_BREAK.search(text, nxt, cut)
            nxt = m.start() if m else cut
        pos = nxt
    return out
