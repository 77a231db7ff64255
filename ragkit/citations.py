"""Citation parsing: find ``[n]`` markers in an answer and map them to the numbered sources (pure)."""

from __future__ import annotations

import re
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


def parse_citations(text: str, n_sources: int) -> CitationReport:
    """Parse ``[n]`` markers (lists and ranges too) in ``text`` against sources numbered 1..n_sources."""
    seen: dict[int, None] = {}
    spans = []
    for m in _MARKER.finditer(text):
        spans.append((m.start(), m.end()))
        for part in re.split(r"[,;]", m.group(1)):
            part = part.strip()
            bounds = re.split(r"\s*[-–]\s*", part)
            if len(bounds) == 2:
                lo, hi = int(bounds[0]), int(bounds[1])
                if lo <= hi and hi - lo <= 50:  # "[1-3]"; a huge range is not a citation list
                    for n in range(lo, hi + 1):
                        seen.setdefault(n, None)
                    continue
            for b in bounds:
                seen.setdefault(int(b), None)
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

    return _MARKER.sub(sub, text), mapping
