"""Unit tests of the extractive reader's pure parts (:mod:`ragkit.llms.extractive.question`,
``.units``, ``.select``): what a question expects, page furniture, code blocks, cut quotes, and a
document's own bracketed numbers kept as text."""

from __future__ import annotations

import pytest

from ragkit.app.presentation import answer_html
from ragkit.core.types import Chunk, Document, Hit, Page, Span
from ragkit.llms.base import WORD_JOINER, documents_own_markers
from ragkit.llms.extractive.question import analyze, expected_kind
from ragkit.llms.extractive.select import kind_found, unit_terms
from ragkit.llms.extractive.units import clean, collect, furniture, plain_line
from ragkit.pipeline.citations import parse_citations


@pytest.mark.parametrize(
    "question, kind",
    [
        ("How many passages did the Wikipedia pre-processing produce?", "number"),
        ("What is the maximum length of a key?", "number"),
        ("Who is the first author of the paper?", "person"),
        ("When was Orbit 2.0 released?", "date"),
        ("In which year was the lab founded?", "date"),
        ("Why does DPR perform worse on SQuAD?", "reason"),
        ("How do I split an image into tiles?", "code"),
        ("Where is the cryostat?", "place"),
        ("Which media type does KVL register?", "any"),
        ("What port number does the protocol use?", "number"),
        ("What is the Speed Trim System?", "any"),  # a name's words ask for no speed
        ("What is the speed of the Trim System?", "number"),
        ("How many passengers were on Ethiopian Airlines Flight 302?", "number"),
    ],
)
def test_the_kind_of_answer_a_question_expects(question, kind):
    assert expected_kind(question) == kind


@pytest.mark.parametrize(
    "text, holds",
    [
        ("KVL is based on the format described in RFC 4180 [1].", False),
        ("The results are in Table 3 and Section 2.1 [12, 13].", False),
        ("It captures structure omitted by Saier and Färber (2019) (Ammar et al., 2018).", False),
        ("A key MUST NOT be longer than 64 octets.", True),
        ("We provide 1.5M full text parses.", True),
        ("A sample (n = 2000 papers) was read.", True),
        ("In 2019 the lab had 12 members.", True),
    ],
)
def test_a_number_that_names_something_is_no_answer_to_how_many(text, holds):
    """An RFC's, a table's or a section's number, a reference marker and a citation's year are names, not
    quantities: a sentence holding only those does not answer "how many" or "how long"."""
    spec = analyze("What is the maximum length of a key?", lambda t: set(t.lower().split()))
    assert spec.expects == "number"
    assert kind_found(text, spec) is holds


def doc(*pages: str, name: str = "d.txt") -> Document:
    return Document("d1", name, "0" * 64, tuple(Page(i + 1, t) for i, t in enumerate(pages)), "txt")


def hit(d: Document, page: int, start: int, end: int, n: int = 1) -> Hit:
    chunk = Chunk(
        f"c{n}", d.doc_id, d.source, n, d.pages[page - 1].text[start:end], (Span(page, start, end),)
    )
    return Hit(chunk, n, 1.0, "bm25")


def test_running_headers_footers_and_page_numbers_are_never_quoted():
    bodies = ["Keys are short words.", "Values may be quoted.", "Records end with LF.", "Fields are unique."]
    pages = [
        f"RFC 9999   Key-Value Line Format   June 2023\n\n{body} It is the rule.\n\n"
        f"Okonkwo   Informational   [Page {i}]"
        for i, body in enumerate(bodies, start=1)
    ]
    d = doc(*pages)
    assert "rfc # key-value line format june #" in furniture([p.text for p in d.pages])
    units = collect([hit(d, 2, 0, len(d.pages[1].text))], {d.doc_id: d})
    texts = [u.text for u in units]
    assert texts == ["Values may be quoted.", "It is the rule."] or texts == [
        "Values may be quoted. It is the rule."
    ]


def test_a_code_block_is_one_unit_verbatim_with_the_sentence_that_introduces_it():
    text = (
        "To split an image into tiles:\n\n```bash\ntessera split photo.png --size 256\n```\n\nDone here now."
    )
    d = doc(text, name="README.md")
    units = collect([hit(d, 1, 0, len(text))], {d.doc_id: d})
    code = next(u for u in units if u.kind == "code")
    assert code.text == "```bash\ntessera split photo.png --size 256\n```"
    assert code.header == "To split an image into tiles:"
    assert all("```" not in u.text for u in units if u.kind != "code")


def test_a_sentence_across_a_chunk_edge_cites_both_chunks_or_is_cut():
    text = "The first sentence is short. The second sentence crosses the edge of the chunk it starts in."
    d = doc(text)
    edge = text.index("edge")
    both = collect([hit(d, 1, 0, edge, 1), hit(d, 1, edge, len(text), 2)], {d.doc_id: d})
    crossing = next(u for u in both if u.text.startswith("The second"))
    assert crossing.text.endswith("starts in.") and crossing.sources == (1, 2)
    alone = collect([hit(d, 1, 0, edge, 1)], {d.doc_id: d})
    cut = next(u for u in alone if u.text.startswith("The second"))
    assert cut.text.endswith("…") and "starts in" not in cut.text and cut.sources == (1,)


def test_a_documents_own_bracketed_numbers_are_never_citations():
    quoted = documents_own_markers("KVL is based on RFC 4180 [1] and InfoXLM [4], see [30].")
    answer = f"{quoted} [2]"
    report = parse_citations(answer, 5)
    assert report.markers == (2,) and report.invalid == ()
    html, mapping = answer_html(answer, 5, "k")
    assert mapping == {2: 1} and html.count('class="rk-ref"') == 1
    assert f"[{WORD_JOINER}4]" in html and f"[{WORD_JOINER}30]" in html  # shown as the document wrote them


def test_citation_markers_inside_code_are_code_not_links():
    answer = "Run:\n\n```python\nx = a[1]\n```\n\nor `b[2]` [1]"
    assert parse_citations(answer, 3).markers == (1,)
    html, _ = answer_html(answer, 3, "k")
    assert "x = a[1]" in html and "`b[2]`" in html and html.count("<a ") == 1


def test_a_quoted_line_never_starts_with_the_punctuation_a_sentence_split_left():
    assert clean(": No. 07-1315 ALEXANDRE MIRZAYANCE.") == "No. 07-1315 ALEXANDRE MIRZAYANCE."
    assert clean("  - ; the  rest,") == "the rest,"
    assert clean("(a) stays as written") == "(a) stays as written"


def test_a_quoted_footnote_opens_with_its_words_not_its_raised_number_or_quote_mark():
    """The Federal Register's note 8 reads "⁸ MCAS is a function …" at its page's end; answered with,
    it was shown opening with the note's number. A power inside the sentence stays."""
    assert clean("⁸ MCAS is a function of the Trim System.") == "MCAS is a function of the Trim System."
    assert clean("> ¹² The magnitude varies.") == "The magnitude varies."
    assert clean("An area of 3 m² is left.") == "An area of 3 m² is left."


def test_a_follow_ups_own_words_are_what_it_asks_the_conversations_its_context():
    terms = lambda t: {w.lower().strip("?.,") for w in t.split()} - {"what", "in", "it", "how", "for"}  # noqa: E731
    spec = analyze(
        "What changed in it? many contributors sent patches Orbit",
        terms,
        "many contributors sent patches Orbit",
    )
    assert spec.expects == "any"
    assert "orbit" in spec.names  # the referent must be in the evidence
    assert {"contributors", "patches"} <= spec.context and "changed" not in spec.context
    when = analyze("When was it founded? Vision Lab", terms, "Vision Lab")
    assert when.expects == "date" and {"vision", "lab"} <= when.names and not when.context


def test_a_limit_stated_as_a_comparison_answers_a_question_about_the_maximum():
    terms = lambda t: {w.lower().strip("?.,") for w in t.split()}  # noqa: E731
    said = unit_terms("A key MUST NOT be longer than 64 octets.", terms)
    assert {"maximum", "length"} <= said
    assert not {"maximum", "length"} & unit_terms("A key holds letters and digits.", terms)


def test_a_byline_is_quoted_as_it_reads_without_emphasis_or_affiliation_marks():
    line = "**Kyle Lo**†∗ **Lucy Lu Wang**†∗ **Daniel S. Weld**†‡"
    assert plain_line(line) == "Kyle Lo, Lucy Lu Wang, Daniel S. Weld"
    assert plain_line("> _†_ Allen Institute for AI") == "Allen Institute for AI"
    assert plain_line("Tuesday, January 13, 2009") == "Tuesday, January 13, 2009"


def test_a_table_row_is_quoted_with_spaced_cells_and_its_label_names_it():
    from ragkit.llms.extractive import spaced_cells
    from ragkit.llms.extractive.select import row_label

    assert (
        spaced_cells("|PubMed Central (OA)|2.6M|full text|") == "| PubMed Central (OA) | 2.6M | full text |"
    )
    assert row_label("|**S2ORC (PDF-parse)**|**8.1M**|") == "S2ORC (PDF-parse)"
    assert row_label("| Cryostat | Room B102 |") == "Cryostat"


def test_irregular_past_forms_match_their_base_form_in_the_reader_only():
    from ragkit.llms.extractive.lemmas import base_forms

    assert base_forms("We rewrote the queue; it was Rewritten") == "We rewrite the queue; it was rewrite"
    assert base_forms("Rose founded the lab") == "Rose founded the lab"  # names and regular forms untouched


def test_an_apostrophe_is_not_a_quote_and_a_name_may_have_accents():
    """XQuAD's "What's Thomas Piketty's job?" named "s" (quoted between two apostrophes), and evidence
    without an "s" was refused as off-subject; "Temüjin" was no name at all."""
    terms = lambda t: {w.lower().strip("?.,'’\"") for w in t.replace("'s", " ").split()}  # noqa: E731
    assert analyze("What's Thomas Piketty's job?", terms).names == {"thomas", "piketty"}
    assert analyze("Why shouldn't the Yuan's system count?", terms).names == {"yuan"}
    assert analyze("What does the 'dry run' flag do?", terms).names == {"dry", "run"}
    assert analyze('What does "text/kvl" mean?', terms).names >= {"text/kvl"}
    assert analyze("Which proclamation aided Temüjin?", terms).names == {"temüjin"}


@pytest.mark.parametrize(
    "name, term, same",
    [
        ("bedigo", "bendigo", True),  # a letter dropped
        ("arpanet", "arpnet", True),  # a letter added
        ("carslbad", "carlsbad", True),  # neighbours swapped
        ("temujin", "temüjin", True),  # accents aside
        ("paris", "parse", False),  # two slips
        ("orbit", "torbit", False),  # the first letter differs
        ("kvl", "kvm", False),  # a short name must be exact
    ],
)
def test_a_name_is_found_despite_one_typing_slip(name, term, same):
    from ragkit.llms.extractive.select import named

    assert named(name, {term, "unrelated"}) is same


@pytest.mark.parametrize(
    "text, holds",
    [
        ("Six-time Grammy winner Lady Gaga sang the anthem.", True),
        ("The committee has four of the five seats.", True),
        ("S2ORC contains three times more full text papers than PMC.", False),  # a ratio
        ("A record with millions of fields is valid.", False),  # a vague amount
        ("It is one of the largest corpora.", False),
    ],
)
def test_a_count_may_be_spelled_out(text, holds):
    terms = lambda t: {w.lower().strip("?.,") for w in t.split()}  # noqa: E731
    assert kind_found(text, analyze("How many awards did she win?", terms)) is holds


def test_a_missing_term_is_named_as_the_question_wrote_it():
    """An abstention read "never mention “grammi”, “win”": the stems, not the question's words."""
    from ragkit.llms.extractive.select import as_asked

    stem = {"grammys": "grammi", "won": "win"}
    terms = lambda t: {stem.get(w.lower().strip("?"), w.lower().strip("?")) for w in t.split()}  # noqa: E731
    question = "How many Grammys has the lab won?"
    assert [as_asked(t, question, terms) for t in ("grammi", "win", "absent")] == ["Grammys", "won", "absent"]


def test_an_elliptic_follow_up_asks_what_its_previous_question_asked_about_its_own_subject():
    from ragkit.llms.extractive.question import analyze
    from ragkit.retrievers.analyzer import Analyzer

    terms = lambda text: set(Analyzer()(text))  # noqa: E731
    previous = "How many people were killed in the Lion Air Flight 610 crash?"
    added = "people killed Lion Air Flight 610 crash"
    spec = analyze(f"And in the Ethiopian Airlines accident? {added}", terms, added, previous)
    assert spec.expects == "number"  # the previous question's kind
    assert spec.names == frozenset(terms("Ethiopian Airlines")) and "610" not in spec.literals
    anaphoric = analyze(f"Why did he do it? {added}", terms, added, previous)
    assert terms("Lion") <= anaphoric.names  # "he"/"it" stand for the previous subject: it stays


def test_the_signals_of_the_answer_confidence():
    from ragkit.llms.extractive.question import QuestionSpec
    from ragkit.llms.extractive.signals import qualifiers, rarest_found

    spec = QuestionSpec("What was the mileage rate in 2008?", "number", frozenset({"mileag", "rate", "2008"}),
                        frozenset(), frozenset({"2008"}))  # fmt: skip
    assert qualifiers(spec, "The rate for 2007 was 48.5 cents.") == {
        "literal_share": 0.0,
        "year_conflict": 1.0,
    }
    assert qualifiers(spec, "In 2008 the rate was 50.5 cents.") == {
        "literal_share": 1.0,
        "year_conflict": 0.0,
    }
    weight = {"mileag": 2.0, "rate": 0.5, "2008": 1.0}
    assert (
        rarest_found(spec, weight, {"rate", "2008"}) == 0.0 and rarest_found(spec, weight, {"mileag"}) == 1.0
    )


def test_a_web_pages_short_unpunctuated_line_is_a_caption_to_quote_a_pdfs_is_a_heading():
    """A web page marks its headings with ``#``: its short lines without a full stop are captions and
    standfirsts ("Kenya is getting ready to welcome the US president"), which answer questions; in a PDF
    such a line is a heading the layout did not mark, never quoted."""
    text = (
        "He said he does not get too low when it is low.\n\nKenya is getting ready to welcome the US "
        "president\n\n## Kenya trip\n\nMr Obama was speaking before departing for Kenya."
    )
    for kind, quoted in (("html", True), ("pdf", False)):
        d = Document("d1", f"bbc.{kind}", "0" * 64, (Page(1, text),), kind)
        texts = [u.text for u in collect([hit(d, 1, 0, len(text))], {d.doc_id: d})]
        assert ("Kenya is getting ready to welcome the US president" in texts) is quoted
        assert "Kenya trip" not in " ".join(texts)


@pytest.mark.parametrize("below", [False, True])
def test_a_tables_caption_is_its_rows_context_not_an_answer_of_its_own(below):
    """A title naming the table ("Table 8: Number of persons …", over it, or under it as a paper sets it)
    holds the years and units its rows answer with: read alone, it outranked the row and the reader
    refused "… in 2004?" because its chosen passage lacked the year in the table's header."""
    caption = "Table 8: Number of persons attending labour market training from 2001 to 2005"
    table = "|  | 2001 | 2004 |\n|---|---|---|\n| On labour market training | 29 300 | 33 500 |"
    prose = "Labour market training is part of active labour policy in Finland."
    after = "More prose follows."
    text = f"{prose}\n\n{table}\n\n{caption}" if below else f"{prose}\n\n{caption}\n\n{table}\n\n{after}"
    d = doc(text)
    units = collect([hit(d, 1, 0, len(text))], {d.doc_id: d})
    assert not any("Number of persons" in u.text for u in units)
    row = next(u for u in units if u.kind == "row")
    assert row.header.startswith(caption + "\n\n|")
    assert any(u.kind == "sentence" and u.text == prose for u in units)


def test_a_paragraph_that_only_mentions_a_table_is_still_prose():
    text = "Table 2 shows that 41 persons took part.\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    d = doc(text)
    units = collect([hit(d, 1, 0, len(text))], {d.doc_id: d})
    assert any(u.kind == "sentence" and u.text.startswith("Table 2 shows") for u in units)
    assert next(u for u in units if u.kind == "row").header.startswith("| a | b |")
