"""A sentence that a page break cuts reads whole: its open part moves to the next page, whose opening
words go on with it, and the first page's footnotes no longer stand in it (the S2ORC paper's
"pretraining cor-" | "pus contains 16.4B tokens")."""

from __future__ import annotations

from ragkit.ingestion.hyphenation import _Hyphenation
from ragkit.ingestion.pdf_columns import across_pages
from ragkit.ingestion.pdf_layout import LayoutPage, drop_running_margins


def _page(*parts: tuple[str, str]) -> LayoutPage:
    text, boxes, at = "", [], 0
    for k, (_, seg) in enumerate(parts):
        boxes.append((at, at + len(seg), (72.0, 100.0 + 40 * k, 291.0, 130.0 + 40 * k)))
        text, at = text + seg, at + len(seg)
    return LayoutPage(text, (), tuple(boxes), tuple(c for c, _ in parts))


def test_a_word_broken_across_pages_is_one_word_and_the_footnotes_do_not_cut_the_sentence():
    first = _page(
        ("text", "We exclude these from the corpus. \n\n"),
        ("list-item", "- Size: The resulting pretraining cor- \n\n"),
        ("footnote", "> 15 https://github.com/google-research/bert \n\n"),
    )
    second = _page(("text", "pus contains 16.4B tokens, nearly five times larger. \n\n"),
                   ("text", "Vocab: we construct a cased vocabulary. \n\n"))  # fmt: skip
    texts = drop_running_margins([first, second])
    texts = _Hyphenation(texts).resolve(texts)
    sentence = "- Size: The resulting pretraining corpus contains 16.4B tokens, nearly five times larger."
    assert texts[1].startswith(sentence)
    assert texts[1].endswith("Vocab: we construct a cased vocabulary.")
    assert texts[0] == "We exclude these from the corpus.\n\n> ¹⁵ https://github.com/google-research/bert"


def test_only_the_open_sentence_moves_the_rest_of_its_paragraph_stays_on_its_page():
    pages = ["Intro.\n\nThe first one ends here. Then the open one goes", "on here. Next one.\n\nMore."]
    moved = ["Intro.\n\nThe first one ends here.", "Then the open one goes on here. Next one.\n\nMore."]
    assert across_pages(pages) == moved


def test_a_page_that_ends_its_sentence_or_opens_with_a_table_keeps_its_text():
    closed = ["It ends here.", "and this is a new page.\n\nMore."]
    assert across_pages(closed) == closed
    table = ["The values are in", "| a | b |\n|---|---|\n| 1 | 2 |\n\nText."]
    assert across_pages(table) == table
    heading = ["The values are in", "# Results\n\nText."]
    assert across_pages(heading) == heading


def test_a_page_of_one_open_sentence_is_not_left_empty():
    pages = ["The values are in", "the table below, which ends the report."]
    assert across_pages(pages) == pages


def _margined(header: str, body: str, footer: str, page_no: str) -> LayoutPage:
    parts = [("page-header", header + " \n\n"), ("text", body + " \n\n"), ("page-footer", footer + " \n\n"),
             ("page-footer", page_no + " \n\n")]  # fmt: skip
    text, boxes, at = "", [], 0
    for k, (_, seg) in enumerate(parts):
        boxes.append((at, at + len(seg), (72.0, 40.0 + 200 * k, 500.0, 60.0 + 200 * k)))
        text, at = text + seg, at + len(seg)
    margins = tuple((a, b) for (a, b, _), (cls, _) in zip(boxes, parts, strict=True) if cls != "text")
    return LayoutPage(text, margins, tuple(boxes), tuple(c for c, _ in parts))


def test_a_running_header_and_footer_are_read_once_where_they_first_stand_page_numbers_never():
    """A rate sheet's "Effective as at 9 April 2019" heads both its pages: dropped from both, the date was
    lost; read on every page, it would be noise. A sentence the page break cuts still joins."""
    head, opened = (
        "The rates below apply to new loans.\n\nRates are set daily and the variable rate",
        "follows it.",
    )
    pages = [
        _margined("Effective as at 9 April 2019", head, "Call 13 2224", "1"),
        _margined("Effective as at 9 April 2019", opened, "Call 13 2224", "2"),
    ]
    first, second = drop_running_margins(pages)
    assert first == "Effective as at 9 April 2019\n\nThe rates below apply to new loans.\n\nCall 13 2224"
    assert second == "Rates are set daily and the variable rate follows it."


def test_the_open_sentence_is_found_as_the_chunkers_find_sentences():
    """The sentence cut by the page break began after "as reported in Vol. 3 of the": an abbreviation
    ends no sentence, so the whole sentence moves, not its tail from "3" on."""
    pages = [
        "First sentence ends here. The results, as reported in Vol. 3 of the",
        "series, were confirmed by later work.\n\nNext paragraph.",
    ]
    moved = across_pages(pages)
    assert moved[0] == "First sentence ends here."
    assert moved[1].startswith("The results, as reported in Vol. 3 of the series, were confirmed")


def test_a_sentence_cut_after_a_hyphen_or_a_word_no_sentence_ends_on_joins_a_capital():
    """The Federal Register's "after takeoff from Soekarno-" | "Hatta International Airport" (page 1 | 2)
    and "issued by the" | "Federal Aviation Administration": the next page opens with a capital, so the
    lower-case test left the sentence cut by the page's running header. A heading's "Appendix A", a
    footnote's lone "a" and a sentence's own full stop still end what they end, and a caption or a
    footnote opening the next page goes on with nothing."""
    pages = [
        "Intro.\n\nThe airplane crashed after takeoff from Soekarno-",
        "Hatta International Airport in Jakarta. The order was issued by the",
        "Federal Aviation Administration.\n\nMore.",
    ]
    moved = across_pages(pages)
    assert moved[0] == "Intro."
    assert (
        moved[1]
        == "The airplane crashed after takeoff from Soekarno-\nHatta International Airport in Jakarta."
    )
    assert moved[2].startswith("The order was issued by the Federal Aviation Administration.")
    kept = (
        ["See Appendix A", "Budget tables follow."],
        ["It ends on the.", "Next page."],
        ["Text.\n\na", "Image not for diagnostic use."],
        ["Among the", "Table 2. Disability by age."],
        ["It rose.\n\nAlthough the", "tABLE 1. Selected characteristics"],  # MMWR's small caps, so mapped
        ["It shows a stall warning, an airspeed alert, and", "1 Preliminary report, dated 2018."],
    )
    for pages in kept:
        assert across_pages(list(pages)) == list(pages), pages


def _read(page: LayoutPage) -> str:
    """The page's reading, each line's trailing spaces aside (the engine's, which later steps drop)."""
    return "\n".join(line.rstrip() for line in drop_running_margins([page])[0].splitlines())


def _boxes_page(parts, margins: tuple[str, ...] = ()) -> LayoutPage:
    """A page of ``parts`` (class, bbox, Markdown) in the engine's order; boxes of the ``margins``
    classes are its header and footer boxes."""
    text, boxes = "", []
    for _, bbox, seg in parts:
        boxes.append((len(text), len(text) + len(seg), bbox))
        text += seg
    edges = tuple((a, b) for (a, b, _), (cls, _, _) in zip(boxes, parts, strict=True) if cls in margins)
    return LayoutPage(text, edges, tuple(boxes), tuple(c for c, _, _ in parts))


def test_a_one_off_footer_and_the_lines_under_a_columns_footnotes_do_not_cut_a_sentence():
    """RNA journal's first page (practice corpus): the left column's sentence "… occurrences in an" goes
    on atop the right column ("RNA molecule (i.e., …"), with the column's footnotes and an "Article
    published online ahead of print" line under them between; the right column's last sentence "… edges
    to the query" goes on at the next page's top, with the first page's one-off citation line in its
    footer between. Both sentences read whole; the lines under the notes go with the notes, and the
    citation line stays at its page's foot."""
    parts = [
        ("text", (59, 659, 300, 681), "Recognition aims to find all of its occurrences in an \n\n"),
        ("footnote", (67, 696, 145, 705), "> 4Corresponding author \n\n"),
        ("text", (59, 715, 300, 732), "Article published online ahead of print. \n\n"),
        ("text", (317, 366, 558, 733), "RNA molecule (i.e., the search space). Edges to the query \n\n"),
        ("page-footer", (534, 753, 557, 761), "1183 \n\n"),
        ("page-footer", (59, 754, 403, 763), "RNA 19:1183–1191; © 2013; Published by CSHL Press \n\n"),
    ]
    first = _boxes_page(parts, margins=("page-footer",))
    second = _page(("text", "motif should have similar shapes. Therefore, more. \n\n"))
    one, two = drop_running_margins([first, second])
    assert one == (
        "Recognition aims to find all of its occurrences in an RNA molecule (i.e., the search space).\n\n"
        "RNA 19:1183–1191; © 2013; Published by CSHL Press\n\n"
        "> ⁴ Corresponding author\n\nArticle published online ahead of print."
    )
    assert two == "Edges to the query motif should have similar shapes. Therefore, more."


def test_a_text_box_lower_than_a_footnote_but_in_the_other_column_stays_running_text():
    """The right column's foot goes on with the left column's open sentence though it stands lower than
    the left column's footnote: it is not under it."""
    parts = [
        ("text", (59, 100, 300, 600), "The left column ends on an open \n\n"),
        ("footnote", (67, 696, 145, 705), "> 4Corresponding author \n\n"),
        ("text", (317, 715, 558, 733), "column: the right one's foot. \n\n"),
    ]
    assert drop_running_margins([_boxes_page(parts)])[0] == (
        "The left column ends on an open column: the right one's foot.\n\n> ⁴ Corresponding author"
    )


def test_notes_set_as_text_boxes_counting_up_to_the_columns_foot_leave_the_sentence_they_cut():
    """The Federal Register's page (dev corpus): the engine read its notes as text boxes ("1 Preliminary
    …" to "4 The angle …", down to the column's foot) between "airspeed disagree alert, and" and its end
    atop the next column. They go to the page's end, numbers raised, and the sentence reads whole."""
    page = _boxes_page(
        [
            ("text", (44, 362, 207, 382), "These effects include airspeed disagree alert, and \n\n"),
            ("text", (45, 394, 212, 432), "1 Preliminary KNKT.18.10.35.04 Report. \n\n"),
            ("text", (45, 435, 214, 473), "2 The flight control system includes two computers. \n\n"),
            ("text", (45, 581, 215, 741), "3 The angle of attack (or AOA) is the angle. \n\n"),
            ("text", (222, 60, 384, 90), "altitude disagree alert, and may affect the flightcrew. \n\n"),
            ("text", (222, 100, 384, 400), "4 ways were tried. \n\n"),  # a paragraph, not at the foot
            ("text", (222, 725, 387, 741), "4 More than 10 degrees for 10 seconds. \n\n"),
        ]
    )
    assert _read(page) == (
        "These effects include airspeed disagree alert, and altitude disagree alert, and may affect the "
        "flightcrew.\n\n4 ways were tried.\n\n¹ Preliminary KNKT.18.10.35.04 Report.\n\n² The flight control "
        "system includes two computers.\n\n³ The angle of attack (or AOA) is the angle.\n\n⁴ More than 10 "
        "degrees for 10 seconds."
    )


def test_numbered_paragraphs_that_do_not_count_up_or_end_above_the_foot_stay_text():
    """Numbers that do not count up ("2", then "5") are paragraphs' own, whatever reaches the foot."""
    page = _boxes_page(
        [
            ("text", (44, 100, 300, 200), "2 Methods are listed below. \n\n"),
            ("text", (44, 210, 300, 300), "5 Results follow from them. \n\n"),  # not the number after 2
            ("text", (44, 310, 300, 741), "The last paragraph reaches the foot. \n\n"),
        ]
    )
    assert _read(page) == (
        "2 Methods are listed below.\n\n5 Results follow from them.\n\nThe last paragraph reaches the foot."
    )


def test_the_rest_of_a_note_atop_the_next_columns_notes_joins_its_note():
    """The Federal Register's page 3 (dev corpus): note 12 ends column 1 mid-sentence ("… such as the
    airplane's"); its rest tops column 2's notes, right over "13 More than …". It joins note 12 at the
    page's end, not the running text; a lower-case paragraph that does not stand atop a note stays. (The
    engine read every note as text: the numbers counting up to the foot make them notes.)"""
    parts = [
        ("text", (45, 100, 214, 632), "The software would also limit the command. \n\n"),
        ("text", (45, 700, 208, 724), "11 The threshold is a function of the disagreement. \n\n"),
        ("text", (45, 725, 195, 741), "12 The magnitude varies with parameters such as the airplane's \n\n"),
        ("text", (222, 100, 388, 400), "and the pilot keeps control, as the column's text says. \n\n"),
        ("text", (222, 693, 388, 724), "altitude and airspeed, and would be limited. \n\n"),
        ("text", (222, 724, 387, 741), "13 More than 10 degrees difference for more than 10 seconds. \n\n"),
    ]
    assert _read(_boxes_page(parts)) == (
        "The software would also limit the command.\n\nand the pilot keeps control, as the column's text "
        "says.\n\n¹¹ The threshold is a function of the disagreement.\n\n¹² The magnitude varies with "
        "parameters such as the airplane's altitude and airspeed, and would be limited.\n\n¹³ More than 10 "
        "degrees difference for more than 10 seconds."
    )


def test_a_caption_set_across_two_columns_is_one_caption_and_takes_no_text():
    """A Springer paper (practice corpus): figure 3's caption runs from the left column ("… The numbers
    on the left give the") into the right one at its top ("orientation of the nucleotides … amplify the
    ORF", no full stop); the engine took the rest for text, and the left column's next paragraph
    ("spora crassa and …", the end of the last page's "Neuro-") was glued onto it."""
    parts = [
        ("caption", (45, 325, 290, 351), "Fig. 3. Sequences of AFT10-1. The numbers at left give the \n\n"),
        ("text", (300, 325, 545, 342), "orientation of the nucleotides, and primers to amplify the ORF \n\n"),
        ("text", (45, 373, 290, 498), "spora crassa and to the reductases of several bacteria. \n\n"),
    ]
    assert _read(_boxes_page(parts)) == (
        "Fig. 3. Sequences of AFT10-1. The numbers at left give the orientation of the nucleotides, and "
        "primers to amplify the ORF\n\nspora crassa and to the reductases of several bacteria."
    )


def test_a_sentence_a_page_break_cut_reads_whole_past_the_figure_the_next_page_opens_with():
    """The same paper: page 4 ends "… Aspergillus nidulans, and Neuro-"; page 5 opens with figure 3 (its
    text, its caption), then "spora crassa and …". The sentence goes on past the figure, which stays
    before it; a capital after a figure ("mol-" | figure | "AFT10-1 encodes …") and a caption's open
    end go on with nothing."""
    figure = "\ue000701 1001 MSYF tctttaccag\ue001\n\nFig. 3. Nucleotide sequences of AFT10-1."
    pages = ["Intro.\n\nIt has homology to those of Aspergillus nidulans, and Neuro-",
             f"{figure}\n\nspora crassa and to the reductases of bacteria. More."]  # fmt: skip
    assert across_pages(pages) == [
        "Intro.",
        f"{figure}\n\nIt has homology to those of Aspergillus nidulans, and Neuro-\nspora crassa and to the "
        "reductases of bacteria. More.",
    ]
    capital = ["Intro.\n\nAF-toxin is a polyketide mol-", f"{figure}\n\nAFT10-1 encodes a dehydrogenase."]
    assert across_pages(capital) == capital
    caption = ["Intro.\n\nFig. 7. Leaves inoculated with NAF8 (left to right)", f"{figure}\n\nand not by it."]
    assert across_pages(caption) == caption


def test_a_sentence_a_column_foot_cuts_goes_on_past_the_figure_atop_the_next_column():
    """TableFormer (practice6): the left column ends "… by serializing" over its footnotes; the right
    column opens with Figure 1 (its tables and caption), then "tables or rows into word sequences …"."""
    parts = [
        ("text", (70, 400, 290, 690), "In a nutshell, prior work used the architecture by serializing \n\n"),
        ("footnote", (70, 700, 290, 720), "> 1https://example.org/code \n\n"),
        ("table", (310, 80, 530, 160), "|Title|Length|\n|---|---|\n|Screwed Up|5:02| \n\n"),
        ("text", (310, 165, 530, 180), "Question: which song is the longest? \n\n"),
        ("caption", (310, 190, 530, 220), "Figure 1: Examples showing the limitations of models. \n\n"),
        ("text", (310, 230, 530, 500), "tables or rows into word sequences, as position ids. \n\n"),
        ("text", (310, 510, 530, 690), "and so on: a later paragraph of the column stays. \n\n"),
    ]
    read = _read(_boxes_page(parts))
    assert "by serializing tables or rows into word sequences, as position ids." in read, read
    assert read.index("Figure 1:") > read.index("as position ids.") and read.count("tables or rows") == 1
    assert "\n\nand so on: a later paragraph of the column stays." in read  # only the column's head moves
    # a closed sentence at the column's foot, or a text box under it in its own column: nothing moves
    closed = [(c, b, s.replace("by serializing", "by serializing.")) for c, b, s in parts]
    assert _read(_boxes_page(closed)).index("Figure 1:") < _read(_boxes_page(closed)).index("tables or rows")
