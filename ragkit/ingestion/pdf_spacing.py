"""Word spaces a tightly set page shows as gaps but does not write as characters.

MuPDF writes a space where the gap between two glyphs is wider than about 0.15 em. A justified
column set tight (some typesetters squeeze word spaces to a tenth of an em and write no space
character) then reads "LongnoncodingRNA(ncRNA),whichconsistsof>200ntand": no quote typed from the
rendered page is found in it. :func:`respace` finds such a page by its evidence — several lines (or one
long phrase) whose letters touch while a few gaps, each at least :data:`MIN_GAP`, stand clear of them —
and writes a space at those gaps, so the text reads as the page shows it. A page of ordinary spacing,
letter-spaced headings and monospaced code (where every gap is alike) are left as MuPDF reads them.

The other way round, a space character can take no room: a form writes "15", a space and "a" at the
space's own place ("15a" on the page, "15 a" in the text layer), a subscript is set where the space
before it begins ("a₀" read "a 0"), a producer writes a space inside a ligature's box ("Deﬁ cit").
:func:`unspace` drops a space between two letters or digits whose neighbours touch and that has no
room of its own (the next glyph starts where it starts, or it ends inside the glyph before it).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from ragkit.ingestion.pdf_glyphs import no_room
from ragkit.ingestion.pdf_spans import horizontal

#: the narrowest gap taken for a squeezed word space, in em (the tightest seen: 0.11 em)
MIN_GAP = 0.08
#: the widest gap between the letters of a word in a run whose spaces are squeezed, in em, or this
#: share of its narrowest word gap (so a word space stands well clear of kerning)
LETTER_GAP, LETTER_SHARE = 0.03, 0.3
#: at most this share of a run's gaps may be word spaces (monospaced code has a gap at every letter)
MAX_SHARE = 0.4
#: a page is read as set tight when this many lines each have this many squeezed spaces, or one line has
#: ``LONE_LINE`` (a phrase of seven words glued: "Userscaneasilyfiltercandidatesby…")
TIGHT_LINES, SPACES_PER_LINE, LONE_LINE = 3, 3, 6

Char = dict[str, Any]
Place = tuple[int, int]  # (span index, char index) in a line


def _runs(line: dict[str, Any]) -> list[list[tuple[Place, Char, float]]]:
    """A line's runs of glyphs between space characters, each glyph with its place and font size."""
    runs: list[list[tuple[Place, Char, float]]] = [[]]
    for si, span in enumerate(line.get("spans", [])):
        for ci, ch in enumerate(span.get("chars", [])):
            if ch["c"].isspace():
                runs.append([])
            else:
                runs[-1].append(((si, ci), ch, span["size"]))
    return [r for r in runs if len(r) > 1]


def squeezed(line: dict[str, Any]) -> list[Place]:
    """The places after which a squeezed word space stands in ``line`` (a RAWDICT line)."""
    if not horizontal(line):
        return []
    found: list[Place] = []
    for run in _runs(line):
        spaces: list[tuple[Place, float]] = []
        letters: list[float] = []
        for (place, a, size_a), (_, b, size_b) in pairwise(run):
            size = min(size_a, size_b) or 1.0
            gap = (b["bbox"][0] - a["bbox"][2]) / size
            level = size_a == size_b and abs(a["origin"][1] - b["origin"][1]) < 0.1 * size
            if level and gap >= MIN_GAP:
                spaces.append((place, gap))
            else:
                letters.append(gap)
        if not spaces or len(spaces) > MAX_SHARE * (len(run) - 1):
            continue
        narrowest = min(g for _, g in spaces)
        if letters and max(letters) > max(LETTER_GAP, LETTER_SHARE * narrowest):
            continue
        found += [p for p, _ in spaces]
    return found


def _lines(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every text line of ``blocks``, those of nested (structure) blocks included."""
    out: list[dict[str, Any]] = []
    for block in blocks:
        out += block.get("lines", [])
        out += _lines(block.get("blocks", []))
    return out


def respace(page: dict[str, Any]) -> dict[str, Any]:
    """Write a space character at each squeezed word space of a tightly set page (a RAWDICT result,
    changed in place and returned); any other page is returned as it is."""
    lines = _lines(page.get("blocks", []))
    places = [(ln, squeezed(ln)) for ln in lines]
    tight = sum(len(p) >= SPACES_PER_LINE for _, p in places) >= TIGHT_LINES
    if not tight and not any(len(p) >= LONE_LINE for _, p in places):
        return page
    for line, found in places:
        for si, ci in sorted(found, reverse=True):  # from the end, so earlier places stay valid
            chars = line["spans"][si]["chars"]
            a = chars[ci]
            x1 = a["bbox"][2]
            nxt = _next_glyph(line, si, ci)
            box = (x1, a["bbox"][1], nxt["bbox"][0] if nxt else x1, a["bbox"][3])
            chars.insert(ci + 1, {"c": " ", "origin": (x1, a["origin"][1]), "bbox": box})
    return page


def unspace(page: dict[str, Any]) -> dict[str, Any]:
    """Drop each space character that takes no room on the page between two letters or digits (a RAWDICT
    result, changed in place and returned)."""
    for line in _lines(page.get("blocks", [])):
        if not horizontal(line):
            continue
        chars = [
            (si, ci, c, s["size"]) for si, s in enumerate(line["spans"]) for ci, c in enumerate(s["chars"])
        ]
        gone = []
        for k in range(1, len(chars) - 1):
            si, ci, c, size = chars[k]
            a, z = chars[k - 1][2], chars[k + 1][2]
            if c["c"] != " " or not (a["c"].isalnum() and z["c"].isalnum()):
                continue
            if no_room(a["bbox"][2], (c["bbox"][0], c["bbox"][2]), z["bbox"][0], size):
                gone.append((si, ci))
        for si, ci in reversed(gone):
            del line["spans"][si]["chars"][ci]
    return page


def _next_glyph(line: dict[str, Any], si: int, ci: int) -> Char | None:
    """The glyph after the ``ci``-th of span ``si`` (in a later span if it ends that one)."""
    chars = line["spans"][si]["chars"]
    if ci + 1 < len(chars):
        return chars[ci + 1]
    return next((s["chars"][0] for s in line["spans"][si + 1 :] if s.get("chars")), None)


def as_text(page: dict[str, Any]) -> dict[str, Any]:
    """A RAWDICT result in DICT form: each span's characters joined into its ``text``."""
    for line in _lines(page.get("blocks", [])):
        for span in line.get("spans", []):
            span["text"] = "".join(c["c"] for c in span.pop("chars", []))
    return page


_ENGINE: Any = None  # PyMuPDF's own page reading, once install() has put respacing in its place


def engine_rawdict(textpage: Any) -> dict[str, Any]:
    """``textpage`` in RAWDICT form as PyMuPDF itself reads it, squeezed spaces not written."""
    import pymupdf

    return (_ENGINE or pymupdf.TextPage._textpage_dict)(textpage, raw=True)


def install() -> None:
    """Make every DICT and RAWDICT reading of a PyMuPDF text page (the layout engine's, the plain
    parser's, table cells') carry the squeezed word spaces (once per process)."""
    global _ENGINE
    if _ENGINE is not None:
        return
    import pymupdf

    engine = pymupdf.TextPage._textpage_dict

    def textpage_dict(self: Any, raw: bool = False) -> dict[str, Any]:
        page = unspace(respace(engine(self, raw=True)))
        return page if raw else as_text(page)

    pymupdf.TextPage._textpage_dict = textpage_dict
    _ENGINE = engine
