"""Citation parsing: find ``[n]`` markers in an answer and map them to the numbered sources (pure).

Only ragkit's own markers are citations: a ``[1]`` inside code is code, and a document's own bracketed
numbers reach answers with a word joiner after the bracket (``llms.base.documents_own_markers``), which
no pattern here matches."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

# [1]  [1, 2]  [1,2,3]  [1-3]  [1–3]  [2; 4]
_MARKER = re.compile(r"\[(\s*\d+\s*(?:(?:[,;]|[-–])\s*\d+\s*)*)\]")


@dataclass(frozen=True)
class CitationReport:
    """Markers in order of first appearance; ``valid`` point at a source, ``invalid`` point at none."""

    markers: tuple[int, ...] = ()
    valid: tuple[int, ...] = ()
    invalid: tuple[int, ...] = ()
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)

    @property
    def uncited(self) -> bool:
        """True when the answer cites no existing source at all."""
        return not self.valid


_CODE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$|`[^`\n]+`", re.M | re.S)


def code_regions(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of fenced code blocks and inline code spans: a ``[1]`` inside code is code."""
    if "`" not in text and "~~~" not in text:
        return []
    return [(m.start(), m.end()) for m in _CODE.finditer(text)]


def outside_code(text: str, pattern: re.Pattern[str]) -> list[re.Match[str]]:
    """The matches of ``pattern`` in ``text`` that do not lie in code."""
    code = code_regions(text)
    return [m for m in pattern.finditer(text) if not any(a <= m.start() < b for a, b in code)]


_CONTEXT_I = re.compile(r"\bcontext\s+(\d+)\b", re.IGNORECASE)
_SOURCE_ID = re.compile(r"<?\bsource\s+id\s*=\s*[\"']?(\d+)[\"']?", re.IGNORECASE)
_MD_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?\s*\)")


def parse_citations(
    text: str, n_sources: int, style: str = "numbered", urls: Sequence[str] = ()
) -> CitationReport:
    """Parse the citations of an answer against sources numbered 1..n_sources.

    Every style: ``[n]`` markers (lists and ranges too). ``context-i``: "Context 2" mentions. ``xml``:
    ``source id="2"`` references and Markdown links whose target is a source's url (``urls[i]`` is source
    i+1's). Numbers are listed in order of first appearance.
    """
    found: list[tuple[int, int, list[int]]] = []  # (start, end, numbers) of every citation
    if style == "context-i":
        found += [(m.start(), m.end(), [int(m.group(1))]) for m in _CONTEXT_I.finditer(text)]
    if style == "xml":
        found += [(m.start(), m.end(), [int(m.group(1))]) for m in _SOURCE_ID.finditer(text)]
        for m in _MD_LINK.finditer(text):
            target = m.group(2)
            for i, url in enumerate(urls, start=1):
                if target == url or target.split("#")[0] == url.split("#")[0] == target:
                    found.append((m.start(), m.end(), [i]))
                    break
    for m in outside_code(text, _MARKER):
        numbers: list[int] = []
        for part in re.split(r"[,;]", m.group(1)):
            bounds = re.split(r"\s*[-–]\s*", part.strip())
            if len(bounds) == 2:
                lo, hi = int(bounds[0]), int(bounds[1])
                if lo <= hi and hi - lo <= 50:  # "[1-3]"; a huge range is not a citation list
                    numbers.extend(range(lo, hi + 1))
                    continue
            numbers.extend(int(b) for b in bounds)
        found.append((m.start(), m.end(), numbers))
    found.sort(key=lambda f: f[0])
    seen: dict[int, None] = {}
    for _, _, numbers in found:
        for n in numbers:
            seen.setdefault(n, None)
    spans = [(a, b) for a, b, _ in found]
    markers = tuple(seen)
    valid = tuple(n for n in markers if 1 <= n <= n_sources)
    invalid = tuple(n for n in markers if not 1 <= n <= n_sources)
    return CitationReport(markers, valid, invalid, tuple(spans))


def renumber(text: str, n_sources: int) -> tuple[str, dict[int, int]]:
    """The answer with its valid citations renumbered 1, 2, 3… in the order they are first cited, and
    the map old number -> new number ("[3] … [5]" reads "[1] … [2]"; the sources list follows the map).

    Markers pointing at no source keep their number (they are flagged elsewhere); ranges are expanded.
    """
    report = parse_citations(text, n_sources)
    mapping = {old: new for new, old in enumerate(report.valid, start=1)}

    def sub(m: re.Match[str]) -> str:
        numbers: list[int] = []
        for part in re.split(r"[,;]", m.group(1)):
            bounds = [b for b in re.split(r"\s*[-–]\s*", part.strip()) if b]
            if (
                len(bounds) == 2
                and int(bounds[0]) <= int(bounds[1])
                and int(bounds[1]) - int(bounds[0]) <= 50
            ):
                numbers.extend(range(int(bounds[0]), int(bounds[1]) + 1))
            else:
                numbers.extend(int(b) for b in bounds)
        shown = list(dict.fromkeys(mapping.get(n, n) for n in numbers))
        return "[" + ", ".join(map(str, shown)) + "]"

    code = code_regions(text)
    out, pos = [], 0
    for m in _MARKER.finditer(text):
        if any(a <= m.start() < b for a, b in code):
            continue
        out += [text[pos : m.start()], sub(m)]
        pos = m.end()
    return "".join([*out, text[pos:]]), mapping
