"""A header label set over two columns (issue 39, Microsoft's income statement: "Three Months Ended" over
"June 30," over "2025 | 2024"): the engine cut it at the column boundary and glued each piece to a year
("Three 2025 | Months Ended June 30, 2024"); it is one cell, on a row of its own, written once."""

from __future__ import annotations

from itertools import pairwise

import pymupdf

from ragkit.ingestion.parse import parse_bytes
from ragkit.ingestion.pdf_headers import Line
from ragkit.ingestion.pdf_spanning import (
    Label,
    cut_under,
    join_prose,
    place_labels,
    prose_across,
    spanning_labels,
)

ROWS = [
    ("Product", "$17,136", "$13,217", "$63,946", "$64,773"),
    ("Service and other", "59,305", "51,510", "217,778", "180,349"),
    ("Total revenue", "76,441", "64,727", "281,724", "245,122"),
    ("Research and development", "8,829", "8,056", "32,488", "29,510"),
    ("Operating income", "34,323", "27,925", "128,528", "109,433"),
    ("Net income", "$27,233", "$22,036", "$101,832", "$88,136"),
]
RIGHTS = [372.0, 441.5, 511.0, 578.0]  # the figure columns' right edges


def _statement() -> bytes:
    """An income statement: two bold labels, each over "June 30," over two years, right-aligned over
    the columns of its two years; a rule; six rows of figures."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "INCOME STATEMENTS", fontsize=12, fontname="hebo")

    def right(x: float, y: float, text: str, font: str = "helv") -> None:
        width = pymupdf.get_text_length(text, fontname=font, fontsize=9)
        page.insert_text((x - width, y), text, fontsize=9, fontname=font)

    for k, label in enumerate(("Three Months Ended", "Twelve Months Ended")):
        right(RIGHTS[2 * k + 1], 100, label, "hebo")
        right(RIGHTS[2 * k + 1], 110, "June 30,", "hebo")
        right(RIGHTS[2 * k], 120, "2025", "hebo")
        right(RIGHTS[2 * k + 1], 120, "2024", "hebo")
    page.draw_line((72, 123), (578, 123), width=0.8)
    for n, row in enumerate(ROWS):
        page.insert_text((72, 135 + 11 * n), row[0], fontsize=9)
        for x, value in zip(RIGHTS, row[1:], strict=True):
            right(x, 135 + 11 * n, value)
    page.insert_text((72, 220), "The figures above are unaudited and in millions of US dollars.", fontsize=9)
    return doc.tobytes()


def test_a_label_over_two_columns_is_one_cell_on_its_own_row():
    text = parse_bytes("statement.pdf", _statement()).text
    rows = ["".join(line.split()) for line in text.splitlines()]
    assert "||ThreeMonthsEndedJune30,||TwelveMonthsEndedJune30,||" in rows, text
    assert "||2025|2024|2025|2024|" in rows, text
    assert "|Netincome|$27,233|$22,036|$101,832|$88,136|" in rows, text


def _line(x0: float, x1: float, top: float, text: str) -> Line:
    return Line(x0, top, x1, top + 10.0, 9.0, text)


#: the statement's header and first row, as the engine sees them: (line, its words' extents)
HEADER = [
    (_line(350.0, 439.0, 92.0, "Three Months Ended"), [(350.0, 372.0), (375.0, 409.0), (412.0, 439.0)]),
    (_line(403.0, 441.5, 102.0, "June 30,"), [(403.0, 420.0), (423.0, 441.5)]),
    (_line(349.4, 371.9, 112.0, "2025"), [(349.4, 371.9)]),
    (_line(418.9, 441.5, 112.0, "2024"), [(418.9, 441.5)]),
    (_line(72.0, 110.0, 125.0, "Product"), [(72.0, 110.0)]),
    (_line(336.9, 371.9, 125.0, "$17,136"), [(336.9, 371.9)]),
    (_line(406.4, 441.5, 125.0, "$13,217"), [(406.4, 441.5)]),
]
BOUNDS = [70.0, 330.0, 380.0, 442.0]  # the label column, the two year columns


def test_the_label_its_rest_and_the_columns_it_spans():
    lines = [ln for ln, _ in HEADER]
    words = {k: w for k, (_, w) in enumerate(HEADER)}
    (label,) = spanning_labels(BOUNDS, [123.0], lines, words.__getitem__)
    assert label.text == "Three Months Ended June 30," and (label.first, label.last) == (1, 2)
    cuts = cut_under([123.0], [label], lines)
    assert len(cuts) == 2 and label.y1 <= cuts[0] <= 112.0  # the years get a row of their own
    extract = [["", "Three 2025", "Months Ended June 30, 2024"], ["Product", "$17,136", "$13,217"]]
    assert place_labels(extract, [90.0, 123.0, 140.0], [label])
    assert extract[0] == ["", "Three Months Ended June 30,", ""]


def test_a_cell_wrapped_inside_its_column_or_a_header_without_figures_is_no_label():
    wrapped = [
        (_line(335.0, 372.0, 92.0, "Total net"), [(335.0, 356.0), (359.0, 372.0)]),
        (_line(345.0, 372.0, 102.0, "sales"), [(345.0, 372.0)]),
        (_line(349.4, 371.9, 125.0, "94,836"), [(349.4, 371.9)]),
    ]
    lines = [ln for ln, _ in wrapped]
    assert spanning_labels(BOUNDS, [115.0], lines, dict(enumerate(w for _, w in wrapped)).__getitem__) == []
    words_only = [(ln, w) for ln, w in HEADER if not any(c.isdigit() for c in ln.text)]
    lines = [ln for ln, _ in words_only]
    assert (
        spanning_labels(BOUNDS, [123.0], lines, dict(enumerate(w for _, w in words_only)).__getitem__) == []
    )


DECLARATION = "Under penalties of perjury, I declare that I have examined this return"
BOUNDS = [72.0, 160.0, 400.0, 540.0]  # a form's columns, from the rules of the boxes below


def _spaced_words(text: str, x0: float, space: float = 2.5, letter: float = 4.5) -> list[tuple[float, float]]:
    out, x = [], x0
    for w in text.split():
        out.append((x, x + letter * len(w)))
        x += letter * len(w) + space
    return out


def _prose_line(text: str, x0: float, y0: float) -> tuple[Line, list[tuple[float, float]]]:
    words = _spaced_words(text, x0)
    return Line(x0, y0, words[-1][1], y0 + 10, 9.0, text), words


def test_a_line_of_prose_a_column_boundary_cuts_between_words_is_one_cell():
    """The 1040's declaration: the boundary at x=160 (from the boxes below) fell between "Under" and
    "penalties", and the row read "Under they | penalties of perjury … belief, are true" (the second
    line's first word in the first cell)."""
    line, words = _prose_line(DECLARATION, 136.0, 100.0)
    assert any(b < 160 < a for (_, b), (a, _) in pairwise(words))  # between two words
    prose = prose_across(BOUNDS, [line], lambda k: words)
    assert prose == [(105.0, 0, 2)]
    extract = [["Sign Here", "Under they", "penalties of perjury …"], ["1", "Wages", "1,200"]]
    boxes = []

    def read(box):
        boxes.append(box)
        return DECLARATION

    assert join_prose(extract, [95.0, 130.0, 160.0], BOUNDS, prose, read)
    assert extract == [[DECLARATION, "", ""], ["1", "Wages", "1,200"]]
    assert boxes == [(72.0, 95.0, 540.0, 130.0)]


def test_cells_a_gutter_parts_and_short_labels_stay_apart():
    """A row's cells that a column's gutter parts are not prose, however many words the line has; a
    short label is the header's business (spanning_labels), not this."""
    label, words = _prose_line("Net cash provided by operating activities", 164.0, 100.0)
    words = [*words, (410.0, 440.0)]  # its figure, "12,345", in the next column, past a gutter
    wide = label._replace(x1=440.0, text=label.text + " 12,345")
    assert prose_across(BOUNDS, [wide], lambda k: words) == []
    short, few = _prose_line("Your first name and initial", 140.0, 120.0)
    assert prose_across(BOUNDS, [short], lambda k: few) == []
    assert not join_prose([["a", "b", "c"]], [0.0, 10.0], BOUNDS, [], lambda box: "x")


def test_a_head_beside_a_label_that_wraps_across_the_cut_under_it_stays_whole():
    """The 1040NR booklet's Table 1: the cut under "AND your annuity starting date was—" (over its two
    years' heads) split the left head, "IF the age at" | "annuity starting date (see page 13) was . . .";
    it is written whole in the label's row, as a head spanning both levels is."""
    label = Label(150.0, 100.0, 400.0, 110.0, "AND your annuity starting date was—", 1, 2)
    extract = [
        ["IF the age at", "", ""],
        [
            "annuity starting date (see page 13) was . . .",
            "before November 19, 1996",
            "after November 18, 1996",
        ],
        ["55 or under", "300", "360"],
    ]
    assert place_labels(extract, [95.0, 112.0, 140.0, 160.0], [label])
    assert extract == [
        [
            "IF the age at annuity starting date (see page 13) was . . .",
            "AND your annuity starting date was—",
            "",
        ],
        ["", "before November 19, 1996", "after November 18, 1996"],
        ["55 or under", "300", "360"],
    ]


def test_a_row_label_under_a_unit_beside_a_label_stays_in_its_row():
    label = Label(150.0, 100.0, 400.0, 110.0, "Three Months Ended June 30,", 1, 2)
    extract = [["(In millions)", "", ""], ["Revenue", "2025", "2024"]]
    place_labels(extract, [95.0, 112.0, 140.0], [label])
    assert extract == [["(In millions)", "Three Months Ended June 30,", ""], ["Revenue", "2025", "2024"]]


def test_a_level_of_heads_beside_a_label_stays_in_its_row():
    """TableFormer's Table 2 (practice6): beside "After Perturb" the lower row holds a level of heads of
    its own ("dev | test | testsimple …"), under a label the engine cut in two ("Before" | "Perturb");
    none of them is the rest of the cell above it."""
    label = Label(300.0, 100.0, 500.0, 110.0, "After Perturb", 5, 7)
    extract = [
        ["", "", "Before", "Perturb", "", "", "", ""],
        ["dev", "test", "testsimple", "testcomplex", "testsmall", "test", "testsimple", "testcomplex"],
    ]
    place_labels(extract, [95.0, 112.0, 140.0], [label])
    assert extract[1] == [
        "dev",
        "test",
        "testsimple",
        "testcomplex",
        "testsmall",
        "test",
        "testsimple",
        "testcomplex",
    ]
    assert extract[0][2:4] == ["Before", "Perturb"]
