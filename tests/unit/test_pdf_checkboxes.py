"""A form's two columns of check-box items (issue 39, a child-welfare report form): the layout engine read
the grid as a table whose rows are its lines, or as one paragraph of them, so an item that wraps was cut
in two and its rest glued to the other column's item. Each item is read whole, as a list item."""

from __future__ import annotations

import pymupdf

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.pdf_checkboxes import grid_edits

WRAPPED_LEFT = ("Petitioned for court order / CHIPS (child in need of", "protection or services)")
WRAPPED_RIGHT = ("Initiated efforts to address or enhance community", "collaboration on CA/N cases")
LEFT = ["Screening of Access report", "Protective plan implemented", "Initial assessment conducted",
        "Safety plan implemented", WRAPPED_LEFT, "Placement into foster home",
        "Placement with relatives"]  # fmt: skip
RIGHT = ["Attempted or successful reunification", "Referral to services", "Transportation assistance",
         "Collaboration with law enforcement", "Supervised visitation", "Case remains open for services",
         WRAPPED_RIGHT, "Other (describe):"]  # fmt: skip


#: the items whose box is ticked: one with an X of two strokes, one with a check-mark character
TICKED = ("Protective plan implemented", "Referral to services")


def _form(stray: str | None = None) -> pymupdf.Document:
    """A form page: a prompt, two columns of drawn check boxes each with its item (two wrap onto a second
    line; the :data:`TICKED` ones ticked), a sentence under them; ``stray``: a line of text inside the grid
    that is no item."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text(
        (40, 80), "Summary of actions taken by the agency in response to the incident:", fontsize=10
    )
    page.insert_text((40, 96), "(Check all that apply.)", fontsize=10)
    for x, items in ((40, LEFT), (330, RIGHT)):
        y = 120.0
        for item in items:
            lines = item if isinstance(item, tuple) else (item,)
            page.draw_rect(pymupdf.Rect(x, y - 8, x + 9, y + 1), width=0.6)
            if item == TICKED[0]:
                page.draw_line((x + 1, y - 7), (x + 8, y), width=0.6)
                page.draw_line((x + 1, y), (x + 8, y - 7), width=0.6)
            elif item == TICKED[1]:
                page.insert_text((x + 2, y - 0.5), "X", fontsize=8)
            for k, line in enumerate(lines):
                page.insert_text((x + 14, y + 11.5 * k), line, fontsize=9)
            y += 11.5 * len(lines)
    if stray:
        page.insert_text((120, 150), stray, fontsize=9)
    page.insert_text(
        (40, 260), "The agency completed its review of the case within ninety days.", fontsize=10
    )
    return doc


def _joined(item: str | tuple[str, ...]) -> str:
    return " ".join(item) if isinstance(item, tuple) else item


def test_each_check_box_item_is_read_whole_as_a_list_item():
    text = parse_bytes("form.pdf", _form().tobytes()).text
    lines = [line.strip() for line in text.splitlines()]
    for item in (*LEFT, *RIGHT):
        box = "x" if item in TICKED else " "
        assert f"- [{box}] {_joined(item)}" in lines, text
    assert "|" not in text
    assert "The agency completed its review of the case within ninety days." in text


def test_engine_boxes_holding_a_line_that_is_no_item_are_left_as_they_are():
    page = _form()[0]
    grid = (50.0, 108.0, 580.0, 225.0)
    ((k, items),) = grid_edits(page, [grid])
    assert k == 0 and f"- [ ] {_joined(WRAPPED_RIGHT)}" in items.splitlines()
    halves = [(50.0, 108.0, 320.0, 225.0), (320.0, 108.0, 580.0, 225.0)]  # the engine cut the grid in two
    assert [k for k, _ in grid_edits(page, halves)] == [0, 1] and grid_edits(page, halves)[1][1] == ""
    page = _form(stray="Notes on the review")[0]
    assert grid_edits(page, [grid]) == []


def test_two_boxes_are_no_grid():
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for y in (100, 112):
        page.draw_rect(pymupdf.Rect(40, y - 8, 49, y + 1), width=0.6)
        page.insert_text((54, y), f"Option at {y}", fontsize=9)
    assert grid_edits(page, [(30.0, 80.0, 300.0, 130.0)]) == []
