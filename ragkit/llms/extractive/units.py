"""Candidate pieces of an extractive answer, read from the retrieved chunks' pages: sentences (completed
across a chunk's edge only when the rest lies in another retrieved chunk), table rows under their
header, fenced code blocks kept verbatim, and name lines (an author block). Page furniture — running
headers, footers and page numbers — is never a candidate. Pure functions over text and spans."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragkit.ingestion.chunkers.base import table_regions
from ragkit.ingestion.chunkers.sentence import paragraphs, sentences

#: how far around a chunk its page is read to complete the sentences its edges cut
MARGIN = 600
#: the first this many characters of a document's first page are its front matter
FRONT_MATTER = 600
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
#: what opens a line but is no part of its sentence: a list bullet or number, a quote's ``>`` (a
#: footnote the layout engine set as one), a footnote's raised number ("⁸ MCAS is …")
_BULLET = re.compile(r"^\s*(?:>\s*)?(?:[-*+•]|\d{1,3}[.)]|[\u00b9\u00b2\u00b3\u2070\u2074-\u2079]+)\s+")
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+)?\d{1,4}(?:\s+(?:of|/)\s+\d{1,4})?\s*$|\[page \d{1,4}\]", re.I)
_PERSON = re.compile(
    r"\b(?:[A-Z][a-z]+(?:-[A-Z][a-z]+)?|[A-Z]\.)\s+(?:[A-Z]\.\s+)?[A-Z][a-z]+(?:-[A-Z][a-z]+)?"
)
_WORD = re.compile(r"\w+")
_CAPS_BYLINE = re.compile(r"\b[Bb]y\s+([A-Z][A-Z'-]+(?:\s+[A-Z]\.)?\s+[A-Z][A-Z'-]+)\b")


@dataclass(frozen=True)
class Unit:
    """A candidate piece of an answer.

    Attributes:
        source: the 1-based number of the retrieved chunk it is quoted from.
        position: its order among all candidates (reading order within a source).
        text: what is quoted (a sentence, a table row, a code block with its fences, a name or date line).
        kind: ``sentence``, ``row``, ``code`` or ``line``.
        header: a row's table header; the sentence that introduces a code block.
        context: the document's title and the chunk's heading path (its words count, weaker).
        sources: every retrieved chunk the quote lies in (a sentence across a chunk's edge has two).
        front: it sits in the document's front matter (the top of its first page: title, byline,
            author block), where a question about the document's date or author is answered.
    """

    source: int
    position: int
    text: str
    kind: str = "sentence"
    header: str = ""
    context: str = ""
    sources: tuple[int, ...] = field(default=())
    front: bool = False


def header_end(text: str, table: tuple[int, int, int]) -> int:
    """Where a table's body starts: after its header, and after the rows right under it with no digit
    when the rows further down have some (a header set on two lines: "Model | Full | Subset" over
    "| P | R | F1 |")."""
    _, body, end = table
    rows = [(m.start() + body, m.end() + body) for m in re.finditer(r"[^\n]+", text[body:end])]
    if not any(re.search(r"\d", text[a:b]) for a, b in rows):
        return body
    for a, b in rows:
        if re.search(r"\d", text[a:b]):
            return a
    return body


#: a table's caption: "Table 8: Number of persons …", "TABLE 2. Results", "Tab. 3 – …" (bold or a heading)
_CAPTION = re.compile(
    r"\s*(?:#{1,6}\s+)?(?:\*\*|__)?(?:Table|TABLE|Tab\.)\s+[\dIVX]+[a-z]?\s*(?:\*\*|__)?[.:\u2013\u2014-]"
)


def table_captions(text: str, regions: Sequence[tuple[int, int, int]]) -> dict[int, tuple[int, int]]:
    """The caption paragraph of each table (keyed by the table's start), the paragraph right above it
    that names it ("Table 8: Number of persons attending …"), or else the one right under it (a paper
    sets it there): the rows' context, not an answer of its own; a title over a table holds its years or
    units, and read alone it outranked the row that answers."""
    out: dict[int, tuple[int, int]] = {}
    starts = {t[0] for t in regions}
    for start, _, end in regions:
        before = text.rfind("\n\n", 0, max(start - 1, 0))
        above = (before + 2 if before >= 0 else 0, start)
        if _CAPTION.match(text, *above):
            out[start] = (above[0], len(text[: above[1]].rstrip()))
            continue
        at = len(text) - len(text[end:].lstrip())
        under = text.find("\n\n", at)
        under = len(text) if under < 0 else under
        if at < under and _CAPTION.match(text, at, under) and under + 2 not in starts:
            out[start] = (at, under)
    return out


def furniture(pages: Sequence[str]) -> frozenset[str]:
    """The running headers and footers of a document: lines (digits ignored) that repeat on at least 40 %
    of its pages, when it has three or more; page-number lines are recognised on their own."""
    if len(pages) < 3:
        return frozenset()
    seen: Counter[str] = Counter()
    for text in pages:
        seen.update({norm_line(x) for x in text.splitlines() if x.strip()})
    least = max(2, round(0.4 * len(pages)))
    return frozenset(line for line, n in seen.items() if n >= least and len(line) > 3)


def norm_line(line: str) -> str:
    return " ".join(re.sub(r"\d+", "#", line.lower()).split())


def is_furniture(line: str, repeated: frozenset[str]) -> bool:
    return bool(_PAGE_NUMBER.search(line)) or norm_line(line) in repeated


def strip_furniture(text: str, repeated: frozenset[str]) -> str:
    """``text`` without the lines that are page furniture."""
    if not repeated and "page" not in text.lower() and not any(c.isdigit() for c in text):
        return text
    return "\n".join(x for x in text.split("\n") if not (x.strip() and is_furniture(x, repeated)))


def fences(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """``(start, end)`` of the fenced code blocks of ``text`` that overlap ``[lo, hi)``."""
    if "```" not in text and "~~~" not in text:
        return []
    return [(m.start(), m.end()) for m in _FENCE.finditer(text) if m.start() < hi and m.end() > lo]


def neighbourhood(text: str, lo: int, hi: int) -> tuple[int, int]:
    """``[lo, hi)`` widened to the paragraph breaks around it, at most ``MARGIN`` characters each way."""
    start = max(0, lo - MARGIN)
    brk = text.rfind("\n\n", start, lo)
    start = brk + 2 if brk != -1 else start
    end = min(len(text), hi + MARGIN)
    brk = text.find("\n\n", hi, end)
    end = brk if brk != -1 else end
    return start, end


def person_names(text: str, common: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """Capitalised two-word names ("Kyle Lo", "C. Okonkwo", "Elena Marchetti") in ``text``; with
    ``common`` (words seen in lower case nearby), a pair of such words is a title, not a name ("Key Value",
    "Semantic Scholar")."""
    out = []
    for m in _PERSON.finditer(text):
        words = [w.lower() for w in re.findall(r"[A-Za-z]{2,}", m.group(0))]
        if not all(w in common for w in words):
            out.append(m.group(0))
    # a news byline sets the name in capitals ("By JEFFREY GETTLEMAN")
    out += [m.group(1) for m in _CAPS_BYLINE.finditer(text)]
    return out


MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
#: a full calendar date ("Tuesday, January 13, 2009", "13 January 2009", "2009-01-13"): a short line
#: holding one is a value (a transcript's or a letter's date line), not a heading
FULL_DATE = re.compile(
    rf"\b(?:(?:{MONTHS})\.?\s+\d{{1,2}},?\s+\d{{4}}|\d{{1,2}}\s+(?:{MONTHS})\s+\d{{4}}|\d{{4}}-\d\d-\d\d)\b",
    re.I,
)


def clean(text: str) -> str:
    """One line of quoted prose: a list bullet, a quote's mark or a footnote's raised number dropped,
    whitespace folded, and the stray ``:``/``;``/``,`` a sentence split can leave in front (a
    transcript's "v. : No. 07-1315" read as two sentences)."""
    return " ".join(_BULLET.sub("", text).split()).lstrip(":;, ")


#: a byline's emphasis and affiliation marks ("**Kyle Lo**†∗", "> _†_ Allen Institute")
_MARKS = re.compile(r"_?[†‡∗§¶]+_?|(?<=\w)\*+|^\s*>\s*")
_BETWEEN_NAMES = re.compile(r"(?<=\w)(?:[†‡∗§¶*]|,)+(?=\s+[A-Z])")


def plain_line(text: str) -> str:
    """A line of names or a date line as it reads: without Markdown emphasis, affiliation marks or a
    quote's ``>``; names a mark separated are separated by a comma (the words themselves untouched)."""
    text = re.sub(r"\*\*|__", "", text)
    return clean(_MARKS.sub("", _BETWEEN_NAMES.sub(",", text)))


#: document kinds whose readings mark every heading with ``#`` (their parsers write the page's own)
MARKED = frozenset({"html", "docx", "md"})


def is_heading(raw: str, heading_path: Iterable[str], whole_paragraph: bool, marked: bool = False) -> bool:
    """A ``#`` line, the chunk's own heading, or, where headings are not ``marked`` as such (a PDF, a scan,
    plain text), a short paragraph of its own without sentence punctuation (a PDF heading or a table's
    title). In a web page or a Word file every heading is marked: a short line there is a caption or a
    standfirst ("Kenya is getting ready to welcome the US president"), text that answers."""
    line = raw.strip()
    if _HEADING.match(line) or line in heading_path:
        return True
    if marked:
        return False
    words = len(_WORD.findall(line))
    unpunctuated = line.rstrip("\"'”’)]")[-1:] not in ".!?:;…"
    return unpunctuated and (words <= 12 if whole_paragraph else words <= 8)


def covered_by(spans: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    """Whether the union of ``spans`` covers ``[start, end)``."""
    pos = start
    for s, e in sorted(spans):
        if s > pos:
            break
        pos = max(pos, e)
        if pos >= end:
            return True
    return pos >= end


def _title(doc: Any) -> str:
    title = str((doc.meta or {}).get("title") or "")
    if title:
        return title
    first = next((x.strip() for x in doc.pages[0].text.splitlines() if x.strip()), "") if doc.pages else ""
    return first if len(first) <= 160 else ""


def collect(hits: Sequence[Any], documents: Mapping[str, Any] | None) -> list[Unit]:
    """Every candidate unit of the retrieved chunks, in order (see the module docstring); ``documents``
    maps a doc id to its parsed document (sentences are read from the page, not the chunk)."""
    covered: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    for n, h in enumerate(hits, start=1):
        for sp in h.chunk.spans:
            covered.setdefault((h.chunk.doc_id, sp.page), []).append((sp.start, sp.end, n))
    out: list[Unit] = []
    seen: set[Any] = set()
    repeated: dict[str, frozenset[str]] = {}
    for n, h in enumerate(hits, start=1):
        chunk = h.chunk
        doc = documents.get(chunk.doc_id) if documents is not None else None
        if doc is None or not chunk.spans:
            pieces = [(chunk.text, 0, len(chunk.text), None)]
            context, furn = " ".join(chunk.heading_path), frozenset[str]()
        else:
            pieces = [
                (doc.pages[sp.page - 1].text, sp.start, sp.end, (doc.doc_id, sp.page)) for sp in chunk.spans
            ]
            if doc.doc_id not in repeated:
                repeated[doc.doc_id] = furniture([p.text for p in doc.pages])
            furn = repeated[doc.doc_id]
            context = " ".join([_title(doc), re.sub(r"[\W_]+", " ", chunk.source), *chunk.heading_path])
        for text, lo, hi, where in pieces:
            spans = covered.get(where, []) if where is not None else [(lo, hi, n)]
            front_end = FRONT_MATTER if where is not None and where[1] == 1 else -1
            marked = doc is not None and doc.kind in MARKED
            for unit in _units_of(
                text, lo, hi, n, spans, furn, context, chunk.heading_path, front_end, marked
            ):
                key = (where, unit.text) if where is not None else unit.text
                if key not in seen and unit.text not in seen:
                    seen.add(key)
                    seen.add(unit.text)
                    out.append(Unit(unit.source, len(out), unit.text, unit.kind, unit.header, unit.context,
                                    unit.sources, unit.front))  # fmt: skip
    return out


def _units_of(
    text: str,
    lo: int,
    hi: int,
    n: int,
    spans: Sequence[tuple[int, int, int]],
    furn: frozenset[str],
    context: str,
    heading_path: Sequence[str],
    front_end: int = -1,
    marked: bool = False,
) -> list[Unit]:
    """The units of one chunk span ``text[lo:hi]`` (its page read around it); units starting before
    ``front_end`` are front matter; ``marked``: the document marks its headings (see :func:`is_heading`)."""
    w_lo, w_hi = neighbourhood(text, lo, hi)
    code = fences(text, w_lo, w_hi)
    out: list[Unit] = []
    for s, e in code:
        if s < hi and e > lo:
            before = text[max(0, s - 300) : s].strip().splitlines()
            intro = clean(before[-1]) if before and not before[-1].strip().startswith(("#", "|")) else ""
            out.append(Unit(n, 0, text[s:e].strip(), "code", intro, context, (n,)))
    regions = table_regions(text)
    captions = table_captions(text, regions)
    for p_start, p_end in paragraphs(text, w_lo, w_hi):
        if p_end <= lo or p_start >= hi or any(a < p_end and p_start < b for a, b in captions.values()):
            continue
        for s, e in sentences(text, p_start, p_end):
            if s >= hi or e <= lo or any(cs <= s < ce for cs, ce in code):
                continue
            raw = text[s:e]
            if raw.lstrip().startswith("|"):
                table = next((t for t in regions if t[0] <= s <= t[2]), None)
                if table is not None and s >= table[1]:
                    body = header_end(text, table)
                    if s >= body:  # a header's second line ("Category | P | R | F1") is no answer
                        head = text[table[0] : body]
                        if table[0] in captions:  # the table's title first, as the page shows it
                            a, b = captions[table[0]]
                            head = f"{' '.join(text[a:b].split())}\n\n{head}"
                        out.append(Unit(n, 0, raw.strip(), "row", head, context, (n,)))
                continue
            raw = strip_furniture(raw, furn)
            if not raw.strip():
                continue
            sources: tuple[int, ...] = (n,)
            if s < lo or e > hi:  # a sentence the chunk's edge cuts: complete it only from retrieved chunks
                if covered_by([(a, b) for a, b, _ in spans], s, e):
                    sources = tuple(sorted({m for a, b, m in spans if a < e and b > s}, key=lambda m: m != n))
                else:
                    a, b = max(s, lo), min(e, hi)
                    raw = ("… " if a > s else "") + strip_furniture(text[a:b], furn) + (" …" if b < e else "")
            whole = (s, e) == (p_start, p_end)
            if is_heading(raw, heading_path, whole, marked):
                if _HEADING.match(raw) or raw.strip() in heading_path:
                    continue  # a heading is never a quote
                names = len(person_names(raw))
                if names >= 2 or (s < front_end and names >= 1) or FULL_DATE.search(raw):
                    out.append(Unit(n, 0, plain_line(raw), "line", "", context, sources, s < front_end))
                continue
            line = clean(raw)
            if len(_WORD.findall(line)) >= 4:
                out.append(Unit(n, 0, line, "sentence", "", context, sources, s < front_end))
    return out
