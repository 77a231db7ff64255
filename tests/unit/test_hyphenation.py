"""Unit tests of :mod:`ragkit.ingestion.hyphenation`."""

from __future__ import annotations

from ragkit.ingestion.hyphenation import _Hyphenation, unbreak


def test_line_end_hyphens_are_rejoined_only_where_the_word_is_plausible():
    h = _Hyphenation(["The text was classified. Papers were cleaned."])
    assert h.join_lines("aggressively-\ncleaned text") == "aggressively-cleaned text"  # two words: a compound
    assert h.join_lines("classi-\nfied by hand") == "classified by hand"  # seen in the document
    assert h.join_lines("classi-\nfication of papers") == "classification of papers"  # a known word
    assert h.join_lines("GROBID-\nparsed output") == "GROBID-parsed output"  # after an acronym
    seen = _Hyphenation(["a well-known fact"])
    assert seen.join_lines("well-\nknown") == "well-known"  # the hyphenated form occurs elsewhere


def test_a_compound_whose_second_word_the_list_lacks_keeps_its_hyphen():
    """An annual report's "high-value, machine-⏎readable data sets" read "machinereadable": the word list
    (whole words of a tokenizer's vocabulary) holds "read" but not "readable". A word with a common
    ending on a listed stem is a word; a syllable break still joins."""
    h = _Hyphenation(["Data.gov increases public access to data sets."])
    assert h.join_lines("machine-\nreadable data") == "machine-readable data"
    assert h.join_lines("classi-\nfication of papers") == "classification of papers"


def test_a_heading_set_in_capitals_is_rejoined_like_lower_case():
    """A scanned regulation's "PART 2—APPOINTMENT …; RE-⏎LATED MATTERS": the capitals' break joins where
    the word is known, and an acronym's compound keeps its hyphen."""
    h = _Hyphenation(["nothing else"])
    out = h.resolve(["THE COMPETITIVE SERVICE; RE-\nLATED MATTERS (RULE II)", "GROBID-\nPARSED OUTPUT"])
    assert out == ["THE COMPETITIVE SERVICE; RELATED MATTERS (RULE II)", "GROBID-PARSED OUTPUT"]
    assert h.resolve(["Auto-\nEncoding"]) == ["Auto-Encoding"]  # a capital after lower case: a name kept


def test_a_compounds_second_word_the_text_holds_elsewhere_keeps_its_hyphen():
    """An EU list's cell "Alpha-⏎hexabromocyclododecane Beta-hexabromocyclododecane" read
    "Alphahexabromocyclododecane" once a cell's breaks were resolved: neither half's join nor the second
    word is in the word list, but the text holds that word after "Beta-"."""
    cell = "identified: Alpha-\nhexabromocyclododecane Beta-hexabromocyclododecane"
    assert unbreak(cell) == "identified: Alpha-hexabromocyclododecane Beta-hexabromocyclododecane"
    assert unbreak("a con-\nstant voltage. Re-\npeat it") == "a constant voltage. Repeat it"
    names = _Hyphenation(["Chanwoo Jeong, Sion Jang"])  # a name's second half is no compound's word
    assert names.resolve(["Eun-\njeong Lucy Park"]) == ["Eunjeong Lucy Park"]
