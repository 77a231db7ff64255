"""A table cell whose text wraps onto a second line is read as part of its row, not as a row of its own."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from ragkit.core.folding import fold
from ragkit.ingestion.parse import load_document
from ragkit.ingestion.tables import table_to_markdown
from ragkit.ingestion.wrapped_rows import join_wrapped_markdown

#: (first line of the label, its wrapped second line or "", count, share)
ILLNESSES = [("Illness", "", "Students", "Share"), ("Back pain", "", "46", "9%"),
             ("Bronchitis/ear or", "sinus infection", "12", "3%"), ("Broken bone", "", "7", "1%"),
             ("Chronic fatigue", "syndrome", "19", "4%"), ("Endometriosis", "", "6", "1%"),
             ("Migraine", "", "31", "6%")]  # fmt: skip


def on_one_line(cells: list[str], text: str) -> bool:
    """The fidelity benchmark's test for a quoted table row: its cells in order on one line."""
    for line in text.splitlines():
        folded, at = fold(line), 0
        for cell in cells:
            at = folded.find(fold(cell), at)
            if at < 0:
                break
            at += len(fold(cell))
        else:
            return True
    return False


def wrapped_table_pdf(path: Path, ruled: bool) -> Path:
    """A page with prose around a table whose labels wrap onto a second line, ruled or not."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "Illness and study", fontsize=16)
    page.insert_text((72, 102), "The table below counts the students who reported each illness.", fontsize=10)
    xs, y = (72, 210, 300), 132
    tops = [y - 12]
    for label, more, count, share in ILLNESSES:
        for x, cell in zip(xs, (label, count, share), strict=False):
            page.insert_text((x, y), cell, fontsize=10,
                             fontname="hebo" if label == "Illness" else "helv")  # fmt: skip
        if more:
            page.insert_text((72, y + 12), more, fontsize=10)
        y += 30 if more else 18
        tops.append(y - 12)
    if ruled:
        for top in tops:
            page.draw_line((66, top), (380, top))
        for x in (66, 196, 286, 380):
            page.draw_line((x, tops[0]), (x, tops[-1]))
    page.insert_text((72, y + 20), "Colds and flu were the most common illnesses of the year.", fontsize=10)
    doc.save(path)
    return path


def test_a_wrapped_cell_stays_on_its_rows_line(tmp_path):
    for ruled in (False, True):
        text = load_document(wrapped_table_pdf(tmp_path / f"ill{ruled}.pdf", ruled)).text
        assert sum(line.startswith("|---") for line in text.splitlines()) == 1, text
        for label, more, count, share in ILLNESSES:
            assert on_one_line([f"{label} {more}".strip(), count, share], text), (ruled, text)


def test_a_continuation_is_joined_but_a_sub_row_or_a_row_of_figures_stays():
    md = "\n".join([
        "| Pollutant | to air | to water |", "|---|---|---|",
        "| Flourine and inorganic compounds | 5 000 | - |", "| (as HF) |  |  |",
        "| Ammonia | 10 000 | - |", "|  | 2 000 | 30 |",  # a sub-row of figures: a row
        "| Bronchitis/ear or | Count | 104 |", "| sinus infection | Percentage | 21.1% |",
        "| Asthma | Count | 3 |", "|  | Percentage | 0.6% |",
    ])  # fmt: skip
    out = join_wrapped_markdown(md).splitlines()
    assert out[2:] == [
        "| Flourine and inorganic compounds (as HF) | 5 000 | - |", "| Ammonia | 10 000 | - |",
        "|  | 2 000 | 30 |", "| Bronchitis/ear or sinus infection | Count | 104 |",
        "|  | Percentage | 21.1% |", "| Asthma | Count | 3 |", "|  | Percentage | 0.6% |",
    ]  # fmt: skip
    terms = "| Term | Meaning |\n|---|---|\n| apple | a fruit |\n| carrot | a root |"
    assert join_wrapped_markdown(terms) == terms  # rows of lower-case terms are rows
    assert join_wrapped_markdown("|a|b|\n|---|---|\n|x|y|") == "|a|b|\n|---|---|\n|x|y|"


def test_a_two_line_header_stacked_in_one_pdfplumber_row_stays_one_row():
    md = table_to_markdown([["Number of\nparticipants (*)", "Females\n(%)"], ["1,234", "52"]])
    assert md.splitlines()[0] == "| Number of participants (*) | Females (%) |"
    stacked = table_to_markdown([["State", "Total"], ["Alabama\nAlaska", "18,870\n209"]])
    assert "| Alabama | 18,870 |" in stacked and "| Alaska | 209 |" in stacked


def test_a_header_over_an_empty_corner_set_in_lines_is_one_row():
    """An annual report's header cells each hold a label and a date ("Launch:" over "May 21, 2009"),
    ruled as one row over an empty corner cell; every cell holding two lines, they were split into two
    header rows. Stacked rows of figures have their row labels in that corner, and stay rows."""
    md = table_to_markdown([
        ["", "Launch:\nMay 21, 2009", "1 Year:\nMay 21, 2010"],
        ["Total data sets available", "47", "272,768"],
        ["Data set downloads", "0", "652,412"],
    ])  # fmt: skip
    assert md.splitlines()[0] == "|  | Launch: May 21, 2009 | 1 Year: May 21, 2010 |"
    stacked = table_to_markdown([["Alabama\nAlaska", "18,870\n209"], ["Arizona", "7"], ["Arkansas", "9"]])
    assert "| Alabama | 18,870 |" in stacked and "| Alaska | 209 |" in stacked


def test_a_header_cell_wrapped_onto_a_capitalised_second_line_is_one_row():
    """A header's second line starts with a capital ("Improved" over "Speed"): the lower-case test for a
    continuation missed it, and the header read as two rows. Only in the header, over the first row of
    figures; a table of words keeps its rows, and a row of other columns is a header row of its own."""
    header = (
        "| Cycle Name | KI (1/km) | Percent Fuel Savings |  |  |\n|---|---|---|---|---|\n"
        "|  |  | Improved | Decreased | Eliminate |\n|  |  | Speed | Accel | Stops |\n"
        "| 2012_2 | 3.30 | 5.9% | 9.5% | 29.2% |\n| 2145_1 | 0.68 | 2.4% | 0.1% | 9.5% |"
    )
    out = join_wrapped_markdown(header)
    assert "|  |  | Improved Speed | Decreased Accel | Eliminate Stops |" in out
    assert "| Cycle Name | KI (1/km) | Percent Fuel Savings |" in out
    words = "| Term | Meaning |\n|---|---|\n| Cycle Name | Drive Pattern |\n| Fuel Savings | Litres Saved |"
    assert join_wrapped_markdown(words) == words


def test_a_header_level_is_not_joined_to_the_level_under_it():
    """The rule above joins a header's capitalised second line; a group spread over its columns ("GPS
    Coordinates" twice) or a label standing in both levels is a level of its own, not a wrapped line."""
    header = (
        "| Site No. | Site | GPS Coordinates | GPS Coordinates |\n|---|---|---|---|\n"
        "| Site No. | Site | Northing | Easting |\n| 7 | Vye Road | 5429644 | 556907 |"
    )
    assert join_wrapped_markdown(header) == header


def test_a_tables_note_under_its_last_row_is_no_wrapped_line_of_its_label():
    """ISO 26262's ASIL table ends with its note "a See 6.4.3.11." under the S3 rows: read as the wrapped
    second line of the last row's label, the row became "S3 a See 6.4.3.11. | E4 | B | C | D"."""
    md = "| Severity | Exposure | C3 |\n|---|---|---|\n| S3 | E4 | D |\n| a See 6.4.3.11. |  |  |"
    assert join_wrapped_markdown(md) == md
    wrapped = "| Item | Cost |\n|---|---|\n| Disposable income per capita in | 12 |\n| real terms |  |"
    assert "| Disposable income per capita in real terms | 12 |" in join_wrapped_markdown(wrapped)


def test_a_label_with_its_notes_number_is_no_wrapped_line_of_the_row_above():
    """Apple's statement of operations: "(1) Net sales by reportable segment:" under the "Diluted" row was
    joined to it as its label's second line ("Diluted (1) Net sales by reportable segment:")."""
    md = (
        "| | Q2 | Q1 |\n|---|---|---|\n| Diluted | 15,847,050 | 16,403,316 |\n"
        "| (1) Net sales by reportable segment: |  |  |\n| Americas | $ 37,784 | $ 40,882 |"
    )
    assert join_wrapped_markdown(md) == md
    unit = "| Item | Cost |\n|---|---|\n| Revenue of the group | 12 |\n| (in millions) |  |"
    assert "| Revenue of the group (in millions) | 12 |" in join_wrapped_markdown(unit)  # "(" still goes on


def test_a_labels_last_word_rides_with_a_sentence_cut_mid_way():
    """The FDA guidance's response-option table: "… identify the locations between the" wraps onto
    "scale's ends (e.g., half-way).", and the label's last line "VAS" stands on that line; before, the
    row was read as two ("| VAS | scale's ends … |")."""
    md = "\n".join([
        "| Type | Description |", "|---|---|",
        "| Anchored or categorized | A VAS that has marks to help patients find the locations between the |",
        "| VAS | scale’s ends (e.g., half-way). |",
        "| Likert scale | An ordered set of discrete terms. |",
        "| Rating scale | numbered categories that describe the state |",  # not cut mid-way above: a row
        "| Pictorial scale | A set of pictures applied to the |", "| 12 | other types. |",  # a figure: a row
    ])  # fmt: skip
    out = join_wrapped_markdown(md).splitlines()
    assert out[2:] == [
        "| Anchored or categorized VAS | A VAS that has marks to help patients find the locations between "
        "the scale’s ends (e.g., half-way). |",
        "| Likert scale | An ordered set of discrete terms. |",
        "| Rating scale | numbered categories that describe the state |",
        "| Pictorial scale | A set of pictures applied to the |", "| 12 | other types. |",
    ]  # fmt: skip


def test_a_cells_next_sentence_rides_with_a_label_cut_mid_way():
    """The Department of Education's cost table: "Travel and" over "miscellaneous expenses", its
    description's two sentences one per line; before, "| miscellaneous expenses | Other expenses … |"
    was a row of its own. Figures beside such a label stay a sub-row."""
    md = "\n".join([
        "| Cost | What it is |", "|---|---|",
        "| Travel and | If you live on campus, you will travel during school breaks. |",
        "| miscellaneous expenses | Other expenses can include clothing and cell phone use. |",
        "| Bronchitis/ear or | Count 104 |", "| sinus infection | Percentage 21.1% |",
    ])  # fmt: skip
    out = join_wrapped_markdown(md).splitlines()
    assert out[2] == (
        "| Travel and miscellaneous expenses | If you live on campus, you will travel during school breaks. "
        "Other expenses can include clothing and cell phone use. |"
    )
    assert out[3:] == ["| Bronchitis/ear or | Count 104 |", "| sinus infection | Percentage 21.1% |"]


def test_the_layout_engines_table_cells_lose_their_dot_leaders():
    """The FBI arrest table (issue 39): the layout engine kept each offence's dot leaders in its cell
    ("Murder and nonnegligent manslaughter . . . . . . ."), and so in quoted answers; its leaders now go
    as pdfplumber's cells' do, a short leader's last two dots too; a form's line number stays, and so
    does an ellipsis printed as three spaced dots."""
    md = "\n".join([
        "|Offense charged|Total|", "|---|---|",
        "|Murder and nonnegligent manslaughter . . . . . . . . .|10.0|",
        "|Curfew and loitering law violations . .|91.0|",
        "|Subtract line 36 from line 22 . . . . . ▶ 37|1|",
        "|Not available|. . .|", "|Wait...|2|", "|IF the age at annuity starting date was . . .|3|",
    ])  # fmt: skip
    out = join_wrapped_markdown(md).splitlines()
    assert out[2:] == [
        "|Murder and nonnegligent manslaughter|10.0|", "|Curfew and loitering law violations|91.0|",
        "|Subtract line 36 from line 22 ▶ 37|1|", "|Not available|. . .|", "|Wait...|2|",
        "|IF the age at annuity starting date was . . .|3|",
    ]  # fmt: skip
