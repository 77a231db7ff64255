"""Unit tests of :mod:`ragkit.evaluation.datasets.reparse`: evidence labelled on one reading of a PDF moved
onto another parser's reading by the text it marks."""

from __future__ import annotations

from ragkit.core.types import Document, Page
from ragkit.evaluation.datasets.evidence import Evidence
from ragkit.evaluation.datasets.reparse import move_span, onto_reading, reading_note, same_reading


def doc(*pages: str) -> Document:
    return Document("d", "paper.pdf", "0" * 64, tuple(Page(i + 1, t) for i, t in enumerate(pages)), "pdf")


LAYOUT = doc(
    "# Results\n\nThe _similarity score_ is the harmonic mean , as in Table 2.\n",
    "Reported statistics are span-level F1 for NER.",
)
PLAIN = doc(
    "Results\nThe similarity score is the harmonic mean, as in Table 2.\nReported statistics are",
    "spanlevel F1 for NER.",
)


def span_of(d: Document, page: int, text: str) -> tuple[int, int, int]:
    start = d.pages[page - 1].text.index(text)
    return (page, start, start + len(text))


def test_a_span_is_moved_to_the_same_words_in_another_reading():
    src = span_of(LAYOUT, 1, "The _similarity score_ is the harmonic mean")
    page, start, end = move_span(src, LAYOUT, PLAIN)
    assert PLAIN.pages[page - 1].text[start:end] == "The similarity score is the harmonic mean"
    same = move_span(src, LAYOUT, LAYOUT)
    assert same == src  # an unchanged reading keeps its offsets


def test_a_span_whose_words_moved_page_is_found_on_the_other_page():
    src = span_of(LAYOUT, 2, "span-level F1 for NER")
    page, start, end = move_span(src, LAYOUT, PLAIN)
    assert (page, PLAIN.pages[page - 1].text[start:end]) == (2, "spanlevel F1 for NER")


def test_units_moved_counted_and_lost_and_a_unit_with_nothing_left_covers_nothing():
    found = Evidence("e1", "paper.pdf", (span_of(LAYOUT, 1, "harmonic mean , as in Table 2"),))
    gone = Evidence("e2", "paper.pdf", (span_of(LAYOUT, 1, "# Results"),))  # too short to look for
    units, moved, lost = onto_reading([found, gone], {"paper.pdf": LAYOUT}, {"paper.pdf": PLAIN})
    assert (moved, lost) == (1, 1)
    page, start, end = units[0].spans[0]
    assert PLAIN.pages[page - 1].text[start:end] == "harmonic mean, as in Table 2"
    assert units[1].spans == ((0, 0, 0),) and units[1].unit_id == "e2"
    assert onto_reading([found], {"paper.pdf": LAYOUT}, {"paper.pdf": LAYOUT}) == ((found,), 0, 0)
    assert same_reading(LAYOUT, LAYOUT) and not same_reading(LAYOUT, PLAIN)
    assert "1 were not" in reading_note("plain", 1, 1) and "not" not in reading_note("plain", 3, 0)[-30:]


def test_a_chunk_labelled_from_a_plain_index_becomes_a_passage_of_the_stored_reading():
    """The Label tab pools candidates from A and B: when B reads the PDFs with another parser, a label
    made from its chunk must mark the same words in the reading every label refers to."""
    from types import SimpleNamespace

    from ragkit.core.types import Chunk, Span
    from ragkit.evaluation.datasets.labels import on_stored

    page, start, end = span_of(PLAIN, 1, "The similarity score is the harmonic mean")
    chunk = Chunk("c1", "d", "paper.pdf", 0, "…", (Span(page, start, end),))
    store = SimpleNamespace(documents={"d": PLAIN})
    (moved,) = on_stored(chunk, store, [LAYOUT]).spans
    assert (
        LAYOUT.pages[moved.page - 1].text[moved.start : moved.end]
        == "The _similarity score_ is the harmonic mean"
    )
    assert (
        on_stored(chunk, store, None) is chunk
        and on_stored(chunk, SimpleNamespace(documents={"d": LAYOUT}), [LAYOUT]) is chunk
    )
