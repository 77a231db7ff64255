"""Counting what compressed data expands to: every PDF filter decoded as its reference decoder does, in
chains of any order and length, stopped at the cap with bounded memory; a PDF's streams, a DOCX's parts
and an image's declared pixels checked before any parser inflates them."""

from __future__ import annotations

import base64
import io
import random
import tracemalloc
import zlib

import pymupdf
import pytest
from pdfminer.lzw import lzwdecode
from pdfminer.runlength import rldecode

from ragkit.core.errors import DocumentError
from ragkit.ingestion.expansion import decoded_size, image_frames, parse_filters
from ragkit.ingestion.limits import Budget, Limits, check_pdf, check_zip_expansion
from tests.bombs import _one_page, _stream, pdf_bytes, repeat_deflate

DATA = bytes(random.Random(1).randrange(256) for _ in range(60_000)) + bytes(40_000) + b"abc" * 20_000


def lzw_encode(data: bytes) -> bytes:
    """PDF's LZW (early change), as a writer makes it: pdfminer decodes what this writes."""
    table, nxt, width, bits, nbits, out = {bytes([i]): i for i in range(256)}, 258, 9, 0, 0, bytearray()

    def emit(code: int) -> None:
        nonlocal bits, nbits
        bits, nbits = (bits << width) | code, nbits + width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 255)
        bits &= (1 << nbits) - 1

    emit(256)
    w = b""
    for c in data:
        if w + bytes([c]) in table:
            w += bytes([c])
            continue
        emit(table[w])
        table[w + bytes([c])], nxt = nxt, nxt + 1
        if nxt >= 1 << width and width < 12:
            width += 1
        if nxt >= 4094:
            emit(256)
            table, nxt, width = {bytes([i]): i for i in range(256)}, 258, 9
        w = bytes([c])
    emit(table[w])
    emit(257)
    return bytes(out) + (bytes([(bits << (8 - nbits)) & 255]) if nbits else b"")


def run_length(data: bytes) -> bytes:
    out, i = bytearray(), 0
    while i < len(data):
        j = i
        while j < len(data) and j - i < 128 and data[j] == data[i]:
            j += 1
        if j - i > 1:
            out += bytes([257 - (j - i), data[i]])
        else:
            j = min(i + 128, len(data))
            out += bytes([j - i - 1]) + data[i:j]
        i = j
    return bytes(out) + b"\x80"


ENCODERS = {
    "FlateDecode": zlib.compress,
    "LZWDecode": lzw_encode,
    "RunLengthDecode": run_length,
    "ASCIIHexDecode": lambda d: d.hex().encode() + b">",
    "ASCII85Decode": lambda d: base64.a85encode(d, wrapcol=76) + b"~>",
}


@pytest.mark.parametrize("name", sorted(ENCODERS))
def test_each_filter_decodes_as_its_reference_decoder_does(name):
    encoded = ENCODERS[name](DATA)
    assert decoded_size(encoded, [name], 10**9) == len(DATA)
    assert decoded_size(encoded, [name], len(DATA) - 1) is None
    if name == "LZWDecode":
        assert lzwdecode(encoded) == DATA  # the encoder above is the real format
    if name == "RunLengthDecode":
        assert rldecode(encoded) == DATA


def test_chains_of_any_order_and_length_are_counted_whole():
    rng = random.Random(4)
    for _ in range(6):
        chain = [rng.choice(sorted(ENCODERS)) for _ in range(rng.randint(2, 4))]
        encoded = DATA
        for name in reversed(chain):  # the first filter listed is the first to decode
            encoded = ENCODERS[name](encoded)
        assert decoded_size(encoded, chain, 10**9) == len(DATA), chain
    assert decoded_size(zlib.compress(DATA), ["FlateDecode", "DCTDecode"], 10**9) == len(DATA)  # up to images
    assert parse_filters("[/A85 /FlateDecode]") == ["A85", "FlateDecode"] and parse_filters("") == []


def test_a_300_mb_double_flate_stream_is_stopped_at_the_cap_with_bounded_memory():
    bomb = zlib.compress(repeat_deflate(b"BT (x) Tj ET\n" * 50_000, 500))  # 310 MB from a few KB
    tracemalloc.start()
    assert decoded_size(bomb, ["FlateDecode", "FlateDecode"], 64 * 2**20) is None
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 * 2**20, f"counting held {peak / 2**20:.0f} MB"


def test_a_pdf_stream_bomb_in_a_form_is_refused_and_a_real_pdf_passes(evaldata):
    raw = zlib.compress(zlib.compress(b"0 0 m 1 1 l S\n" * 6_000_000)).hex().encode() + b">"
    objs = _one_page(_stream(b"q /X1 Do Q"))
    objs.append(_stream(raw, b"/Type/XObject/Subtype/Form/BBox[0 0 9 9]/Filter[/AHx /Fl /Fl]"))
    doc = pymupdf.open(stream=pdf_bytes(objs), filetype="pdf")
    with pytest.raises(
        DocumentError, match=r"^x\.pdf: its form object 6 \(filters AHx Fl Fl\) expands to more"
    ):
        check_pdf("x.pdf", doc, Budget("x.pdf", Limits(text_mb=64)))
    real = pymupdf.open(evaldata / "pdfs" / "acl2020_s2orc_2020.acl-main.447.pdf")
    budget = Budget("paper.pdf", Limits())
    check_pdf("paper.pdf", real, budget)
    assert budget.streams and all(size >= 0 for size in budget.streams.values())
    with pytest.raises(DocumentError, match=r"has 15 pages, over the 10-page cap \(RAGKIT_MAX_PAGES\)"):
        check_pdf("paper.pdf", real, Budget("paper.pdf", Limits(pages=10)))


def test_every_part_of_a_docx_counts_against_the_total():
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", b"<w:document/>")
        z.writestr("word/media/x.png", bytes(3 * 2**20))  # not XML, reached only through a relationship
    check_zip_expansion("ok.docx", buf.getvalue(), Limits(expanded_mb=4))
    over = r"^big\.docx: expands to more than 2 MB \(3 MB declared by its 2 parts, the largest word/media/x"
    with pytest.raises(DocumentError, match=over):
        check_zip_expansion("big.docx", buf.getvalue(), Limits(expanded_mb=2))


def test_image_frames_are_read_from_headers_alone():
    page = pymupdf.open().new_page(width=200, height=100)
    pix = page.get_pixmap(dpi=144)
    assert image_frames(pix.tobytes("png")) == [(400, 200, 3)]
    assert image_frames(pix.tobytes("jpg")) == [(400, 200, 3)]
    assert image_frames(b"GIF89a") == [] and image_frames(b"\x89PNG\r\n\x1a\n") == []
