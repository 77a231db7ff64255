"""A generator of adversarial ingest batches: odd, hostile and broken inputs, each with what must happen.

``make_batch(folder)`` writes every case into ``folder`` (plus two sub-folders for same-name files) and
returns the cases; ``ok`` cases must be indexed, ``error`` cases must be reported with an error that names
the file. Used by the unit test (fake embedder, subprocess with a timeout: a hang fails it) and usable by
hand: ``python -m tests.adversarial /tmp/batch`` then ``python -m ragkit ingest --index I /tmp/batch/*``.
"""

from __future__ import annotations

import gzip
import os
import random
import shutil
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

PDFS = Path(__file__).resolve().parents[1].parent / "shared" / "evaldata" / "pdfs"
MAX_MB = 3.0  # the batch is ingested with this limit, so "oversize" cases stay small on disk


@dataclass(frozen=True)
class Case:
    name: str  # the document name the report must carry
    path: Path
    expect: str  # "ok" or "error"
    why: str  # what the case probes
    error_has: str = ""  # a phrase the error must contain (besides the file name)


def _write(folder: Path, name: str, data: bytes | str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    p.write_bytes(data)
    return p


def _encrypted_pdf(folder: Path) -> Path:
    import pymupdf

    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret text")
    out = folder / "encrypted.pdf"
    doc.save(out, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    return out


def docx_bomb(path: Path, xml_mb: int = 100) -> Path:
    """A valid small DOCX whose ``word/document.xml`` inflates to ``xml_mb`` MB (written in a stream, so
    making it needs no memory): the shape of the 0.9 MB file that expanded to 540,351 chunks."""
    import zipfile

    import docx

    small = path.with_suffix(".seed.docx")
    d = docx.Document()
    d.add_paragraph("seed")
    d.save(small)
    para = b"<w:p><w:r><w:t>" + b"Padding words repeat without end. " * 30 + b"</w:t></w:r></w:p>"
    with zipfile.ZipFile(small) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename != "word/document.xml":
                out.writestr(info, src.read(info.filename))
                continue
            head = src.read(info.filename).partition(b"<w:body>")[0]
            with out.open("word/document.xml", "w", force_zip64=True) as f:
                f.write(head + b"<w:body>")
                for _ in range(xml_mb * 1024 * 1024 // len(para)):
                    f.write(para)
                f.write(b"<w:sectPr/></w:body></w:document>")
    small.unlink()
    return path


def pdf_stream_bomb(path: Path, stream_mb: int = 100) -> Path:
    """A one-page PDF whose Flate content stream (a few hundred KB) inflates to ``stream_mb`` MB of text
    operators; compressed in a stream, so making it needs no memory."""
    import zlib

    import pymupdf

    op = b"BT /Helv 10 Tf 72 720 Td (Padding words repeat without end.) Tj ET\n"
    z = zlib.compressobj(9)
    parts = [z.compress(op * 10_000) for _ in range(stream_mb * 1024 * 1024 // (len(op) * 10_000))]
    raw = b"".join(parts) + z.flush()
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "A page whose content stream is a bomb.")
    xref = page.get_contents()[0]
    doc.update_stream(xref, raw, compress=False)
    doc.xref_set_key(xref, "Filter", "/FlateDecode")
    doc.save(path)
    return path


def make_batch(folder: str | os.PathLike[str]) -> list[Case]:
    """Write the adversarial batch into ``folder``; returns every case."""
    d = Path(folder)
    d.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    prose = "Retrieval augmented generation answers from documents. " * 20
    cases: list[Case] = []

    def ok(name: str, data: bytes | str, why: str) -> None:
        cases.append(Case(name, _write(d, name, data), "ok", why))

    def bad(name: str, data: bytes | str, why: str, has: str = "") -> None:
        cases.append(Case(name, _write(d, name, data), "error", why, has))

    # ---- odd but valid: must be indexed
    ok("plain.txt", prose, "ordinary text")
    ok("utf16le.txt", b"\xff\xfe" + ("Zürich café " * 40).encode("utf-16-le"), "UTF-16 LE with BOM")
    ok("utf16be.txt", b"\xfe\xff" + ("Zürich café " * 40).encode("utf-16-be"), "UTF-16 BE with BOM")
    ok("utf32.txt", b"\xff\xfe\x00\x00" + ("naïve " * 40).encode("utf-32-le"), "UTF-32 LE with BOM")
    ok("utf8bom.md", b"\xef\xbb\xbf# Title\n\n" + prose.encode(), "UTF-8 with BOM")
    ok("cp1252.txt", ("Café crème brûlée à la française. " * 30).encode("cp1252"), "legacy cp1252")
    ok(
        "mixed.txt",
        ("Grüße aus Zürich, ganz normal.\n" * 20).encode()
        + ("Caf\xe9 cr\xe8me ligne.\n" * 3).encode("latin-1"),
        "UTF-8 lines and cp1252 lines in one file",
    )
    ok("crlf.txt", prose.replace(". ", ".\r\n"), "Windows line ends")
    ok("cr_only.txt", prose.replace(". ", ".\r"), "old Mac line ends")
    ok("emoji_rtl.md", "# 🚀 عنوان\n\nשלום עולם 👋🏽 مرحبا بالعالم. " * 30, "emoji and right-to-left scripts")
    ok("zero_width.txt", ("in\u200bvisible\u200d joiners\ufeff here. " * 50), "zero-width characters")
    ok("dots.txt", "." * 100_000, "100 KB run of dots (sentence-regex backtracking)")
    ok("hashes.md", "# " * 50_000 + "a", "100 KB line of '# # #' (heading regex backtracking)")
    ok("paragraphs.txt", "\n\n".join("p." for _ in range(200_000)), "200k tiny paragraphs (quadratic merge)")
    ok("giant_word.txt", "x" * 2_000_000, "a 2 MB single word (unbounded chunk)")
    ok("long_line.txt", "word " * 200_000, "a 1 MB line")
    ok("unclosed_fence.md", "# Code\n\n```python\n" + "x = 1\n" * 500, "an unclosed code fence")
    ok("deep_list.md", "".join("  " * i + "- item\n" for i in range(1000)), "1,000 nested list levels")
    ok("many_headings.md", "".join(f"## H{i}\n\ntext {i}.\n\n" for i in range(10_000)), "10k headings")
    ok(
        "wide_table.md",
        "| " + " | ".join(f"c{i}" for i in range(500)) + " |\n|" + "---|" * 500 + "\n| "
        + " | ".join(str(i) for i in range(500)) + " |\n",
        "a table with 500 columns",
    )  # fmt: skip
    ok(
        "html_inside.md",
        "<script>alert(1)</script><img src=http://127.0.0.1:9/x.png>\n\n" + prose,
        "HTML in .md",
    )
    ok("md_image.md", "![pixel](http://127.0.0.1:9/pixel.png)\n\n" + prose, "a remote Markdown image")
    ok("name with spaces.txt", prose + "name with spaces.txt", "spaces in the name")
    ok("ünïcødé-名前.txt", prose + "ünïcødé-名前.txt", "non-ASCII name")
    ok("**bold**[x](y).md", prose + "**bold**[x](y).md", "Markdown syntax in the name")
    ok("new\nline.txt", prose + "new\nline.txt", "a newline in the name")
    ok("L" * 200 + ".txt", prose + "L" * 200 + ".txt", "a 204-character name")
    ok("UPPER.TXT", prose + "UPPER.TXT", "upper-case extension")
    ok("sprinkled_controls.txt", ("text\x07 with a bell\x1b and escape. " * 40), "a few control characters")
    ok("whitespace_only.txt", "   \n\n\t  \n", "only whitespace (indexed as nothing, with a warning)")
    cases.append(
        Case("dirA/notes.txt", _write(d, "dirA/notes.txt", "Alpha notes. " * 30), "ok", "same name (1)")
    )
    cases.append(
        Case("dirB/notes.txt", _write(d, "dirB/notes.txt", "Beta notes. " * 30), "ok", "same name (2)")
    )
    target = _write(d, "real_target.txt", "Target of an inside link. " * 20)
    cases.append(Case("real_target.txt", target, "ok", "target of a symlink"))
    (d / "inside_link.txt").symlink_to(target)
    cases.append(Case("inside_link.txt", d / "inside_link.txt", "ok", "symlink inside the folder"))
    if PDFS.is_dir():
        pdf = shutil.copy(PDFS / "docling_multi_page.pdf", d / "real.pdf")
        cases.append(Case("real.pdf", Path(pdf), "ok", "a real PDF"))
        scan = shutil.copy(PDFS / "scanned_image_only_ocr_test.pdf", d / "scan.pdf")
        cases.append(Case("scan.pdf", Path(scan), "ok", "an image-only PDF (0 chunks, a warning)"))
        raw = (PDFS / "docling_multi_page.pdf").read_bytes()
        bad("truncated.pdf", raw[: len(raw) // 2], "a PDF cut in half", "truncated")
        bad("pdf_as.txt", raw, "a PDF named .txt", "binary")
    cases.append(Case("encrypted.pdf", _encrypted_pdf(d), "error", "password-protected PDF", "password"))
    cases.append(
        Case("bomb.docx", docx_bomb(d / "bomb.docx"), "error", "a DOCX whose XML inflates to 100 MB",
             "expands to more than")
    )  # fmt: skip
    cases.append(
        Case("bomb.pdf", pdf_stream_bomb(d / "bomb.pdf"), "error", "a PDF page stream inflating to 100 MB",
             "expands to more than")
    )  # fmt: skip

    # ---- broken or hostile: must be reported, naming the file
    bad("empty.txt", b"", "0 bytes", "empty")
    bad("binary.txt", bytes(rng.randrange(256) for _ in range(5000)) + b"\x00", "random bytes", "binary")
    bad("nul_late.txt", prose.encode() * 20 + b"\x00" + prose.encode(), "a NUL byte after 8 KB", "NUL")
    bad(
        "controls.txt",
        bytes(rng.choice([1, 2, 3, 4, 5, 6, 14, 15]) for _ in range(4000)),
        "control bytes",
        "binary",
    )
    bad("gz_as.txt", gzip.compress(prose.encode() * 50), "gzip data named .txt", "binary")
    bad("text_as.pdf", prose, "text named .pdf", "not a readable PDF")
    bad(
        "corrupt.pdf",
        b"%PDF-1.7\n" + bytes(rng.randrange(256) for _ in range(3000)),
        "garbage after a PDF header",
    )
    bad("bad_bom.txt", b"\xff\xfe" + b"\x00\xd8A", "a UTF-16 BOM before invalid UTF-16", "byte-order mark")
    bad("program.exe", b"MZ\x90\x00", "unsupported extension", "unsupported file type")
    bad("no_extension", prose, "no extension", "unsupported file type")
    bad("oversize.txt", "word " * int(MAX_MB * 1024 * 1024 / 5 + 1000), "over the size limit", "size limit")
    sparse = d / "sparse.txt"
    with open(sparse, "wb") as f:
        f.truncate(50 * 1024**3)  # 50 GB reported, nothing on disk: the size check must refuse it unread
    cases.append(Case("sparse.txt", sparse, "error", "a sparse 50 GB file", "size limit"))
    os.mkfifo(d / "fifo.txt")
    cases.append(Case("fifo.txt", d / "fifo.txt", "error", "a FIFO (would block forever)", "FIFO"))
    (d / "devzero.txt").symlink_to("/dev/zero")
    cases.append(Case("devzero.txt", d / "devzero.txt", "error", "symlink to /dev/zero", "symbolic link"))
    (d / "passwd.txt").symlink_to("/etc/passwd")
    cases.append(Case("passwd.txt", d / "passwd.txt", "error", "symlink to /etc/passwd", "outside"))
    (d / "dangling.txt").symlink_to(d / "does-not-exist.txt")
    cases.append(
        Case("dangling.txt", d / "dangling.txt", "error", "dangling symlink", "broken symbolic link")
    )
    (d / "loop_a.txt").symlink_to(d / "loop_b.txt")
    (d / "loop_b.txt").symlink_to(d / "loop_a.txt")
    cases.append(Case("loop_a.txt", d / "loop_a.txt", "error", "a symlink loop", "broken symbolic link"))
    sock_path = d / "sock.txt"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock_path))
    s.close()  # the socket file stays on disk
    cases.append(Case("sock.txt", sock_path, "error", "a Unix socket", "not a regular file"))
    return cases


if __name__ == "__main__":  # pragma: no cover - a helper for manual probing
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "adversarial-batch")
    for c in make_batch(out):
        print(f"{c.expect:5s}  {c.name!r:40.40s}  {c.why}")
