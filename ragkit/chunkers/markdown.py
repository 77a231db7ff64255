"""Structure-aware chunks for Markdown (and PDF text, whose tables ragkit renders as Markdown).

Splits at headings, horizontal rules and blank lines; keeps fenced code blocks and tables whole; merges
pieces shorter than ``min_chars`` into a neighbour in the same section; records the heading path.
A heading with no body of its own is carried into the next section's first chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragkit.chunkers.base import BaseChunker, Segment, word_windows
from ragkit.errors import ConfigError

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_HR = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_LINE = re.compile(r"^\s*\|")


@dataclass(frozen=True)
class MarkdownConfig:
    min_chars: int = 100
    max_chars: int = 2000  # prose pieces above this are windowed; 0 = no limit. Tables/code stay whole.

    def __post_init__(self) -> None:
        if self.min_chars < 0:
            raise ConfigError(f"markdown: min_chars must be >= 0, got {self.min_chars}")
        if self.max_chars < 0 or (self.max_chars and self.max_chars < self.min_chars):
            raise ConfigError(
                f"markdown: max_chars must be 0 (no limit) or >= min_chars, got {self.max_chars}"
            )


@dataclass
class _Piece:
    start: int
    end: int
    whole: bool  # a table or code block (or a piece holding one): never windowed

    def __len__(self) -> int:
        return self.end - self.start


@dataclass
class _Section:
    path: tuple[str, ...]
    heading: tuple[int, int] | None = None
    pieces: list[_Piece] = field(default_factory=list)


def _parse(text: str) -> list[_Section]:
    """One pass over the lines: sections (split at headings and rules) holding their pieces."""
    sections = [_Section(path=())]
    stack: list[tuple[int, str]] = []
    current: _Piece | None = None
    kind = ""  # "para", "table" or "fence" for ``current``
    fence = ""

    def flush() -> None:
        nonlocal current, kind
        if current is not None:
            sections[-1].pieces.append(current)
        current, kind = None, ""

    pos = 0
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line.rstrip("\n"))
        pos += len(line)
        body = line.rstrip("\n")
        if kind == "fence":
            current.end = end  # type: ignore[union-attr]
            stripped = body.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                flush()
            continue
        m = _FENCE.match(body)
        if m:
            flush()
            current, kind, fence = _Piece(start, end, True), "fence", m.group(1)
            continue
        m = _HEADING.match(body)
        if m:
            flush()
            level, title = len(m.group(1)), (m.group(2) or "").strip()
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections.append(_Section(path=tuple(t for _, t in stack if t), heading=(start, end)))
            continue
        if _HR.match(body):
            flush()
            sections.append(_Section(path=sections[-1].path))
            continue
        if not body.strip():
            flush()
            continue
        is_table = bool(_TABLE_LINE.match(body))
        if current is not None and (kind == "table") == is_table:
            current.end = end
        else:
            flush()
            current, kind = _Piece(start, end, is_table), "table" if is_table else "para"
    flush()
    return sections


class MarkdownChunker(BaseChunker):
    """Headings, rules and paragraphs define the pieces; small pieces merge into a neighbour."""

    name = "markdown"
    config_class = MarkdownConfig

    def segments(self, text: str) -> list[Segment]:
        min_chars, max_chars = self.config.min_chars, self.config.max_chars
        out: list[Segment] = []
        carried: int | None = None  # start of a heading that had no body yet
        for sec in _parse(text):
            pieces = sec.pieces
            if not pieces:
                if sec.heading is not None and carried is None:
                    carried = sec.heading[0]
                continue
            lead = carried if carried is not None else (sec.heading[0] if sec.heading else None)
            carried = None
            if lead is not None:
                pieces[0].start = lead
            for piece in self._merge(pieces, min_chars, max_chars):
                if piece.whole or not max_chars or len(piece) <= max_chars:
                    out.append(Segment(piece.start, piece.end, sec.path))
                else:
                    out.extend(
                        Segment(s, e, sec.path)
                        for s, e in word_windows(text, piece.start, piece.end, max_chars, 0)
                    )
        if carried is not None:  # the text ends with headings that have no body
            out.append(Segment(carried, len(text), ()))
        return out

    @staticmethod
    def _merge(pieces: list[_Piece], min_chars: int, max_chars: int) -> list[_Piece]:
        def fits(a: _Piece, b: _Piece) -> bool:
            return not max_chars or (b.end - a.start) <= max_chars or a.whole or b.whole

        merged = list(pieces)
        i = 0
        while i < len(merged):
            p = merged[i]
            if len(p) < min_chars and len(merged) > 1:
                if i + 1 < len(merged) and fits(p, merged[i + 1]):
                    nxt = merged[i + 1]
                    merged[i + 1] = _Piece(p.start, nxt.end, p.whole or nxt.whole)
                    del merged[i]
                    continue
                if i > 0 and fits(merged[i - 1], p):
                    prev = merged[i - 1]
                    merged[i - 1] = _Piece(prev.start, p.end, p.whole or prev.whole)
                    del merged[i]
                    continue
            i += 1
        return merged
