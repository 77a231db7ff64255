"""The expansion corpus: small files that expand to gigabytes, loop or never end, generated on demand
(nothing binary is committed). Each generator streams what it writes, so making a 1.5 GB bomb needs no
memory; ``CORPUS`` names every case and what ``ragkit ingest`` must answer for it (issue 42).

By hand: ``python -m tests.bombs /tmp/bombs`` writes them all, then
``/usr/bin/time -f %M python -m ragkit ingest --json --index /tmp/i /tmp/bombs/* good.txt``.
"""

from __future__ import annotations

import io
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MB = 1024 * 1024
OP = b"BT /F1 10 Tf 72 720 Td (Padding words repeat without end.) Tj ET\n"


def pdf_bytes(objects: list[bytes], root: int = 1) -> bytes:
    """A PDF of ``objects`` (object ``i + 1`` is ``objects[i]``) with a correct cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<</Size %d/Root %d 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, root, xref)
    return bytes(out)


def _stream(raw: bytes, filters: bytes = b"") -> bytes:
    return b"<</Length %d%s>>\nstream\n%s\nendstream" % (len(raw), filters, raw)


def _one_page(contents: bytes, box: bytes = b"0 0 612 792") -> list[bytes]:
    return [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[%s]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>" % box,
        contents,
        b"<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
    ]


def repeat_deflate(block: bytes, times: int, wbits: int = 15) -> bytes:
    """``block`` × ``times`` deflated (zlib with ``wbits`` 15, raw with -15) in an instant: each block is
    flushed to a byte boundary with a fresh window, so its compressed form is the same every time and is
    written once and repeated; then an empty final block and, for zlib, the Adler-32 of it all."""
    z = zlib.compressobj(9, zlib.DEFLATED, wbits)
    head = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    body = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    data = head + body * (times - 1) + b"\x03\x00"
    if wbits > 0:
        check = 1
        for _ in range(times):
            check = zlib.adler32(block, check)
        data += check.to_bytes(4, "big")
    return data


def _ops(mb: int) -> bytes:
    """``mb`` MB of text operators, doubly deflated (a few KB)."""
    block = OP * 10_000
    return zlib.compress(repeat_deflate(block, mb * MB // len(block)), 9)


def double_flate_pdf(path: Path, mb: int = 300) -> Path:
    """The issue's 2.4 KB PDF: one content stream behind ``[/FlateDecode /FlateDecode]`` inflating to
    ``mb`` MB of text operators."""
    path.write_bytes(pdf_bytes(_one_page(_stream(_ops(mb), b"/Filter[/FlateDecode /FlateDecode]"))))
    return path


def chained_form_pdf(path: Path, mb: int = 300) -> Path:
    """A Form XObject (not the page's own contents) behind ``[/ASCIIHexDecode /FlateDecode /FlateDecode]``:
    filters in another order and another kind of stream."""
    raw = _ops(mb).hex().encode() + b">"
    objs = _one_page(_stream(b"q /X1 Do Q"))
    objs[2] = objs[2].replace(b"/Font<</F1 5 0 R>>", b"/Font<</F1 5 0 R>>/XObject<</X1 6 0 R>>")
    objs.append(
        b"<</Type/XObject/Subtype/Form/BBox[0 0 612 792]/Resources<</Font<</F1 5 0 R>>>>/Length %d"
        b"/Filter[/ASCIIHexDecode /FlateDecode /FlateDecode]>>\nstream\n%s\nendstream" % (len(raw), raw)
    )
    path.write_bytes(pdf_bytes(objs))
    return path


def giant_page_pdf(path: Path, points: int = 7200) -> Path:
    """The issue's 666-byte PDF: one blank ``points`` × ``points`` pt page with no text, which OCR would
    render at 300 dpi (30,000 × 30,000 pixels)."""
    path.write_bytes(pdf_bytes(_one_page(_stream(b""), b"0 0 %d %d" % (points, points))))
    return path


def many_pages_pdf(path: Path, pages: int = 100_000) -> Path:
    """``pages`` tiny pages sharing one content stream (a few MB on disk)."""
    kids = b" ".join(b"%d 0 R" % (4 + i) for i in range(pages))
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[%s]/Count %d>>" % (kids, pages),
        _stream(b"BT /F1 4 Tf 1 1 Td (p) Tj ET"),
    ]
    page = b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 10 10]/Contents 3 0 R>>"
    objs += [page] * pages
    path.write_bytes(pdf_bytes(objs))
    return path


def looping_tree_pdf(path: Path) -> Path:
    """A page tree whose inner node lists itself and the root among its kids (a cycle), and claims a
    million pages."""
    objs = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R 2 0 R]/Count 1000000>>",
        b"<</Type/Pages/Parent 2 0 R/Kids[3 0 R 4 0 R 2 0 R]/Count 999999>>",
        b"<</Type/Page/Parent 3 0 R/MediaBox[0 0 612 792]/Contents 5 0 R>>",
        _stream(b"BT /F1 10 Tf 72 720 Td (loop) Tj ET"),
    ]
    path.write_bytes(pdf_bytes(objs))
    return path


def glyph_storm_pdf(path: Path, glyphs: int = 50_000) -> Path:
    """A 2 KB PDF whose one page draws ``glyphs`` tiny text runs (900 KB of operators, far under every
    expansion cap): parsing it in-process took 35 s and 1.4 GB. Only the worker's caps stop it."""
    ops = b"BT /F1 1 Tf " + b"0.01 0 Td (ab) Tj\n" * glyphs + b"ET"
    path.write_bytes(pdf_bytes(_one_page(_stream(zlib.compress(ops, 9), b"/Filter/FlateDecode"))))
    return path


def pixel_flood_png(path: Path, side: int = 40_000) -> Path:
    """A 1.6 MB grey PNG that declares ``side`` × ``side`` pixels (1.6 GB decoded), all zero."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = (b"\x00" + bytes(side)) * 25  # each row: filter byte 0, then its pixels
    header = struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)
    idat = repeat_deflate(rows, side // 25)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
    )
    return path


def _seed_docx() -> dict[str, bytes]:
    import docx

    buf = io.BytesIO()
    d = docx.Document()
    d.add_paragraph("A handbook whose picture is a bomb.")
    d.save(buf)
    with zipfile.ZipFile(buf) as z:
        return {i.filename: z.read(i.filename) for i in z.infolist()}


def _member(name: str, data: bytes) -> tuple[str, bytes, int, int]:
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    return name, z.compress(data) + z.flush(), zlib.crc32(data), len(data)


def _zeros(name: str, mb: int) -> tuple[str, bytes, int, int]:
    """A member of ``mb`` MB of zeros, deflated in an instant (about 1 KB a MB)."""
    crc, block = 0, bytes(MB)
    for _ in range(mb):
        crc = zlib.crc32(block, crc)
    return name, repeat_deflate(block, mb, -15), crc, mb * MB


def zip_bytes(members: list[tuple[str, bytes, int, int]]) -> bytes:
    """A ZIP of deflated ``(name, deflated, crc32, size)`` members (sizes under 4 GB)."""
    out, central = bytearray(), bytearray()
    for name, data, crc, size in members:
        raw = name.encode()
        fields = struct.pack("<HHHHHIII", 20, 0, 8, 0, 0x21, crc, len(data), size)
        central += b"PK\x01\x02" + struct.pack("<H", 20) + fields
        central += struct.pack("<HHHHHII", len(raw), 0, 0, 0, 0, 0, len(out)) + raw
        out += b"PK\x03\x04" + fields + struct.pack("<HH", len(raw), 0) + raw + data
    n = len(members)
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, n, n, len(central), len(out), 0)
    return bytes(out + central + end)


def linked_part_docx(path: Path, mb: int = 1536) -> Path:
    """The issue's 1.6 MB DOCX: its document's relationships link ``word/media/x.png``, a part of ``mb`` MB
    of zeros that python-docx reads whole (only ``.xml``/``.rels`` parts were counted)."""
    parts = _seed_docx()
    rel = (b'<Relationship Id="rIdBomb" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
           b'relationships/image" Target="media/x.png"/></Relationships>')  # fmt: skip
    rels = "word/_rels/document.xml.rels"
    parts[rels] = parts[rels].replace(b"</Relationships>", rel)
    types = "[Content_Types].xml"
    png = b'<Default Extension="png" ContentType="image/png"/><Default '
    parts[types] = parts[types].replace(b"<Default ", png, 1)
    path.write_bytes(zip_bytes([*(_member(n, d) for n, d in parts.items()), _zeros("word/media/x.png", mb)]))
    return path


def nested_zip_docx(path: Path, depth: int = 6) -> Path:
    """A DOCX whose embedded object is a ZIP of a ZIP of … ``depth`` deep, the innermost a 256 MB part of
    zeros: a parser that opened parts recursively would inflate them all."""
    data = zip_bytes([_zeros("zeros.bin", 256)])
    for level in range(depth):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(f"level{level}.zip", data)
            z.writestr(f"level{level}b.zip", data)  # each level doubles what a recursive reader inflates
        data = buf.getvalue()
    parts = _seed_docx()
    rel = (b'<Relationship Id="rIdNest" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
           b'relationships/package" Target="embeddings/nested.zip"/></Relationships>')  # fmt: skip
    rels = "word/_rels/document.xml.rels"
    parts[rels] = parts[rels].replace(b"</Relationships>", rel)
    parts["word/embeddings/nested.zip"] = data
    types = "[Content_Types].xml"
    zipped = b'<Default Extension="zip" ContentType="application/zip"/><Default '
    parts[types] = parts[types].replace(b"<Default ", zipped, 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, blob in parts.items():
            z.writestr(name, blob)
    return path


def overlapping_zip_docx(path: Path, entries: int = 2000) -> Path:
    """A DOCX whose central directory lists ``entries`` more parts that all point at one 1 MB deflated
    kernel (the "overlapping files" zip bomb): each declares the kernel's full size."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, blob in _seed_docx().items():
            z.writestr(name, blob)
        z.writestr("word/media/kernel.bin", bytes(MB))
    raw = buf.getvalue()
    eocd = raw.rfind(b"PK\x05\x06")
    cd_offset = int.from_bytes(raw[eocd + 16 : eocd + 20], "little")
    central = raw[cd_offset:eocd]
    at = central.rfind(b"PK\x01\x02")  # the kernel's entry, written last
    fixed = bytearray(central[at : at + 46])
    fixed[30:34] = bytes(4)  # no extra field, no comment
    copies = b""
    for n in range(entries):
        name = f"word/media/k{n:05d}.bin".encode()
        fixed[28:30] = len(name).to_bytes(2, "little")
        copies += bytes(fixed) + name
    end = bytearray(raw[eocd:])
    count = len(raw[cd_offset:eocd].split(b"PK\x01\x02")) - 1 + entries
    end[8:10] = end[10:12] = count.to_bytes(2, "little")
    end[12:16] = (len(central) + len(copies)).to_bytes(4, "little")
    path.write_bytes(raw[:eocd] + copies + bytes(end))
    return path


def nested_html(path: Path, mb: int = 49) -> Path:
    """An HTML page of ``mb`` MB of nested tags (``<div><span>…`` never closed), just under the 50 MB file
    cap."""
    with open(path, "wb") as f:
        f.write(b"<!doctype html><html><head><title>deep</title></head><body><p>Deep page.</p>")
        block = b"<div><span><b><i>" * (MB // 18)
        for _ in range(mb):
            f.write(block)
        f.write(b"</body></html>")
    return path


def one_line_text(path: Path, mb: int = 200) -> Path:
    """A text file of one ``mb`` MB line with no newline."""
    block = b"word" * (MB // 4)
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(block)
    return path


@dataclass(frozen=True)
class Bomb:
    name: str
    make: Callable[[Path], Path]
    why: str
    error_has: str  # a phrase the file's error must hold; "" when the file is read (bounded) instead
    worker_only: bool = False  # no check at the source sees it: only the worker's caps stop it


CORPUS = (
    Bomb("double_flate.pdf", double_flate_pdf, "[/FlateDecode /FlateDecode] stream, 300 MB", "expands to"),
    Bomb("chained_form.pdf", chained_form_pdf, "a form XObject behind AHx+Fl+Fl, 300 MB", "expands to"),
    Bomb("linked_part.docx", linked_part_docx, "a linked 1.5 GB part of zeros", "expands to"),
    Bomb("giant_page.pdf", giant_page_pdf, "a blank 7200 × 7200 pt page OCR would render", ""),
    Bomb("nested_zip.docx", nested_zip_docx, "an embedded ZIP of ZIPs, 256 MB innermost", ""),
    Bomb("overlap_zip.docx", overlapping_zip_docx, "2,000 entries sharing one kernel", "expands to"),
    Bomb("many_pages.pdf", many_pages_pdf, "100,000 tiny pages", "pages"),
    Bomb("looping_tree.pdf", looping_tree_pdf, "a page tree that loops", "page tree is broken"),
    Bomb("nested_tags.html", nested_html, "49 MB of nested tags", ""),
    Bomb("one_line.txt", one_line_text, "one 200 MB line", "size limit"),
    Bomb("pixel_flood.png", pixel_flood_png, "a PNG declaring 40,000 × 40,000 pixels", "is an image of"),
    Bomb("glyph_storm.pdf", glyph_storm_pdf, "50,000 glyph runs on one page", "parsing used more than", True),
)


def make_corpus(folder: Path, names: tuple[str, ...] | None = None) -> list[tuple[Bomb, Path]]:
    """Write the corpus (or the ``names`` of it) into ``folder``, reusing files already there."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for bomb in CORPUS:
        if names is None or bomb.name in names:
            path = folder / bomb.name
            if not path.exists():
                bomb.make(path)
            out.append((bomb, path))
    return out


if __name__ == "__main__":  # pragma: no cover - for probing by hand
    for bomb, path in make_corpus(Path(sys.argv[1] if len(sys.argv) > 1 else "bombs")):
        print(f"{path.stat().st_size:>12,}  {bomb.name:20s} {bomb.why}")
