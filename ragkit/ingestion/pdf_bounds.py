"""The layout engine's column boundaries moved off the words they would cut.

The engine draws a table's column boundaries from its own guess of the columns, and a boundary that
falls inside a word splits it between two cells ("GR|OBID", "oBERT|a"); two boundaries a sliver apart,
with no word between them, leave a column of nothing between two columns, and the cells each side were
read into their neighbours ("(4.6) 1.1 (0.8–1.5)" in one cell). Each boundary goes to the nearest
place that cuts no word, and two with nothing between them are one.
"""

from __future__ import annotations


def uncut_columns(v_lines: list[float], x0: float, words: list[tuple[float, float]]) -> list[float]:
    """The column boundaries moved off the words they cut ("GR|OBID", "oBERT|a"): each to the nearest
    edge of a word it cuts where it cuts nothing else and crosses no whole word (it would pass over a
    column: a table's wide total "2,893,045" reaching under its neighbour pushed the boundary past the
    next column, and two years' figures shared a cell beside an empty one). Where every such place cuts
    a word, the boundary stays at the one that cuts fewest of those where the columns beside it hold at
    least :data:`KEPT_FOR` whole words per word cut (a heading over two columns, "Actual", "Projected":
    cells take whole words, so it is not split), and is dropped where there is none (the two columns are
    one). A tax table's "Your tax is—" over three columns of figures cut fewest at the edge of the first
    column's figures, where one word stood left of it, and the boundary was dropped; where it was drawn,
    it cuts three words of the heading between columns of sixty figures each, and stays.)"""

    def cuts(x: float) -> int:
        return sum(a + 0.5 < x < b - 0.5 for a, b in words)

    def crosses(x: float, e: float) -> bool:
        lo, hi = min(x, e), max(x, e)
        return any(lo < a and b < hi for a, b in words)

    absolute = _slivers_closed([x0 + v for v in v_lines], words)
    out: list[float] = []
    for k, x in enumerate(absolute):
        if cuts(x):
            edges = {e for a, b in words if a + 0.5 < x < b - 0.5 for e in (a - 0.5, b + 0.5)}
            lo = absolute[k - 1] if k else float("-inf")
            hi = absolute[k + 1] if k + 1 < len(absolute) else float("inf")
            places = [e for e in edges | {x} if not crosses(x, e) and _held(e, lo, hi, words, cuts(e))]
            if not places:
                continue
            x = min(places, key=lambda e: (cuts(e), abs(e - x), e))
        if not out or x - x0 > out[-1] + 1.0:
            out.append(x - x0)
    return out


def _held(e: float, lo: float, hi: float, words: list[tuple[float, float]], cut: int) -> bool:
    """Whether a boundary at ``e`` (between neighbours at ``lo`` and ``hi``) may stand: it cuts no word, or
    the columns each side of it hold :data:`KEPT_FOR` whole words per word it cuts."""
    left = sum(lo <= a and b <= e for a, b in words)
    right = sum(e <= a and b <= hi for a, b in words)
    return min(left, right) >= KEPT_FOR * cut


def _slivers_closed(bounds: list[float], words: list[tuple[float, float]]) -> list[float]:
    """Two boundaries with no whole word between them as one, midway (the engine drew a sliver of a
    column between two, "(4.6)" and "Unadjusted OR", and each side of it lost its cells to its neighbour)."""
    out: list[float] = []
    for x in bounds:
        if out and not any(out[-1] < a and b < x for a, b in words):
            out[-1] = (out[-1] + x) / 2
        else:
            out.append(x)
    return out


#: a boundary that cannot help cutting a word stays if each column beside it holds this many whole words
#: per word it cuts
KEPT_FOR = 4


__all__ = ["KEPT_FOR", "uncut_columns"]
