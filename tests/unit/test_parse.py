"""Ingestion of PDF/TXT/MD: pages, hashes, tables, and every bad-input case with a clear error."""

from __future__ import annotations

import hashlib

import pymupdf
import pytest

from ragkit.core.errors import DocumentError
from ragkit.index.inputs import ParseStream, expand_inputs
from ragkit.ingestion.parse import load_document, parse_bytes
from ragkit.ingestion.tables import table_to_markdown


def make_pdf(pages: list[str], **save_kwargs) -> bytes:
    """A real PDF written by PyMuPDF, one text page per entry ("" gives a blank page)."""
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        if text:
            page.insert_textbox(pymupdf.Rect(72, 72, 540, 760), text, fontsize=11)
    data = doc.tobytes(**save_kwargs)
    doc.close()
    return data


def test_text_file_is_one_page_with_hash(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes(b"hello\r\nworld\n")
    doc = load_document(p)
    assert doc.source == "notes.txt" and doc.kind == "txt"
    assert [pg.number for pg in doc.pages] == [1]
    assert doc.pages[0].text == "hello\nworld\n"  # CRLF normalised
    assert doc.sha256 == hashlib.sha256(b"hello\r\nworld\n").hexdigest()
    assert doc.doc_id == doc.sha256[:16]
    assert doc.encoding == "utf-8" and not doc.warnings


def test_markdown_file_kind():
    assert parse_bytes("README.md", b"# Title\n\nBody").kind == "md"


def test_utf8_bom_is_stripped():
    assert parse_bytes("a.txt", "\ufeffcafé".encode("utf-8")).pages[0].text == "café"


def test_non_utf8_text_is_decoded_and_says_so():
    raw = ("Les élèves étudient à l'école. Très bien — naïve café. " * 5).encode("cp1252")
    doc = parse_bytes("french.txt", raw)
    assert "élèves" in doc.pages[0].text and "café" in doc.pages[0].text
    assert doc.encoding and doc.encoding.lower().replace("-", "") != "utf8"
    assert any("not valid UTF-8" in w and doc.encoding in w for w in doc.warnings)


def test_cyrillic_legacy_encoding_is_detected():
    doc = parse_bytes("ru.txt", ("Привет, как дела? Всё хорошо. " * 5).encode("cp1251"))
    assert "Всё хорошо" in doc.pages[0].text and doc.encoding == "cp1251"


def test_binary_named_txt_is_rejected():
    with pytest.raises(DocumentError, match=r"image\.txt: .*binary data"):
        parse_bytes("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))


def test_empty_file_is_rejected(tmp_path):
    p = tmp_path / "empty.md"
    p.write_bytes(b"")
    with pytest.raises(DocumentError, match=r"empty\.md: the file is empty"):
        load_document(p)


def test_whitespace_only_text_warns():
    doc = parse_bytes("blank.txt", b"  \n\n  ")
    assert any("only whitespace" in w for w in doc.warnings)


def test_unsupported_extension():
    with pytest.raises(DocumentError, match=r"slides\.pptx: unsupported file type \.pptx"):
        parse_bytes("slides.pptx", b"PK\x03\x04")
    with pytest.raises(DocumentError, match=r"Makefile: unsupported file type \(no extension\)"):
        parse_bytes("Makefile", b"all:")


def test_size_limit_checked_before_reading(tmp_path):
    p = tmp_path / "big.txt"
    with open(p, "wb") as f:  # sparse: 3 MB on paper, nothing read
        f.truncate(3 * 1024 * 1024)
    with pytest.raises(DocumentError, match=r"big\.txt: the file is 3\.0 MB, over the 2 MB size limit"):
        load_document(p, max_mb=2)


def test_missing_file(tmp_path):
    with pytest.raises(DocumentError, match=r"gone\.txt: cannot be read"):
        load_document(tmp_path / "gone.txt")


def test_pdf_pages_and_empty_page_warning():
    data = make_pdf(["First page about retrieval.", "", "Third page about generation."])
    doc = parse_bytes("paper.pdf", data)
    assert doc.kind == "pdf" and [p.number for p in doc.pages] == [1, 2, 3]
    assert "retrieval" in doc.pages[0].text and "generation" in doc.pages[2].text
    assert doc.empty_pages == [2]
    assert "page 2 has no extractable text — scanned image?" in doc.warnings


def test_password_protected_pdf():
    data = make_pdf(["secret"], encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    with pytest.raises(DocumentError, match=r"locked\.pdf: the PDF is password-protected"):
        parse_bytes("locked.pdf", data)


@pytest.mark.parametrize("data", [b"%PDF-1.7\ngarbage", b"not a pdf at all", bytes(range(256)) * 8])
def test_corrupt_pdf(data):
    with pytest.raises(DocumentError, match=r"bad\.pdf: not a readable PDF — corrupt or truncated"):
        parse_bytes("bad.pdf", data)


@pytest.mark.parametrize("fraction", [0.3, 0.6, 0.95])
def test_truncated_pdf(fraction):
    data = make_pdf([f"Page {i} text. " * 40 for i in range(6)])
    cut = data[: int(len(data) * fraction)]
    with pytest.raises(DocumentError, match=r"cut\.pdf: .*(truncated|no pages)"):
        parse_bytes("cut.pdf", cut)


def test_batch_goes_on_after_bad_files(tmp_path):
    good = tmp_path / "good.txt"
    good.write_text("fine")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "x.docx").write_bytes(b"PK")
    inputs, missing = expand_inputs([tmp_path / n for n in ("empty.txt", "x.docx", "good.txt")])
    with ParseStream(inputs) as stream:  # parsed in the worker
        results = {p.name: p.item for p in stream}
    assert missing == []
    assert isinstance(results["empty.txt"], DocumentError)
    assert isinstance(results["x.docx"], DocumentError)
    assert results["good.txt"].pages[0].text == "fine"


def test_table_to_markdown():
    md = table_to_markdown([["State", "Count"], ["Alabama\nAlaska", "10\n20"], [None, None], ["A|B", "3"]])
    assert md.splitlines() == [
        "| State | Count |",
        "|---|---|",
        "| Alabama | 10 |",
        "| Alaska | 20 |",
        "| A\\|B | 3 |",
    ]
    assert table_to_markdown([["only one column"], ["x"]]) == ""
    assert table_to_markdown([]) == ""


def test_form_feeds_separate_the_pages_of_a_text_file():
    """An RFC-style text: pages end with a form feed; page numbers are kept, empty ones included, and a
    final form feed starts no page."""
    text = "Page one.\n\f\nPage two, the protocol.\n\f\f\nPage four.\n\f"
    doc = parse_bytes("rfc.txt", text.encode())
    assert [p.number for p in doc.pages] == [1, 2, 3, 4]
    assert "protocol" in doc.pages[1].text and doc.pages[2].text == "" and "four" in doc.pages[3].text
    assert all("\f" not in p.text for p in doc.pages)
    assert len(parse_bytes("plain.txt", b"No form feed here.").pages) == 1


def test_markdown_tables_are_counted_outside_code_fences():
    md = (
        "# Options\n\n| flag | meaning |\n|---|---|\n| -v | verbose |\n\n"
        "Right-aligned:\n\nname | size\n:--- | ---:\nx | 1\n\n"
        "```\n| not | a table |\n|---|---|\n```\n\nA line with a | pipe.\n"
    )
    doc = parse_bytes("README.md", md.encode())
    assert doc.n_tables == 2
