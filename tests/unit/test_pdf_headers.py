"""A table header whose cells wrap is one row; a header of two levels keeps its levels (the geometry of
ISU's skating results sheet and of an airline's traffic table, both read by the layout engine)."""

from __future__ import annotations

from ragkit.ingestion.pdf_headers import Line, header_cuts

SIZE = 6.95


def _line(x0: float, x1: float, top: float, text: str, size: float = SIZE) -> Line:
    return Line(x0, top, x1, top + 5.06, size, text)


#: the skating sheet's header: "Total" over "Segment" over "Score", "Starting" over "Number", each cell's
#: lines set flush right, 9.6 pt apart; "Rank" and "Name" on the middle line only
SKATING = [
    _line(297.5, 323.8, 65.2, "Starting"),
    _line(349.3, 367.8, 65.2, "Total"),
    _line(398.0, 416.6, 65.2, "Total"),
    _line(550.8, 567.4, 65.2, "Total"),
    _line(37.1, 56.0, 74.8, "Rank"),
    _line(64.8, 83.7, 74.8, "Name"),
    _line(297.5, 323.8, 74.8, "Number"),
    _line(338.5, 367.8, 74.8, "Segment"),
    _line(389.5, 416.6, 74.8, "Element"),
    _line(529.5, 567.4, 74.8, "Deductions"),
    _line(348.5, 367.9, 84.4, "Score"),
    _line(397.3, 416.6, 84.4, "Score"),
    _line(49.1, 55.1, 98.4, "7"),
    _line(347.9, 367.7, 98.4, "49.88"),
    _line(395.9, 415.8, 98.4, "24.28"),
    _line(550.9, 567.2, 98.4, "-1.00"),
]


def test_a_headers_wrapped_cells_are_one_row():
    """The engine cut the header at each of its lines: "| Starting | Total | Total |" over "| Rank Name |
    Number | Segment | …" over "| Score | Score |", so no row held "Total Segment Score"."""
    assert header_cuts([72.8, 82.6, 94.3, 109.1], SKATING) == [94.3, 109.1]


def test_a_group_label_over_its_columns_keeps_its_level():
    """ "Dec-2015" stands centred over "Pax" and "y.o.y(%)": a second level, not a wrapped cell."""
    lines = [
        _line(307.6, 367.4, 130.0, "Dec-2015", 13.5),
        _line(278.0, 310.0, 147.1, "Pax", 7.6),
        _line(330.0, 358.2, 147.1, "y.o.y(%)", 7.6),
        _line(278.0, 319.5, 160.2, "157,642", 9.3),
        _line(341.2, 364.5, 160.2, "107.0", 9.3),
    ]
    cuts = [146.5, 159.8]
    assert header_cuts(cuts, lines) is cuts


def test_rows_of_words_under_a_header_and_a_table_of_words_keep_their_cuts():
    """Only the rows above the first row of figures are a header: body rows whose labels line up stay
    rows, and a table with no figures near its top has no header to join."""
    body = [
        _line(37.1, 80.0, 65.2, "Skating Skills"),
        _line(37.1, 80.0, 74.8, "Transitions"),
        _line(37.1, 80.0, 84.4, "Performance"),
    ]
    cuts = [72.8, 82.6]
    assert header_cuts(cuts, body) is cuts
    figures_first = [_line(37.1, 56.0, 65.2, "Total"), _line(37.1, 56.0, 74.8, "12.5")]
    assert header_cuts([72.8], figures_first) == [72.8]


def test_a_category_row_under_the_header_is_a_row_of_its_own():
    """ "Urban", a category's label alone in its row, stands flush left under the header's "Area" one
    line down: it goes on from no other line, so it is not the header's second line."""
    lines = [
        _line(37.1, 56.0, 65.2, "Area"),
        _line(120.0, 150.0, 65.2, "Cases"),
        _line(37.1, 56.0, 74.8, "Urban"),
        _line(37.1, 56.0, 84.4, "North"),
        _line(120.0, 150.0, 84.4, "1,204"),
    ]
    cuts = [72.8, 82.6]
    assert header_cuts(cuts, lines) is cuts


def test_a_group_label_centred_over_its_middle_column_keeps_its_level():
    """The Statistical Abstract's arrests table: "Male" is centred over three columns, so over the middle
    one's "Under 18"; set in the middle, not flush with it, it is the group's label, not a first line."""
    lines = [
        _line(171.6, 184.2, 68.7, "Total", 6.0),
        _line(253.4, 266.4, 68.7, "Male", 6.0),
        _line(165.7, 192.1, 77.4, "Under 18", 6.0),
        _line(247.7, 274.1, 77.4, "Under 18", 6.0),
        _line(139.7, 163.1, 92.5, "11,062.6", 6.0),
    ]
    cuts = [76.5, 91.8]
    assert header_cuts(cuts, lines) is cuts
