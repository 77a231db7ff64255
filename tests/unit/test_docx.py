"""Unit tests of :mod:`ragkit.ingestion.docx`."""

from __future__ import annotations

import io

import pytest

from ragkit.core.errors import DocumentError
from ragkit.ingestion.parse import parse_bytes
from tests.web_servers import PageServer


@pytest.fixture(scope="module")
def pages():
    with PageServer(slow_s=2.0) as srv:
        yield srv


def test_a_broken_docx_is_a_clear_error():
    with pytest.raises(DocumentError, match=r"broken\.docx: not a readable \.docx file"):
        parse_bytes("broken.docx", b"PK\x03\x04 not really a zip")


def test_docx_from_bytes_keeps_headings_lists_and_tables():
    import docx

    d = docx.Document()
    d.add_heading("Plan", level=1)
    d.add_heading("Week one", level=2)
    d.add_paragraph("Buy clay", style="List Bullet")
    d.add_paragraph("Fire the kiln.")
    buf = io.BytesIO()
    d.save(buf)
    doc = parse_bytes("plan.docx", buf.getvalue())
    assert doc.pages[0].text == "# Plan\n\n## Week one\n\n- Buy clay\n\nFire the kiln."


def test_docx_tables_are_counted():
    import docx

    d = docx.Document()
    d.add_paragraph("Two tables follow.")
    for rows in ([["Room", "Opens"], ["Lab", "8:00"]], [["Kiln", "Temp"], ["A", "1200"], ["B", "1100"]]):
        t = d.add_table(rows=len(rows), cols=2)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    buf = io.BytesIO()
    d.save(buf)
    doc = parse_bytes("rooms.docx", buf.getvalue())
    assert doc.n_tables == 2 and "| Lab | 8:00 |" in doc.pages[0].text
