"""Unit tests of :mod:`ragkit.pipeline.citations`."""

from __future__ import annotations

from ragkit.app.presentation import answer_html
from ragkit.pipeline.citations import parse_citations, renumber


def test_citations_are_renumbered_in_the_order_cited():
    text, mapping = renumber("Typewriter [3]. QWERTY [5]. Both [3, 5]. Nothing [9].", 5)
    assert text == "Typewriter [1]. QWERTY [2]. Both [1, 2]. Nothing [9]." and mapping == {3: 1, 5: 2}
    html, _ = answer_html("See [3].", 5, "turn 1")
    assert '<a class="rk-ref" href="#cite-turn-1-1">[1]</a>' in html


def test_citations_are_parsed_in_every_style():
    urls = ["a.pdf#page=3", "https://ex.org/b", "c.md#page=1"]
    assert parse_citations("As [2] and [1, 3] say.", 3).valid == (2, 1, 3)
    assert parse_citations("Context 2 shows it; see also context 3.", 3, "context-i").valid == (2, 3)
    xml = parse_citations('Per [the guide](https://ex.org/b) and <source id="3">.', 3, "xml", urls)
    assert xml.valid == (2, 3)
    assert parse_citations("[ok](https://elsewhere.org)", 3, "xml", urls).uncited
