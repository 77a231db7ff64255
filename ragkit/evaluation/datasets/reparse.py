"""Evidence labelled on one reading of a PDF, judged on another.

A label is a set of character spans of a document's page text, and two PDF parsers (plain, layout; OCR
on or off) write different page texts for the same file: the same offsets mark other words. A question
set over a collection is labelled on the collection's stored reading of its documents (what the Label
tab shows, what questions are generated and quotes located from); a config that reads the PDFs with
another parser is judged after each span is moved onto its own reading, by the text the span marks
(whitespace and case ignored, then letters and digits alone; the same page first, then the others). A
span whose text that reading does not hold (a page one parser OCRs and the other cannot read) is not
moved: it is counted, and the report says how many, so a parser is never credited or blamed for the
offsets of another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ragkit.core.folding import fold
from ragkit.evaluation.datasets.evidence import Evidence, SpanT, locate_in_text

#: the fewest letters and digits a span's text needs to be looked for by them alone (shorter ones would
#: be found anywhere)
MIN_LETTERS = 12


#: what a question's row records when its evidence was moved: spans moved, spans not found
COUNTS = ("evidence_moved", "evidence_lost")


def moved_and_lost(rows: Iterable[Mapping[str, Any]]) -> tuple[int, int]:
    """The spans moved and not found over a config's question rows."""
    rows = list(rows)
    moved, lost = (sum(r.get(k) or 0 for r in rows) for k in COUNTS)
    return moved, lost


def reading_note(name: str, moved: int, lost: int) -> str:
    """What a report says of a config judged on another reading than the labels'."""
    gone = f"; {lost} were not (their text is not in this reading) and count as not retrieved"
    return (
        f"{name} reads the PDFs differently from the reading the labels were made on (another parser): "
        f"{moved} evidence spans were found again by their text{gone if lost else ''}."
    )


def chunk_onto(chunk: Any, src: Any, dst: Any) -> Any:
    """``chunk`` (spans of ``src``) with its spans on ``dst``'s reading, so a label made from it is a
    passage of ``dst``; a span whose text ``dst`` does not hold is kept as it was."""
    if src is None or dst is None or src is dst or same_reading(src, dst):
        return chunk
    spans = []
    for s in chunk.spans:
        new = move_span((s.page, s.start, s.end), src, dst)
        spans.append(s if new is None else replace(s, page=new[0], start=new[1], end=new[2]))
    return replace(chunk, spans=tuple(spans))


def same_reading(a: Any, b: Any) -> bool:
    """Whether two parsed documents have the same page texts (nothing to move)."""
    return len(a.pages) == len(b.pages) and all(
        p.text == q.text for p, q in zip(a.pages, b.pages, strict=True)
    )


def move_span(span: SpanT, src: Any, dst: Any) -> SpanT | None:
    """Span ``(page, start, end)`` of ``src``'s text, as a span of ``dst``'s (None: not there)."""
    page, start, end = span
    if not 0 < page <= len(src.pages):
        return None
    text = src.pages[page - 1].text[start:end]
    if len(fold(text)) < MIN_LETTERS:
        return None  # too short to be looked for without landing on another passage's words
    if page <= len(dst.pages) and dst.pages[page - 1].text[start:end] == text:
        return span
    order = [page, *(p.number for p in dst.pages if p.number != page)]
    for find in (locate_in_text, letters_and_digits):
        for number in order:
            if 0 < number <= len(dst.pages):
                found = find(text, dst.pages[number - 1].text)
                if found is not None:
                    return (number, *found)
    return None


def letters_and_digits(quote: str, text: str) -> tuple[int, int] | None:
    """``(start, end)`` of ``quote`` in ``text`` comparing letters and digits only: what one parser writes
    as Markdown ("_Proceedings_ , pages") or hyphenates ("span-level") another writes plainly."""
    target = "".join(c.lower() for c in quote if c.isalnum())
    if len(target) < MIN_LETTERS:
        return None
    index = [i for i, c in enumerate(text) if c.isalnum()]
    folded = "".join(text[i].lower() for i in index)
    at = folded.find(target)
    return None if at == -1 else (index[at], index[at + len(target) - 1] + 1)


def onto_reading(
    units: Sequence[Evidence], src_docs: Mapping[str, Any], dst_docs: Mapping[str, Any]
) -> tuple[tuple[Evidence, ...], int, int]:
    """``units`` (spans of ``src_docs``, by source) moved onto ``dst_docs``: the units, how many spans
    moved and how many could not be found (those are left out of their unit; a unit left with nothing
    is never covered)."""
    out, moved, lost = [], 0, 0
    for unit in units:
        src, dst = src_docs.get(unit.source), dst_docs.get(unit.source)
        if src is None or dst is None or src is dst or same_reading(src, dst):
            out.append(unit)
            continue
        spans = [move_span(span, src, dst) for span in unit.spans]
        kept = tuple(x for x in spans if x is not None)
        lost += len(spans) - len(kept)
        moved += sum(new is not None and new != old for new, old in zip(spans, unit.spans, strict=True))
        # a unit none of whose text is found stays a unit (a relevant item no chunk can cover)
        out.append(replace(unit, spans=kept or ((0, 0, 0),)))
    return tuple(out), moved, lost
