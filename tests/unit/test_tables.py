"""Unit tests of :mod:`ragkit.ingestion.tables`."""

from __future__ import annotations

from ragkit.ingestion.tables import table_to_markdown


def test_a_table_title_row_becomes_a_caption_above_the_header():
    md = table_to_markdown(
        [["NICS Checks 2015", None, None], ["State", "Permit", "Total"], ["Texas", "1", "2"]]
    )
    assert md.splitlines()[0] == "NICS Checks 2015" and md.splitlines()[2] == "| State | Permit | Total |"


def test_a_group_over_some_columns_is_a_header_level_not_a_title():
    """ "GPS Coordinates" spans two of four columns, over "Northing" and "Easting", and "Site No." spans
    both header levels (pdfplumber reads it in the lower row): the group was lifted out as the table's
    title, and the upper header row was lost. Each header row now reads whole."""
    md = table_to_markdown(
        [
            ["", "", "GPS Coordinates", None],
            ["Site No.", "Site Description", "Northing\n(metres)", "Easting\n(metres)"],
            ["7", "Sumas River @ Vye Road", "5429644", "556907"],
        ]
    )
    lines = md.splitlines()
    assert lines[0] == "| Site No. | Site Description | GPS Coordinates | GPS Coordinates |"
    assert lines[2] == "| Site No. | Site Description | Northing (metres) | Easting (metres) |"
    assert lines[3] == "| 7 | Sumas River @ Vye Road | 5429644 | 556907 |"


def test_a_row_labels_header_read_in_the_upper_level_heads_both():
    """The district health table's "Indicators" spans both header levels and pdfplumber reads it in the
    upper row, None below (once the shaded cells' padding no longer cut the header): the lower level
    read "|  | TOTAL | RURAL |". It heads both rows, as when it is read in the lower row."""
    md = table_to_markdown(
        [
            ["Indicators", "DLHS-4 (2012-13)", None, "", "DLHS-3 (2007-08)", None],
            [None, "TOTAL", "RURAL", "", "TOTAL", "RURAL"],
            ["Children age 0-5 months exclusively breastfed", "76.9", "80.0", "", "NA", "NA"],
        ]
    )
    lines = md.splitlines()
    assert (
        lines[0]
        == "| Indicators | DLHS-4 (2012-13) | DLHS-4 (2012-13) | DLHS-3 (2007-08) | DLHS-3 (2007-08) |"
    )
    assert lines[2] == "| Indicators | TOTAL | RURAL | TOTAL | RURAL |"


def test_a_column_label_spanning_both_header_levels_heads_both_not_only_the_first_column():
    """The airline's traffic table: "Routes", the second column's label, spans both header levels beside
    "Dec-2015" (over "Pax | y.o.y(%)"); pdfplumber reads it in the upper row, None below. The lower level
    read "|  |  | Pax | …": only the first column's label was carried down."""
    md = table_to_markdown(
        [
            ["", "Routes", "Dec-2015", None, "Previous Year"],
            [None, None, "Pax", "y.o.y(%)", "L/F(%)"],
            ["JAL Group", "Transpacific", "157,642", "107.1", "72.2"],
        ]
    )
    lines = md.splitlines()
    assert lines[0] == "|  | Routes | Dec-2015 | Dec-2015 | Previous Year |"
    assert lines[2] == "|  | Routes | Pax | y.o.y(%) | L/F(%) |"


def test_a_row_label_spanning_several_rows_heads_each_of_them():
    """ISO 26262's ASIL table: "S3" spans the four rows E1-E4, and pdfplumber reads it in the first of
    them, None below. "| E4 | B | C | D |" read alone belonged to no severity, and the reader answered
    "S3, E4, C3?" from the S3 row of E1. The label heads each row it spans; a header's label is not
    carried into the body, and a row with nothing else in it gets none."""
    md = table_to_markdown(
        [
            ["Severity class", "Exposure class", "C1", "C2", "C3"],
            ["S3", "E1", "QM", "QM", "A"],
            [None, "E4", "B", "C", "D"],
            [None, None, None, None, None],
            ["Note", "x", "y", "z", "w"],
        ]
    )
    lines = md.splitlines()
    assert "| S3 | E4 | B | C | D |" in lines and lines[-1] == "| Note | x | y | z | w |"
    assert not [x for x in lines if x.startswith("| S3 |  |")]
    halves = table_to_markdown([["County", "Voters", "Rep", "Dem"], ["Totals", "9237", None, None],
                                [None, None, "3396", "371"]])  # fmt: skip
    assert "|  |  | 3396 | 371 |" in halves.splitlines()  # one row's two halves: no label carried


def test_a_title_over_every_column_with_text_stays_a_title_beside_empty_margin_columns():
    """A Word table drawn with cell margins as columns of their own: its title spans every column that
    holds text, not all of pdfplumber's, and is still the title, not a header group."""
    title = ["", "Table 5 Public Health Outlay", None, ""]
    md = table_to_markdown([title, ["", "State", "Total", ""], ["", "Goa", "4,508,180", ""]])
    assert md.splitlines()[0] == "Table 5 Public Health Outlay"
    assert md.splitlines()[2] == "| State | Total |"
