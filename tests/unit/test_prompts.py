"""Unit tests of :mod:`ragkit.pipeline.prompts`."""

from __future__ import annotations

import pytest

from ragkit.core.errors import ConfigError
from ragkit.core.types import Chunk, Hit, Span
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.prompts import format_sources, grounded_messages, is_fallback, templates_for


def hit(n: int, text: str = "Some text.", source: str = "a.pdf", url: str | None = None) -> Hit:
    meta = {"url": url} if url else {}
    chunk = Chunk(f"c{n}", "d", source, n, text, (Span(3, 0, 4),), (), meta)
    return Hit(chunk, n, 1.0 / n, "dense", {"dense": 0.9 - n / 10}, {"dense": n}, 0.6)


def test_every_prompt_style_renders_its_sources_block():
    hits = [hit(1, "Alpha text."), hit(2, "Beta text.", url="https://ex.org/b")]
    assert format_sources(hits, "numbered").startswith("[1] a.pdf p.3\nAlpha text.")
    assert format_sources(hits, "plain") == "Alpha text.\n\nBeta text."
    assert (
        format_sources(hits, "context-i")
        == "Context 1:\n'''\nAlpha text.\n'''\n\nContext 2:\n'''\nBeta text.\n'''"
    )
    xml = format_sources(hits, "xml")
    assert '<source id="1" url="a.pdf#page=3" relevance="' in xml
    assert '<source id="2" url="https://ex.org/b"' in xml and xml.count("</source>") == 2
    fallback = "I don’t know based on the provided context."
    msgs = grounded_messages("Why?", hits, (), templates_for("plain", fallback=fallback))
    assert fallback in msgs[0].content and msgs[1].content.startswith("Context:\nAlpha text.")
    assert "code example" in grounded_messages("How?", hits, (), templates_for("context-i"))[1].content
    assert "<sources>" in grounded_messages("Why?", hits, (), templates_for("xml"))[1].content


def test_a_template_override_is_validated_and_used():
    template = {"system": "Only facts. Fallback: {fallback}?", "user": "{sources}\n\nQ: {question}"}
    with pytest.raises(ConfigError, match=r"unknown placeholder\(s\) \{fallback\}"):
        PipelineConfig(prompt_template=template)
    with pytest.raises(ConfigError, match=r"must contain \{sources\} and \{question\}"):
        PipelineConfig(prompt_template={"user": "Q: {question}"})
    with pytest.raises(ConfigError, match="unknown parts"):
        PipelineConfig(prompt_template={"assistant": "x"})
    with pytest.raises(ConfigError, match="prompt_style must be one of"):
        PipelineConfig(prompt_style="fancy")
    cfg = PipelineConfig(
        prompt_template={"system": "Be brief.", "user": "{sources}\n\nQ: {question}\n{history}"}
    )
    msgs = grounded_messages(
        "Why?", [hit(1, "Alpha.")], (), templates_for(cfg.prompt_style, cfg.prompt_template)
    )
    assert msgs[0].content == "Be brief." and msgs[1].content.startswith("[1] a.pdf p.3\nAlpha.\n\nQ: Why?")
    assert cfg.cache_key() != PipelineConfig().cache_key()  # the template is part of the hash
    assert PipelineConfig(description="x", reference="y").cache_key() == PipelineConfig().cache_key()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I don’t know based on the provided context.", True),
        ("I DON'T KNOW BASED ON THE PROVIDED CONTEXT", True),
        ('"I don\u2019t know based on the provided context"!', True),
        ("I don't know.", True),
        ("i do not know", True),
        ("I don't know who patented it, but Sholes did [1].", False),
        ("Sholes [1].", False),
        ("", False),
    ],
)
def test_fallback_detection_ignores_apostrophes_case_and_punctuation(text, expected):
    assert is_fallback(text, ("I don’t know based on the provided context.",)) is expected
