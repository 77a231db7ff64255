"""A table header of two levels (issue 39): the heads beside a group label span both levels and are
written in both rows, so the upper level reads as the page shows it ("Year | Total | Race/ethnicity",
NCES's enrolment tables in ICDAR 2013); a budget's "Total Plan &" over "Non-Plan", cut in two between
the levels, is joined."""

from __future__ import annotations

import pymupdf

from ragkit.ingestion.pdf_headers import Line
from ragkit.ingestion.pdf_levels import rules_across, two_levels

#: the columns' edges: the stub, then Total, White, Black, Hispanic
BOUNDS = [36.0, 103.0, 178.0, 250.0, 310.0, 374.0]
ROW_OF = [75.0, 86.0, 121.0, 134.0, 147.0]  # the two header rows, two body rows, the foot


def _lines(group_foot: float = 84.0) -> list[Line]:
    size = 7.0
    return [
        Line(230.0, group_foot - size, 300.0, group_foot, size, "Race/ethnicity"),
        Line(36.0, 110.0, 53.0, 116.0, size, "Year"),
        Line(136.0, 110.0, 155.0, 116.0, size, "Total"),
        Line(205.0, 110.0, 228.0, 116.0, size, "White"),
        Line(271.0, 110.0, 293.0, 116.0, size, "Black"),
        Line(324.0, 110.0, 359.0, 116.0, size, "Hispanic"),
        Line(36.0, 124.0, 53.0, 130.0, size, "1996"),
    ]


def _rows() -> list[list[str]]:
    return [
        ["", "", "", "Race/ethnicity", ""],
        ["Year", "Total", "White", "Black", "Hispanic"],
        ["1996", "32,762", "20,687", "5,664", "4,821"],
        ["1997", "33,071", "20,626", "5,762", "5,085"],
    ]


def test_heads_beside_a_ruled_group_are_written_in_both_levels():
    rows = _rows()
    assert two_levels(rows, ROW_OF, BOUNDS, _lines(), [(189.0, 374.0, 85.7)])
    assert rows[0] == ["Year", "Total", "Race/ethnicity", "", ""]  # the label in the first column it heads
    assert rows[1] == ["Year", "Total", "White", "Black", "Hispanic"]
    assert rows[2:] == _rows()[2:]


def test_without_a_rule_under_the_label_the_header_is_left_as_it_was():
    for rules in ([], [(36.0, 374.0, 120.0)], [(250.0, 280.0, 85.7)]):  # the header's foot; a short rule
        rows = _rows()
        assert not two_levels(rows, ROW_OF, BOUNDS, _lines(), rules)
        assert rows == _rows()


def test_a_head_the_cut_between_the_levels_split_is_joined_in_both():
    rows = [
        ["", "Plan", "", "", "Total Plan &"],
        ["Ministry/Demand", "Revenue", "Capital", "Total", "Non-Plan"],
        ["MINISTRY OF AGRICULTURE", "28130.48", "67.52", "28198.00", "31062.94"],
    ]
    lines = [
        Line(140.0, 71.0, 160.0, 77.0, 7.0, "Plan"),
        Line(320.0, 71.0, 368.0, 77.0, 7.0, "Total Plan &"),
        Line(320.0, 80.0, 355.0, 86.0, 7.0, "Non-Plan"),
        Line(36.0, 90.0, 90.0, 96.0, 7.0, "Ministry/Demand"),
    ]
    assert two_levels(rows, [70.0, 86.0, 100.0, 120.0], BOUNDS, lines, [(103.0, 310.0, 82.9)])
    assert rows[0] == ["Ministry/Demand", "Plan", "", "", "Total Plan & Non-Plan"]
    assert rows[1] == ["Ministry/Demand", "Revenue", "Capital", "Total", "Total Plan & Non-Plan"]


def test_a_rule_drawn_column_by_column_is_one_rule():
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=200)
    for a, b, y in ((189, 228, 85.7), (228, 293, 85.76), (293, 359, 85.7)):  # a hair apart in height
        page.draw_line((a, y), (b, y))
    page.draw_line((36, 120), (100, 120))
    page.draw_line((36, 20), (36, 180))  # a column rule: not level
    found = sorted(rules_across(page))
    assert [(round(a), round(b)) for a, b, _ in found] == [(36, 100), (189, 359)]


def test_heads_beside_groups_span_every_level_of_a_three_level_header():
    """NCES's Table 18: "Current expenditures" over "Constant dollars | Current dollars" over the heads;
    "School year" and "Fall enrollment" stand at the foot. A column under a group at any level is left
    as it is, though its own label went unseen at the level under ("Current" over "total" is no one
    head)."""
    rows = [
        ["", "", "", "Current expenditures", ""],
        ["", "", "", "Constant dollars", "Current"],
        ["School year", "Fall enrollment", "Total", "Per pupil", "total"],
        ["1996–97", "45,611", "434.8", "9,532", "270.2"],
    ]
    size = 7.0
    lines = [
        Line(280.0, 71.0, 350.0, 78.0, size, "Current expenditures"),
        Line(220.0, 82.0, 280.0, 89.0, size, "Constant dollars"),
        Line(315.0, 82.0, 345.0, 89.0, size, "Current"),
        Line(36.0, 104.0, 80.0, 111.0, size, "School year"),
        Line(110.0, 104.0, 170.0, 111.0, size, "Fall enrollment"),
        Line(190.0, 104.0, 240.0, 111.0, size, "Total"),
    ]
    row_of = [70.0, 80.0, 100.0, 115.0, 130.0]
    rules = [(180.0, 374.0, 79.0), (180.0, 305.0, 90.0)]  # under "Current expenditures", "Constant dollars"
    assert two_levels(rows, row_of, BOUNDS, lines, rules)
    assert rows[0] == ["School year", "Fall enrollment", "Current expenditures", "", ""]
    assert rows[1] == ["School year", "Fall enrollment", "Constant dollars", "", "Current"]
    assert rows[2] == ["School year", "Fall enrollment", "Total", "Per pupil", "total"]
