"""Chunkers: offsets, words never cut, sentence rules, Markdown structure, stable ids, edge cases."""

from __future__ import annotations

import itertools
import re

import pytest

from ragkit.core.errors import ConfigError
from ragkit.ingestion.chunkers import (
    CHUNKERS,
    MarkdownChunker,
    SentenceChunker,
    SlidingChunker,
    chunker_from_spec,
    make_chunker,
)
from ragkit.ingestion.chunkers.base import MAX_CHUNK_CHARS
from ragkit.ingestion.chunkers.sentence import sentences
from tests.conftest import make_doc

LOREM = (
    "Retrieval augmented generation grounds a language model in documents. "
    "It retrieves passages, then asks the model to answer from them. "
) * 40


def assert_spans_match(doc, chunks):
    """Every span points at text that occurs, in order, inside the chunk."""
    for c in chunks:
        assert c.spans, c
        pieces = [doc.pages[s.page - 1].text[s.start : s.end] for s in c.spans]
        assert pieces[0] == c.text[: len(pieces[0])]
        assert pieces[-1] == c.text[len(c.text) - len(pieces[-1]) :]
        for p in pieces:
            assert p in c.text


@pytest.mark.parametrize("name", ["sliding", "sentence", "markdown"])
def test_empty_and_whitespace_text_give_no_chunks(name):
    chunker = make_chunker(name)
    assert chunker.split(make_doc("")) == []
    assert chunker.split(make_doc("   \n\n\t  ", "")) == []


@pytest.mark.parametrize("name", ["sliding", "sentence", "markdown"])
def test_every_chunker_is_stable_and_maps_offsets(name):
    doc = make_doc(LOREM[:900], "Second page. " * 30, "# Title\n\n" + LOREM[:400])
    a, b = make_chunker(name).split(doc), make_chunker(name).split(doc)
    assert [c.chunk_id for c in a] == [c.chunk_id for c in b]
    assert len({c.chunk_id for c in a}) == len(a)
    assert [c.index for c in a] == list(range(len(a)))
    assert all(c.doc_id == doc.doc_id and c.source == "doc.txt" for c in a)
    assert_spans_match(doc, a)
    assert {p for c in a for p in c.pages} == {1, 2, 3}


def test_chunk_ids_change_with_config():
    doc = make_doc(LOREM)
    a = SlidingChunker(size=300, overlap=50).split(doc)
    b = SlidingChunker(size=300, overlap=60).split(doc)
    assert a[0].chunk_id != b[0].chunk_id


def test_sliding_never_cuts_a_word_and_respects_size():
    doc = make_doc(LOREM)
    chunks = SlidingChunker(size=120, overlap=30).split(doc)
    words = set(LOREM.split())
    for c in chunks:
        assert len(c.text) <= 120
        for w in c.text.split():
            assert w in words, f"cut word {w!r}"
    # consecutive windows overlap
    for a, b in itertools.pairwise(chunks):
        assert b.spans[0].start < a.spans[-1].end


def test_sliding_covers_all_text():
    doc = make_doc(LOREM)
    chunks = SlidingChunker(size=200, overlap=0).split(doc)
    covered = "".join(c.text + " " for c in chunks)
    assert covered.split() == LOREM.split()


def test_sliding_giant_word_is_cut_at_the_window():
    word = "x" * 700
    doc = make_doc(f"start {word} end")
    chunks = SlidingChunker(size=100, overlap=10).split(doc)
    assert all(len(c.text) <= 100 for c in chunks)
    covered = "".join(c.text for c in chunks)
    assert covered.count("x") >= 700  # every character of the word is in some chunk (overlap repeats)
    assert_spans_match(doc, chunks)


def test_sliding_unicode():
    text = "Grüße aus Zürich — naïve café. 日本語のテキストも大丈夫です。 " * 30
    doc = make_doc(text)
    chunks = SlidingChunker(size=80, overlap=20).split(doc)
    assert chunks
    assert_spans_match(doc, chunks)
    assert all(w in text.split() for c in chunks for w in c.text.split())


def test_sliding_chunk_spanning_pages_has_both_pages():
    doc = make_doc("alpha " * 30, "beta " * 30)
    chunks = SlidingChunker(size=100, overlap=0).split(doc)
    spanning = [c for c in chunks if c.pages == (1, 2)]
    assert spanning, [c.pages for c in chunks]
    assert_spans_match(doc, spanning)


@pytest.mark.parametrize(
    "config",
    [dict(size=0), dict(size=100, overlap=100), dict(size=100, overlap=-1)],
)
def test_sliding_rejects_bad_config(config):
    with pytest.raises(ConfigError):
        SlidingChunker(**config)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("This works, e.g. for tests. Next one.", ["This works, e.g. for tests.", "Next one."]),
        ("See Fig. 3 for details. It shows a curve.", ["See Fig. 3 for details.", "It shows a curve."]),
        (
            "Made in the U.S. by Smith et al. in 2020. Done.",
            ["Made in the U.S. by Smith et al. in 2020.", "Done."],
        ),
        ("Pi is 3.14159 roughly. Tau is 6.28.", ["Pi is 3.14159 roughly.", "Tau is 6.28."]),
        ("Dr. Jones met J. Smith. They talked!", ["Dr. Jones met J. Smith.", "They talked!"]),
        ("Is it? Yes. “Quoted.” Then more.", ["Is it?", "Yes.", "“Quoted.”", "Then more."]),
        ("No final punctuation", ["No final punctuation"]),
    ],
)
def test_sentence_splitter(text, expected):
    assert [text[s:e] for s, e in sentences(text)] == expected


def test_sentence_windows_and_overlap():
    para = " ".join(f"Sentence number {i} is here." for i in range(7))
    doc = make_doc(para)
    chunks = SentenceChunker(n=3).split(doc)
    assert [c.text.count("Sentence") for c in chunks] == [3, 3, 1]
    over = SentenceChunker(n=3, overlap=1).split(doc)
    assert [c.text.count("Sentence") for c in over] == [3, 3, 3]
    assert over[0].text.endswith("Sentence number 2 is here.")
    assert over[1].text.startswith("Sentence number 2 is here.")


def test_sentence_windows_stay_inside_paragraphs():
    doc = make_doc("One. Two.\n\nThree. Four. Five. Six.")
    chunks = SentenceChunker(n=3).split(doc)
    assert [c.text for c in chunks] == ["One. Two.", "Three. Four. Five.", "Six."]


def test_sentence_giant_paragraph_without_punctuation_is_capped():
    text = "word " * 5000  # 25,000 characters, one "sentence"
    chunks = SentenceChunker(n=3).split(make_doc(text))
    assert len(chunks) > 1 and all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert " ".join(c.text for c in chunks).split() == text.split()  # nothing lost, no word cut


MD = """# Methods

Intro text for the methods section that is long enough to stand alone as a chunk of its own here.

## Retrieval

We use BM25 and dense retrieval, fused with reciprocal rank fusion, as described below in detail.

```python
def fuse(a, b):

    return a + b
```

| k | nDCG |
|---|------|
| 10 | 0.66 |

Short.

---

# Results

## Empty heading

## Numbers

The numbers are in the table above and they are good enough for a paper, we think, honestly.
"""


def test_markdown_heading_paths_and_whole_blocks():
    doc = make_doc(MD, source="notes.md")
    chunks = MarkdownChunker(min_chars=40).split(doc)
    by_text = {c.text: c for c in chunks}
    assert chunks[0].heading_path == ("Methods",)
    assert chunks[0].text.startswith("# Methods")
    fence = next(c for c in chunks if "```python" in c.text)
    assert "def fuse(a, b):\n\n    return a + b\n```" in fence.text  # blank line inside the fence kept
    assert fence.heading_path == ("Methods", "Retrieval")
    table = next(c for c in chunks if "| k | nDCG |" in c.text)
    assert "| 10 | 0.66 |" in table.text  # rows never split
    # "Short." is under min_chars: merged into a neighbour, never alone
    assert "Short." not in by_text
    last = chunks[-1]
    assert last.heading_path == ("Results", "Numbers")
    assert "## Empty heading" in last.text  # a heading with no body joins the next section
    assert_spans_match(doc, chunks)


def test_markdown_min_chars_merges_small_pieces():
    text = "# H\n\n" + "\n\n".join(f"Para {i}." for i in range(6))
    few = MarkdownChunker(min_chars=100).split(make_doc(text))
    many = MarkdownChunker(min_chars=0).split(make_doc(text))
    assert len(few) == 1 and len(many) == 6


def test_markdown_headings_without_body():
    chunks = MarkdownChunker().split(make_doc("# A\n\n## B\n\n### C\n"))
    assert len(chunks) == 1 and chunks[0].text == "# A\n\n## B\n\n### C"


def test_markdown_giant_paragraph_is_windowed_but_table_is_not():
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | {i * i} |" for i in range(200))
    text = "# T\n\n" + LOREM + "\n\n" + table
    chunks = MarkdownChunker(max_chars=1000).split(make_doc(text))
    prose = [c for c in chunks if "Retrieval" in c.text]
    assert len(prose) > 1 and all(len(c.text) <= 1000 for c in prose)
    tables = [c for c in chunks if c.text.startswith("| a | b |")]
    assert len(tables) == 1 and tables[0].text.endswith("| 199 | 39601 |")


def test_markdown_table_over_the_cap_is_split_between_rows_with_its_header():
    table = "| state | total |\n|---|---|\n" + "\n".join(f"| S{i} | {i * 7} |" for i in range(900))
    doc = make_doc("# Checks\n\n" + table)
    chunks = MarkdownChunker().split(doc)
    pieces = [c for c in chunks if "| S" in c.text]
    assert len(pieces) > 1
    assert pieces[0].text.startswith("# Checks\n\n| state | total |\n|---|---|\n")
    for c in pieces:
        body = c.text.removeprefix("# Checks\n\n")
        assert body.startswith("| state | total |\n|---|---|\n")
        assert len(c.text) <= MAX_CHUNK_CHARS + 40
        rows = body.splitlines()[2:]
        assert all(re.fullmatch(r"\| S\d+ \| \d+ \|", r) for r in rows), rows[:3]  # whole rows only
    assert sum(len(c.text.removeprefix("# Checks\n\n").splitlines()) - 2 for c in pieces) == 900
    assert_spans_match(doc, pieces)


@pytest.mark.parametrize("name", ["sliding", "sentence"])
def test_split_tables_keep_their_header_in_every_chunk(name):
    table = "| State | Permit | Total |\n|---|---|---|\n" + "\n".join(
        f"| State{i} | {i * 3} | {i * 11} |" for i in range(60)
    )
    doc = make_doc("Background checks by state.\n\n" + table)
    chunker = SlidingChunker(size=200, overlap=0) if name == "sliding" else SentenceChunker(n=5)
    chunks = [c for c in chunker.split(doc) if re.search(r"\| State\d", c.text)]
    assert len(chunks) > 3
    assert all("| State | Permit | Total |\n|---|---|---|" in c.text for c in chunks)
    assert all(c.text.startswith("| State | Permit | Total |") for c in chunks if "Background" not in c.text)
    assert_spans_match(doc, chunks)
    assert any("| State59 | 177 | 649 |" in c.text for c in chunks)


def test_markdown_unicode_headings():
    chunks = MarkdownChunker(min_chars=0).split(make_doc("# Résumé 日本\n\nTexte complet ici."))
    assert chunks[0].heading == "Résumé 日本"


def test_registry_lists_and_rejects():
    assert CHUNKERS.names() == ["sliding", "sentence", "markdown"]
    with pytest.raises(ConfigError, match="sliding, sentence, markdown"):
        make_chunker("semantic")
    with pytest.raises(ConfigError, match="valid settings: size, overlap"):
        make_chunker("sliding", window=3)


def test_spec_round_trip():
    c = SentenceChunker(n=4, overlap=1)
    again = chunker_from_spec(c.spec())
    assert again.spec() == c.spec() and again.key() == c.key()
    assert re.fullmatch(r"[0-9a-f]{8}", c.key())


def test_code_blocks_are_kept_whole_as_their_own_chunks():
    md = (
        "# Reading files\n\nHow do I read a whole file in Python?\n\n```python\nwith open(p) as f:\n\n"
        "    text = f.read()\n```\n\nShort note.\n\n"
        "<pre><code>cat notes.txt\n\nhead -n 5 notes.txt</code></pre>\n"
    )
    chunks = MarkdownChunker(min_chars=200, separate_code=True).split(make_doc(md))
    code = [c.text for c in chunks if "open(p)" in c.text or "cat notes" in c.text]
    assert code == ["```python\nwith open(p) as f:\n\n    text = f.read()\n```",
                    "<pre><code>cat notes.txt\n\nhead -n 5 notes.txt</code></pre>"]  # fmt: skip
    merged = MarkdownChunker(min_chars=200).split(make_doc(md))
    assert len(merged) < len(chunks)  # without the option, short code merges with prose
    assert MarkdownChunker().spec() == {"name": "markdown", "config": {"min_chars": 100, "max_chars": 2000}}


def test_markdown_windows_overlap_when_asked():
    text = "# T\n\n" + " ".join(f"w{i}" for i in range(400))
    chunks = MarkdownChunker(max_chars=300, overlap=60).split(make_doc(text))
    assert len(chunks) > 2
    assert chunks[1].text.split()[0] in chunks[0].text  # the second window starts inside the first
