"""Unit tests of :mod:`ragkit.ingestion.text`."""

from __future__ import annotations

import pytest

from ragkit.core.errors import DocumentError
from ragkit.ingestion.parse import parse_bytes


def test_utf16_and_utf32_with_bom_are_text():
    for enc, bom in (
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
    ):
        doc = parse_bytes("t.txt", bom + "Grüße aus Zürich".encode(enc))
        assert doc.pages[0].text == "Grüße aus Zürich" and doc.encoding == enc


def test_nul_after_the_first_8kb_is_binary():
    with pytest.raises(
        DocumentError, match=r"late\.txt: the file holds binary data, not text \(a NUL byte at offset 9000"
    ):
        parse_bytes("late.txt", b"a" * 9000 + b"\x00" + b"b" * 10)


def test_mixed_encodings_are_decoded_per_line_and_the_lines_named():
    data = (
        "Grüße, ganz normal.\n".encode() * 3
        + "Caf\xe9 cr\xe8me.\n".encode("cp1252") * 2
        + "Ende ß.\n".encode()
    )
    doc = parse_bytes("mixed.txt", data)
    lines = doc.pages[0].text.splitlines()
    assert lines[0] == "Grüße, ganz normal." and lines[3] == "Café crème." and lines[5] == "Ende ß."
    assert "lines 4–5 are not valid UTF-8" in doc.warnings[0]
