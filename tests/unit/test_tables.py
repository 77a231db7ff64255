"""Unit tests of :mod:`ragkit.ingestion.tables`."""

from __future__ import annotations

from ragkit.ingestion.tables import table_to_markdown


def test_a_table_title_row_becomes_a_caption_above_the_header():
    md = table_to_markdown(
        [["NICS Checks 2015", None, None], ["State", "Permit", "Total"], ["Texas", "1", "2"]]
    )
    assert md.splitlines()[0] == "NICS Checks 2015" and md.splitlines()[2] == "| State | Permit | Total |"
