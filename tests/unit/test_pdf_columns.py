"""Reading order across two columns (:mod:`ragkit.ingestion.pdf_columns`), on the boxes PyMuPDF's layout
engine gave the FAA handbook page of docling's test PDFs (``amt_handbook_sample.pdf``): it cut the page
across where both columns had a gap at ~383 pt and read the right column's top before the left
column's foot, so "The wing type that is" and its end "the most common ranges …" stood apart."""

from __future__ import annotations

from ragkit.ingestion.pdf_columns import column_order, reorder, sentence_first

#: (class, bbox, text) in the engine's order
HANDBOOK = [
    ("page-header", (71, 20, 200, 30), "Chapter 7"),
    ("text", (71, 45, 312, 93), "pulleys, provided the inner race is clamped."),
    ("text", (71, 108, 312, 180), "The two general types of self-locking nuts."),
    ("section-header", (71, 195, 168, 205), "# Boots Self-Locking Nut"),
    ("text", (71, 210, 312, 282), "The Boots nut is of one piece."),
    ("text", (71, 297, 312, 370), "The spring keeps the sections apart."),
    ("text", (320, 45, 561, 118), "the most common ranges in size for No. 6 up to 1/4 inch."),
    ("section-header", (320, 133, 451, 143), "# Stainless Steel Self-Locking Nut"),
    ("text", (320, 147, 561, 357), "The stainless steel nut may be spun on and off by hand."),
    ("section-header", (320, 372, 389, 382), "# Elastic Stop Nut"),
    ("text", (71, 385, 312, 482), "The spring exerts a constant locking force."),
    ("text", (71, 497, 312, 520), "Boots nuts come in three styles. The wing type that is"),
    ("picture", (67, 527, 314, 699), "Boots aircraft nut Elastic anchor nut"),
    ("caption", (72, 704, 185, 713), "Figure 7-26. Self-locking nuts."),
    ("text", (320, 387, 559, 409), "The elastic stop nut is a standard nut."),
    ("page-footer", (537, 730, 561, 738), "7-45"),
]


def _page(spec):
    text, boxes, classes = "", [], []
    for cls, bbox, words in spec:
        part = words + "\n\n"
        boxes.append((len(text), len(text) + len(part), bbox))
        classes.append(cls)
        text += part
    return text, boxes, classes


def _read(spec) -> list[str]:
    text, boxes, classes = _page(spec)
    order = sentence_first(text, boxes, classes, column_order(boxes, classes))
    new, placed, _ = reorder(text, boxes, order)
    return [new[a:b].strip() for a, b, _ in placed]


def test_a_page_cut_across_is_read_column_by_column_and_a_sentence_is_not_split_by_a_figure():
    read = _read(HANDBOOK)
    assert read == [
        "Chapter 7",
        "pulleys, provided the inner race is clamped.",
        "The two general types of self-locking nuts.",
        "# Boots Self-Locking Nut",
        "The Boots nut is of one piece.",
        "The spring keeps the sections apart.",
        "The spring exerts a constant locking force.",
        "Boots nuts come in three styles. The wing type that is",
        "the most common ranges in size for No. 6 up to 1/4 inch.",
        "Boots aircraft nut Elastic anchor nut",
        "Figure 7-26. Self-locking nuts.",
        "# Stainless Steel Self-Locking Nut",
        "The stainless steel nut may be spun on and off by hand.",
        "# Elastic Stop Nut",
        "The elastic stop nut is a standard nut.",
        "7-45",
    ]


def test_a_title_across_both_columns_keeps_its_place_between_them():
    spec = [
        ("text", (50, 50, 290, 200), "Left column, first part."),
        ("text", (310, 50, 550, 200), "Right column, first part."),
        ("section-header", (50, 220, 550, 240), "# A heading across the page"),
        ("text", (310, 260, 550, 400), "Right column, second part."),
        ("text", (50, 260, 290, 400), "Left column, second part."),
    ]
    assert _read(spec) == [
        "Left column, first part.",
        "Right column, first part.",
        "# A heading across the page",
        "Left column, second part.",
        "Right column, second part.",
    ]


def test_a_masthead_beside_the_title_above_three_columns_stays_a_row_of_its_own():
    """The Federal Register's first page: "Proposed Rules" left and the masthead right, 23 pt of white
    across the page, then three columns the engine read in order."""
    spec = [
        ("section-header", (45, 56, 184, 73), "# Proposed Rules"),
        ("section-header", (399, 59, 461, 67), "### Federal Register"),
        ("text", (399, 74, 466, 82), "Vol. 85, No. 152"),
        ("text", (45, 123, 209, 740), "This section of the FEDERAL REGISTER contains notices."),
        ("text", (222, 122, 391, 742), "Comments invited."),
        ("text", (398, 122, 569, 740), "Background."),
    ]
    assert _read(spec) == [words for _, _, words in spec]


def test_a_form_of_labels_beside_values_keeps_the_engines_row_order():
    rows = [("Name:", "Ada Lovelace"), ("Born:", "10 December 1815"), ("Known for:", "the first program")]
    spec = []
    for k, (label, value) in enumerate(rows):
        spec += [("text", (50, 50 + 30 * k, 200, 62 + 30 * k), label)]
        spec += [("text", (320, 50 + 30 * k, 550, 62 + 30 * k), value)]
    assert _read(spec) == [words for _, _, words in spec]


def test_one_column_pages_and_finished_sentences_are_left_as_read():
    spec = [
        ("text", (50, 50, 550, 200), "A paragraph across the page."),
        ("picture", (50, 210, 550, 400), "a chart"),
        ("text", (50, 410, 550, 500), "another paragraph after the chart."),
        ("text", (50, 510, 550, 600), "And a last one."),
    ]
    assert _read(spec) == [words for _, _, words in spec]  # "." closed the sentence before the chart


#: the S2ORC paper's first page: column 1 ends "Digital archives like arXiv,²" over its footnotes, and
#: column 2 goes on "PubMed Central,³ …" under Figure 1 and its caption
S2ORC = [
    ("text", (71, 598, 291, 717), "Resources have been used. Digital archives like arXiv,²"),
    ("footnote", (84, 755, 180, 765), "> 2https://arxiv.org"),
    ("picture", (307, 222, 526, 342), ""),
    ("caption", (307, 353, 526, 411), "Figure 1: Inline citations are annotated."),
    ("text", (307, 436, 526, 706), "PubMed Central,³ CiteSeerX (Giles et al.),⁴ are popular resources."),
]


def test_a_sentence_goes_on_past_its_columns_footnotes_and_a_figure_after_a_comma():
    """The continuation opens with a capital (a name), but the comma left the sentence open; the
    footnotes between the halves did not stop the figure from moving after the paragraph either."""
    read = _read(S2ORC)
    assert read.index("PubMed Central,³ CiteSeerX (Giles et al.),⁴ are popular resources.") == 1
    assert read.index("Figure 1: Inline citations are annotated.") > 1


#: an RNA journal's page (olmOCR's ``failing_pdf_pg9``): the left column ends mid-sentence, the right one
#: opens with a table and its caption, then the sentence goes on
RNA_PAGE = [
    ("text", (50, 500, 290, 700), "We only compare four methods. This is because RNAMotifScan"),
    ("caption", (310, 50, 550, 70), "TABLE 1. AP values of five computational methods"),
    ("table", (310, 75, 550, 180), "|Motif|LS-RSMR|\n|---|---|\n|Tetraloop|0.905|"),
    ("text", (310, 190, 550, 400), "uses a base pair isostericity diagram as input."),
]


def test_a_table_between_a_sentence_and_its_end_goes_after_the_paragraph():
    read = _read(RNA_PAGE)
    assert read[:2] == [
        "We only compare four methods. This is because RNAMotifScan",
        "uses a base pair isostericity diagram as input.",
    ]
    assert read[2:] == ["TABLE 1. AP values of five computational methods", RNA_PAGE[2][2]]


def test_a_table_after_a_finished_sentence_keeps_its_place():
    spec = [(*RNA_PAGE[0][:2], "This is because of RNAMotifScan."), *RNA_PAGE[1:3],
            (*RNA_PAGE[3][:2], "Uses of a base pair isostericity diagram.")]  # fmt: skip
    assert _read(spec) == [s[2] for s in spec]


#: a Springer paper's page (practice corpus): the left column's last sentence breaks at "sec-"; the right
#: column opens with a table, its note in small print (which the engine writes as a quote), then "ondary"
NOTE_PAGE = [
    ("text", (50, 649, 295, 728), "products including polyketides, which are sec-"),
    ("caption", (306, 50, 455, 59), "Table 1. Fungal isolates used in this study"),
    ("table", (306, 65, 550, 267), "|No.a|Isolate|\n|---|---|\n|1|G31|"),
    ("text", (306, 273, 502, 282), "> a The numbers correspond to the lane numbers in Fig. 5"),
    ("text", (306, 314, 550, 428), "ondary fungal metabolites (Brown et al. 1996)."),
    ("section-header", (306, 451, 409, 460), "# Materials and methods"),
]


def test_a_tables_note_in_small_print_goes_with_the_table_not_before_the_sentences_end():
    read = _read(NOTE_PAGE)
    assert read == [NOTE_PAGE[i][2] for i in (0, 4, 1, 2, 3, 5)]


def test_a_small_print_paragraph_that_follows_no_float_keeps_its_place():
    spec = [
        NOTE_PAGE[0],
        ("text", (306, 50, 502, 60), "> 8 A footnote the engine took for text"),
        NOTE_PAGE[4],
    ]
    assert _read(spec) == [s[2] for s in spec]
