"""Unit tests of :mod:`ragkit.evaluation.metrics.citations`."""

from __future__ import annotations

import json

import pytest

from ragkit.evaluation.metrics.citations import cited_sentences


@pytest.fixture(scope="module")
def sources():
    return [
        "The Eiffel Tower was completed in 1889. It is 330 metres tall and stands in Paris.",
        "Mount Everest is the highest mountain above sea level, at 8,849 metres, in the Himalayas.",
    ]


@pytest.mark.parametrize(
    ("style", "text", "expected"),
    [
        (
            "numbered",
            "Paris is the capital of France [1]. It lies on the Seine. [2] Yes.",
            [("Paris is the capital of France.", [1]), ("It lies on the Seine.", [2]), ("Yes.", [])],
        ),
        ("numbered", "Both hold [1, 3].", [("Both hold.", [1, 3])]),
        (
            "context-i",
            "As Context 2 says, tides follow the moon.",
            [("As says, tides follow the moon.", [2])],
        ),
        ("xml", 'The moon pulls the sea <source id="1"/>.', [("The moon pulls the sea.", [1])]),
    ],
)
def test_cited_sentences_in_every_prompt_style(style, text, expected):
    got = cited_sentences(text, 5, style)
    assert [(" ".join(s.replace(" .", ".").split()), c) for s, c in got] == expected


def test_citation_check_flags_a_citation_that_does_not_support_its_sentence(sources, embedder):
    from ragkit.evaluation.metrics.citations import check_citations

    good = check_citations("The Eiffel Tower was completed in 1889 [1].", sources, embedder)
    assert good.precision == 1.0 and good.recall == 1.0 and good.unsupported == []
    wrong = check_citations("The Eiffel Tower was completed in 1889 [2].", sources, embedder)
    s = wrong.sentences[0]
    assert wrong.precision == 0.0 and wrong.unsupported == [2] and s.supportable  # [1] would have done
    assert wrong.recall == 0.0  # a supportable sentence without a supporting citation
    mixed = check_citations(
        "The Eiffel Tower is 330 metres tall [1]. Everest is 8,849 metres high [1].", sources, embedder
    )
    assert mixed.precision == pytest.approx(0.5) and mixed.unsupported == [1]
    assert [x.supported_by for x in mixed.sentences] == [[1], []]
    uncited = check_citations("The Eiffel Tower was completed in 1889.", sources, embedder)
    assert uncited.precision is None and uncited.recall == 0.0  # supportable but cites nothing


def test_citation_check_with_a_decider_replaces_the_offline_decision(sources, embedder):
    from ragkit.evaluation.metrics.citations import check_citations

    never = check_citations(
        "The Eiffel Tower was completed in 1889 [1].", sources, embedder, lambda s, c: False
    )
    assert never.method == "llm" and never.precision == 0.0 and never.unsupported == [1]


def test_unsupported_citations_are_marked_where_they_occur(sources, embedder):
    from ragkit.app.presentation import answer_html, renumbered_refs
    from ragkit.evaluation.metrics.citations import (
        CitationCheck,
        check_citations,
        unsupported_markers,
    )

    text = "The Eiffel Tower was completed in 1889 [2]. Everest is 8,849 metres high [2]."
    check = check_citations(text, sources, embedder)
    flags = unsupported_markers(text, check)
    assert flags == [[2], []]  # the same source: wrong for the first sentence, right for the second
    html, mapping = answer_html(text, 2, "k", unsupported=flags)
    assert mapping == {2: 1}  # renumbered in the order cited
    assert html.count('class="rk-ref rk-bad"') == 1 and html.index("rk-bad") < html.index("Everest")
    assert renumbered_refs(check.summary(), mapping).endswith("[1] cited without support.")
    assert "1 of 2 citations support their sentence" in check.summary()
    back = CitationCheck.from_dict(json.loads(json.dumps(check.to_dict())))
    assert unsupported_markers(text, back) == flags and back.precision == check.precision


def test_a_byline_is_its_own_statement_when_no_full_stop_ends_the_title(embedder):
    """A paper's first chunk runs title, names and abstract together without a full stop; the names
    quoted as an answer are supported by the names, not compared with the whole run."""
    from ragkit.evaluation.metrics.citations import pair_scores, supports
    from ragkit.retrievers.analyzer import Analyzer

    chunk = (
        "# **S2ORC: The Semantic Scholar Open Research Corpus** \n\n**Kyle Lo**†∗ **Lucy Lu Wang**†∗ "
        "**Mark Neumann**† \n\n> _†_ Allen Institute for Artificial Intelligence \n\n## **Abstract** \n\n"
        "We introduce S2ORC, a large corpus of 81.1M English-language academic papers."
    )
    assert supports(*pair_scores("Kyle Lo, Lucy Lu Wang, Mark Neumann", chunk, embedder, Analyzer()))
    assert not supports(*pair_scores("Jane Roe, John Doe, Max Moe", chunk, embedder, Analyzer()))


def test_a_table_cited_after_its_last_row_is_one_cited_claim(embedder):
    """An extractive answer's table (a header, and a row of one word) and its "[1]": in a browser session
    the check said the answer "cites no source for any of its claims"."""
    from ragkit.evaluation.metrics.citations import check_citations

    answer = (
        "| Disability Category | Participants | Ballots Completed |\n| --- | --- | --- |\n"
        "| Blind | 5 | 1 |\n| | | complete |\n\n[1]"
    )
    ((claim, cited),) = cited_sentences(answer, 2)
    assert cited == [1] and "Disability Category" in claim and "complete" in claim
    source = "| Disability Category | Participants | Ballots Completed |\n| Blind | 5 | 1 |"
    check = check_citations(answer, [source, "Mount Everest is 8,849 metres high."], embedder)
    assert "cites no source" not in check.summary() and check.sentences[0].cited == [1]
    # two tables with text between them stay two claims
    two = cited_sentences("| A | B |\n| 1 | 2 |\n\nThen the second table [2].\n\n| C | D |\n| 3 | 4 | [1]", 2)
    assert [c for _, c in two] == [[], [2], [1]]
