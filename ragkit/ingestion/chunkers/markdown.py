"""Structure-aware chunks for Markdown (and PDF text, whose tables ragkit renders as Markdown).

Splits at headings, horizontal rules and blank lines; keeps fenced (and HTML ``<pre><code>``) code blocks
and tables whole; merges pieces shorter than ``min_chars`` into a neighbour in the same section; records
the heading path. A heading with no body of its own is carried into the next section's first chunk.
With ``separate_code`` every code block is a chunk of its own (never merged with prose, however short);
``overlap`` makes the windows of long prose share that many characters.

"Whole" has a limit: a table or code block longer than ``max(max_chars, MAX_CHUNK_CHARS)`` is split
between rows (tables; every piece then repeats the header, see ``chunkers.base``) or lines (code).
Parsing and merging are linear in the text length (no backtracking regexes on a line, no list deletes).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ragkit.core.errors import ConfigError
from ragkit.core.options import Component, Option, Settings
from ragkit.ingestion.chunkers.base import MAX_CHUNK_CHARS, BaseChunker, Segment, word_windows

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING_START = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
_TABLE_LINE = re.compile(r"^\s*\|")
_PRE = re.compile(r"^\s{0,3}<pre[\s>]", re.IGNORECASE)


def _heading(line: str) -> tuple[int, str] | None:
    """``(level, title)`` of an ATX heading line, else None (no regex backtracking over the title)."""
    m = _HEADING_START.match(line)
    if m is None:
        return None
    title = line[m.end() :].strip()
    # a closing run of '#' after a space is not part of the title: "## Title ##"
    stripped = title.rstrip("#")
    if stripped != title and (not stripped or stripped[-1] in " \t"):
        title = stripped.rstrip()
    return len(m.group(1)), title


def _is_rule(line: str) -> bool:
    """A thematic break: three or more of one of ``-*_``, optionally spaced, nothing else."""
    body = line.strip()
    if len(line) - len(line.lstrip(" ")) > 3 or len(body) < 3 or body[0] not in "-*_":
        return False
    chars = body.replace(" ", "").replace("\t", "")
    return len(chars) >= 3 and chars == body[0] * len(chars)


@dataclass
class _Piece:
    start: int
    end: int
    whole: bool  # a table or code block (or a piece holding one): never windowed
    code: bool = False  # a fenced or <pre><code> block

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
    kind = ""  # "para", "table", "fence" or "pre" for ``current``
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
        if kind == "pre":
            current.end = end  # type: ignore[union-attr]
            if "</pre>" in body.lower():
                flush()
            continue
        m = _FENCE.match(body)
        if m:
            flush()
            current, kind, fence = _Piece(start, end, True, code=True), "fence", m.group(1)
            continue
        if _PRE.match(body):
            flush()
            current, kind = _Piece(start, end, True, code=True), "pre"
            if "</pre>" in body.lower():
                flush()
            continue
        h = _heading(body)
        if h is not None:
            flush()
            level, title = h
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            sections.append(_Section(path=tuple(t for _, t in stack if t), heading=(start, end)))
            continue
        if _is_rule(body):
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

    component = Component(
        "chunker",
        "markdown",
        "headings, rules and paragraphs; tables and code blocks kept whole",
        options=(
            Option("min_chars", "int", 100, 0, 10_000_000, step=50,
                   help="merge pieces shorter than this into a neighbour"),
            Option("max_chars", "int", 2000, 0, 10_000_000, step=100, suggest=(1000, 2000, 4000),
                   help="window prose longer than this (0: no limit; tables and code stay whole)"),
            Option("overlap", "int", 0, 0, 10_000_000, added_later=True, step=50,
                   help="characters a window of long prose shares with the previous one"),
            Option("separate_code", "bool", False, added_later=True, label="Code blocks as their own chunks",
                   help="Every fenced or <pre><code> block becomes a chunk, never merged with prose."),
        ),
    )  # fmt: skip

    def check(self, settings: Settings) -> None:
        if settings.overlap and (not settings.max_chars or settings.overlap >= settings.max_chars):
            raise ConfigError(
                f"markdown: overlap must be below max_chars ({settings.max_chars}), got {settings.overlap}"
            )
        if settings.max_chars and settings.max_chars < settings.min_chars:
            raise ConfigError(
                f"markdown: max_chars must be 0 (no limit) or >= min_chars, got {settings.max_chars}"
            )

    def max_chars(self) -> int:
        return max(self.config.max_chars, MAX_CHUNK_CHARS)

    def segments(self, text: str) -> list[Segment]:
        min_chars, max_chars = self.config.min_chars, self.config.max_chars
        cap = self.max_chars()
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
            for piece in self._merge(pieces, min_chars, max_chars, self.config.separate_code):
                if piece.whole and len(piece) > cap:
                    out.extend(Segment(s, e, sec.path) for s, e in _line_groups(text, piece, cap))
                elif piece.whole or not max_chars or len(piece) <= max_chars:
                    out.append(Segment(piece.start, piece.end, sec.path))
                else:
                    out.extend(
                        Segment(s, e, sec.path)
                        for s, e in word_windows(text, piece.start, piece.end, max_chars, self.config.overlap)
                    )
        if carried is not None:  # the text ends with headings that have no body
            out.append(Segment(carried, len(text), ()))
        return out

    @staticmethod
    def _merge(
        pieces: list[_Piece], min_chars: int, max_chars: int, separate_code: bool = False
    ) -> list[_Piece]:
        """Merge each piece under ``min_chars`` into the next one (or, failing that, the previous one)
        while the result fits ``max_chars``; one pass, so linear in the number of pieces. With
        ``separate_code`` a code block never merges with anything."""

        def fits(a: _Piece, b: _Piece) -> bool:
            if separate_code and (a.code or b.code):
                return False
            return not max_chars or (b.end - a.start) <= max_chars or a.whole or b.whole

        if len(pieces) <= 1:
            return list(pieces)
        out: list[_Piece] = []
        carry: _Piece | None = None  # a small piece waiting to be merged forward
        for p in pieces:
            if carry is not None:
                if fits(carry, p):
                    p = _Piece(carry.start, p.end, carry.whole or p.whole, carry.code or p.code)
                elif out and fits(out[-1], carry):
                    out[-1] = _Piece(
                        out[-1].start, carry.end, out[-1].whole or carry.whole, out[-1].code or carry.code
                    )
                else:
                    out.append(carry)
                carry = None
            if len(p) < min_chars and not (separate_code and p.code):
                carry = p
            else:
                out.append(p)
        if carry is not None:
            if out and fits(out[-1], carry):
                out[-1] = _Piece(
                    out[-1].start, carry.end, out[-1].whole or carry.whole, out[-1].code or carry.code
                )
            else:
                out.append(carry)
        return out


def _table_header_length(text: str, piece: _Piece) -> int:
    """Length of the header row and rule (plus a newline) if ``piece`` holds a table, else 0."""
    from ragkit.ingestion.chunkers.base import table_regions

    for start, header_end, _end in table_regions(text[piece.start : piece.end]):
        return header_end - start + 1
    return 0


def _line_groups(text: str, piece: _Piece, cap: int) -> list[tuple[int, int]]:
    """Split an over-long table or code block between lines into groups of at most ``cap`` characters
    (a single longer line is left to the hard cap in ``build_chunks``)."""
    groups: list[tuple[int, int]] = []
    g_start = piece.start
    pos = piece.start
    # pieces of a table after the first get its header in front (chunkers.base): leave room for it
    room = cap - _table_header_length(text, piece)
    limit = cap
    while pos < piece.end:
        nl = text.find("\n", pos, piece.end)
        line_end = piece.end if nl == -1 else nl
        if line_end - g_start > limit and pos > g_start:
            groups.append((g_start, pos - 1))
            g_start, limit = pos, room
        pos = line_end + 1
    groups.append((g_start, piece.end))
    return groups
