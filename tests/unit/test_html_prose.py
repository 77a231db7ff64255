"""A paragraph of prose the extractor dropped from between text it kept goes back where the page shows
it (a trial registry's "Brief Summary", set in bare <div>s, was lost whole); one before or after the
text kept (a banner, a footer's notice), one the reading holds in part, or one among the links of a
menu stays out."""

from __future__ import annotations

from trafilatura.utils import load_html

from ragkit.ingestion.html_blocks import page_blocks, restore_blocks

SUMMARY = (
    "The purpose of this research study is to evaluate a blood test that measures circulating tumour DNA. "
    "Participants will have approximately three teaspoons of blood withdrawn at three different times."
)
BANNER = (
    "We use cookies on this website to understand how you use it and to improve your experience of our "
    "pages, and by going on you agree to their use as our notice describes."
)
FOOTER = (
    "This registry is maintained by a national library, which checks each record for its form but does "
    "not say whether the studies listed in it are safe or will work as hoped."
)
LEAD = "Study Details and the record's history: the sponsor's own listing, as it was submitted and checked"
DESIGN = "Study Type: Observational. Actual Enrollment: 40 participants. Observational Model: Cohort."


def _page() -> bytes:
    return (
        "<html><body><div class='banner'>" + BANNER + "</div><div id='main'><div>" + LEAD + "</div>"
        "<div class='label'>Brief Summary:</div><div class='ct-body3'>" + SUMMARY + "</div>"
        "<table><tr><th>Condition or disease</th></tr><tr><td>" + DESIGN + "</td></tr></table>"
        "<ul><li><a href='/a'>Tabular View</a></li><li><a href='/b'>No Results Posted</a></li></ul>"
        "</div><div class='notice'>" + FOOTER + "</div></body></html>"
    ).encode()


def _read(reading: str) -> str:
    return restore_blocks(reading, page_blocks(load_html(_page())))


def test_a_paragraph_dropped_between_kept_text_goes_back_in_place():
    # the extractor kept the lead and the table's cell, but not the label, the summary or the header
    text = _read(LEAD + "\n\n" + DESIGN + "\n")
    assert SUMMARY in text
    assert text.index(LEAD) < text.index(SUMMARY) < text.index(DESIGN)
    assert text.count(SUMMARY) == 1


def test_prose_before_or_after_the_kept_text_stays_out():
    text = _read(LEAD + "\n\n" + DESIGN + "\n")
    assert BANNER not in text and FOOTER not in text
    # nothing kept before it: the summary would open the reading, so it stays out too
    assert SUMMARY not in _read(DESIGN + "\n")


def test_a_paragraph_the_reading_holds_in_part_is_not_added_again():
    half = SUMMARY[: len(SUMMARY) // 2]
    text = _read(LEAD + "\n\n" + half + "\n\n" + DESIGN + "\n")
    assert text.count("The purpose of this research study") == 1


def test_short_lines_links_and_table_cells_are_no_prose():
    texts = [b.text for b in page_blocks(load_html(_page())) if b.prose]
    assert SUMMARY in texts
    assert DESIGN not in texts and "Brief Summary:" not in texts and "Tabular View" not in texts


def test_a_box_the_page_marks_as_furniture_is_not_put_back():
    """A consent notice standing in for an embed, set between two paragraphs the extractor kept."""
    notice = (
        "We respect your privacy, so no connection to the social network is made without your consent. "
        "Here you can manage your settings to allow connections to embedded posts on this page."
    )
    page = (
        "<html><body><div id='main'><p>" + LEAD + "</p>"
        "<div class='third-party-services--placeholder'><div class='message'>" + notice + "</div></div>"
        "<p>" + DESIGN + "</p></div></body></html>"
    ).encode()
    blocks = page_blocks(load_html(page))
    assert restore_blocks(LEAD + "\n\n" + DESIGN + "\n", blocks) == LEAD + "\n\n" + DESIGN + "\n"
    # the same box under a plain class is a paragraph dropped between kept text, and goes back
    plain = page.replace(b"third-party-services--placeholder", b"box")
    assert notice in restore_blocks(LEAD + "\n\n" + DESIGN + "\n", page_blocks(load_html(plain)))


def test_a_note_put_back_as_a_note_is_not_put_back_again_as_prose():
    """A wiki's hatnote long enough to be prose goes back once, where the page shows it."""
    note = (
        "This is a dynamic list and may never be able to satisfy particular standards for completeness. "
        "You can help by adding missing items with reliable sources."
    )
    page = (
        "<html><body><div id='main'><h1>List of films featuring time loops</h1>"
        "<div role='note' class='hatnote navigation-not-searchable'>" + note + "</div>"
        "<p>" + LEAD + "</p><p>" + DESIGN + "</p></div></body></html>"
    ).encode()
    reading = "# List of films featuring time loops\n\n" + LEAD + "\n\n" + DESIGN + "\n"
    text = restore_blocks(reading, page_blocks(load_html(page)))
    assert text.count("This is a dynamic list") == 1
    assert text.index("time loops") < text.index("This is a dynamic list") < text.index(LEAD)


SHORT = (
    "Men and women of all races and ethnicities who meet the criteria are eligible to participate in this "
    "study."
)  # 21 words: under the floor of a paragraph put back anywhere between kept text
NEXT = "Inclusion Criteria: Patients with confirmed or suspected stage I, II or III disease of the lung"


def _short_page() -> bytes:
    return (
        "<html><body><div id='main'><div>" + LEAD + "</div><table><tr><td>Sampling Method:</td><td>Non-"
        "Probability Sample</td></tr></table><div class='label'>Study Population</div><div>"
        + SHORT
        + "</div>"
        "<div>" + NEXT + "</div><div>" + DESIGN + "</div></div>"
        "</body></html>"
    ).encode()


def test_a_short_paragraph_goes_back_only_right_after_the_text_the_page_sets_before_it():
    """ClinicalTrials.gov's "Study Population" sentence (21 words, in a bare <div> after a table, its label
    dropped with it) was lost. A short paragraph goes back where the reading holds the page's text just
    before it (past the label) right before its place, and only there."""
    blocks = page_blocks(load_html(_short_page()))
    held = LEAD + "\n\n| Sampling Method: | Non-Probability Sample |\n\n" + NEXT + "\n\n" + DESIGN + "\n"
    text = restore_blocks(held, blocks)
    assert text.index("Non-Probability Sample |") < text.index(SHORT) < text.index(NEXT)
    # the reading without the table's row: the sentence's neighbour before it is not there, it stays out
    assert SHORT not in restore_blocks(LEAD + "\n\n" + NEXT + "\n\n" + DESIGN + "\n", blocks)
