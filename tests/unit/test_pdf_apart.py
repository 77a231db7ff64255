"""Two columns' short strips the layout engine took for one text box (issue 39, the 1040NR booklet's
page 14): it wrote their lines across the gutter ("July 1, 1986, and you used this method November 18,
1996, and both of the last year to figure …"); they are read strip by strip."""

from __future__ import annotations

import pymupdf

from ragkit.ingestion.pdf_apart import side_label, strips, text_lines

LEFT = ("July 1, 1986, and you used this method", "last year to figure the taxable part, or",
        "(b) your annuity starting date was after")  # fmt: skip
RIGHT = ("November 18, 1996, and both of the", "following apply.")


def _page(left: tuple[str, ...], right: tuple[str, ...], right_x: float = 250.0) -> pymupdf.Page:
    page = pymupdf.open().new_page(width=612, height=792)
    for k, text in enumerate(left):
        page.insert_text((40, 60 + 11 * k), text, fontsize=9)
    for k, text in enumerate(right):
        page.insert_text((right_x, 60 + 11 * k), text, fontsize=9)
    return page


def _strips(page: pymupdf.Page) -> str | None:
    return strips(text_lines(page, (30, 45, 450, 120)))


def _label(page: pymupdf.Page) -> str | None:
    return side_label(text_lines(page, (40, 370, 215, 415)))


def test_two_strips_side_by_side_read_one_after_the_other():
    text = _strips(_page(LEFT, RIGHT))
    assert text == " ".join(LEFT + RIGHT)


def test_one_column_a_label_beside_its_value_and_a_lone_line_are_left_to_the_engine():
    assert _strips(_page(LEFT + RIGHT, ())) is None  # one column
    labels = ("Total pension or annuity received", "Cost in the plan at the start", "Months of payments")
    assert _strips(_page(labels, ("12,000", "3,400", "24"))) is None  # label and value
    assert _strips(_page(LEFT, RIGHT[:1])) is None  # one row beside: no two strips
    # the strips closer than a column's gutter (8 pt, under 1.5 font sizes): a wide space, not a gutter
    near = 40 + max(pymupdf.get_text_length(t, fontsize=9) for t in LEFT) + 8
    assert _strips(_page(LEFT, RIGHT, right_x=near)) is None


BODY = ("At the time these instructions", "went to print, Congress was", "considering legislation that")


def _caution(mark_x: float = 44.0, label: str = "CAUTION", size: float = 4.8) -> pymupdf.Page:
    """The booklet's caution sign: a "!" over "CAUTION" in tiny type, beside the paragraph's lines."""
    page = pymupdf.open().new_page(width=612, height=792)
    for k, text in enumerate(BODY):
        page.insert_text((73, 380 + 10 * k), text, fontsize=9.5)
    page.insert_text((mark_x + 9, 393), "!", fontsize=16.9)
    page.insert_text((mark_x, 399), label, fontsize=size)
    page.insert_text((42, 410), "would increase the amounts above.", fontsize=9.5)
    return page


def test_an_icons_label_beside_a_paragraph_goes_before_it_not_into_its_lines():
    assert _label(_caution()) == f"! CAUTION\n\n{' '.join(BODY)} would increase the amounts above."


def test_a_paragraph_without_a_small_label_beside_its_later_lines_is_left_to_the_engine():
    assert _label(_caution(size=9.5)) is None  # not small: the paragraph's own
    page = pymupdf.open().new_page(width=612, height=792)
    page.insert_text((30, 380), "1", fontsize=5)  # a footnote's mark, beside its first line only
    for k, text in enumerate(BODY):
        page.insert_text((46, 380 + 10 * k), text, fontsize=9.5)
    assert side_label(text_lines(page, (28, 370, 215, 405))) is None
