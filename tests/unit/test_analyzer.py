"""Unit tests of :mod:`ragkit.retrievers.analyzer`."""

from __future__ import annotations

import pytest

from ragkit.core.errors import ConfigError
from ragkit.pipeline.config import PipelineConfig
from ragkit.retrievers.analyzer import Analyzer


def test_a_non_english_analyzer_stems_and_drops_its_stop_words():
    assert Analyzer(language="german")("Die Häuser der Kinder") == ["haus", "kind"]
    assert Analyzer(language="french")("Les maisons des enfants") == ["maison", "enfant"]
    with pytest.raises(ConfigError, match="bm25_language must be one of"):
        PipelineConfig(bm25_language="klingon")
