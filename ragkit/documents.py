"""PDF / TXT / MD files -> ``Document``s with per-page text, Markdown tables and diagnostics.

PDF text comes from PyMuPDF block by block in a column-aware reading order; tables come from pdfplumber
and replace the text blocks they cover with a Markdown table, so a table is searchable and stays whole.
"""

from __future__ import annotations

import io
import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import DocumentError
from ragkit.hashing import sha256_bytes
from ragkit.types import Document, Page

log = logging.getLogger(__name__)

DEFAULT_MAX_MB = 200.0
TEXT_SUFFIXES = {".txt": "txt", ".text": "txt", ".md": "md", ".markdown": "md"}
SUPPORTED_SUFFIXES = {".pdf": "pdf", **TEXT_SUFFIXES}


@dataclass(frozen=True)
class _Block:
    """A positioned piece of page text (a PyMuPDF text block or a whole table)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def load_document(path: str | os.PathLike[str], max_mb: float = DEFAULT_MAX_MB) -> Document:
    """Parse the file at ``path``; raises :class:`DocumentError` naming the file and the cause."""
    p = Path(path)
    name = p.name
    _check_suffix(name)
    try:
        size = p.stat().st_size
    except OSError as e:
        raise DocumentError(name, f"cannot be read ({e.strerror or e})") from None
    _check_size(name, size, max_mb)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise DocumentError(name, f"cannot be read ({e.strerror or e})") from None
    return parse_bytes(name, data, max_mb=max_mb)


def parse_bytes(name: str, data: bytes, max_mb: float = DEFAULT_MAX_MB) -> Document:
    """Parse a file's bytes (an upload, say); ``name`` decides the format by its extension."""
    kind = _check_suffix(name)
    _check_size(name, len(data), max_mb)
    if not data:
        raise DocumentError(name, "the file is empty (0 bytes)")
    sha = sha256_bytes(data)
    if kind == "pdf":
        pages, warnings = _parse_pdf(name, data)
        encoding = None
    else:
        text, encoding, warnings = _decode_text(name, data)
        pages = [Page(number=1, text=text)]
        if not text.strip():
            warnings.append("the file holds only whitespace: nothing to index")
    doc = Document(
        doc_id=sha[:16],
        source=name,
        sha256=sha,
        pages=tuple(pages),
        kind=kind,
        warnings=tuple(warnings),
        encoding=encoding,
    )
    return doc


def iter_documents(
    paths: Iterable[str | os.PathLike[str]], max_mb: float = DEFAULT_MAX_MB
) -> Iterator[tuple[Path, Document | DocumentError]]:
    """Yield ``(path, document or error)`` for each path, so one bad file never stops a batch."""
    for path in paths:
        try:
            yield Path(path), load_document(path, max_mb=max_mb)
        except DocumentError as e:
            log.warning("%s", e)
            yield Path(path), e


# --------------------------------------------------------------------------- checks


def _check_suffix(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        shown = suffix or "(no extension)"
        raise DocumentError(
            name,
            f"unsupported file type {shown}; ragkit reads {', '.join(sorted(SUPPORTED_SUFFIXES))}",
        )
    return SUPPORTED_SUFFIXES[suffix]


def _check_size(name: str, size: int, max_mb: float) -> None:
    if size > max_mb * 1024 * 1024:
        raise DocumentError(
            name, f"the file is {size / 1024 / 1024:.1f} MB, over the {max_mb:g} MB size limit"
        )


# --------------------------------------------------------------------------- text


def _decode_text(name: str, data: bytes) -> tuple[str, str, list[str]]:
    """Decode text bytes: UTF-8 first, else a detected encoding, else cp1252/latin-1, saying so."""
    warnings: list[str] = []
    if _looks_binary(data):
        raise DocumentError(name, "the file holds binary data, not text (wrong extension?)")
    try:
        text = data.decode("utf-8-sig")
        encoding = "utf-8"
    except UnicodeDecodeError:
        encoding, text = _detect_and_decode(data)
        warnings.append(f"not valid UTF-8; decoded as {encoding} — check accented characters")
    # Normalise line endings so offsets mean the same thing on every platform.
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, encoding, warnings


def _looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if b"\x00" in head:
        return True
    control = sum(1 for b in head if b < 32 and b not in (9, 10, 12, 13))
    return control > 0.1 * len(head)


def _detect_and_decode(data: bytes) -> tuple[str, str]:
    try:
        from charset_normalizer import from_bytes

        matches = list(from_bytes(data))
        if matches:
            best = matches[0]
            # Short Western text often ties between cp1250 and cp1252; on a tie prefer cp1252,
            # by far the more common legacy encoding. A clear winner (cp1251, cp1250) stands.
            ties = [
                m
                for m in matches
                if (m.percent_chaos, m.percent_coherence) == (best.percent_chaos, best.percent_coherence)
            ]
            best = next((m for m in ties if "cp1252" in m.could_be_from_charset), best)
            return best.encoding, str(best)
    except ImportError:  # pragma: no cover - charset-normalizer ships with requests
        pass
    for enc in ("cp1252", "latin-1"):
        try:
            return enc, data.decode(enc)
        except UnicodeDecodeError:
            continue
    raise AssertionError("latin-1 decodes any bytes")  # pragma: no cover


# --------------------------------------------------------------------------- PDF


def _parse_pdf(name: str, data: bytes) -> tuple[list[Page], list[str]]:
    import pymupdf

    warnings: list[str] = []
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as e:  # pymupdf raises FileDataError / RuntimeError / ValueError
        raise DocumentError(name, f"not a readable PDF — corrupt or truncated ({e})") from None
    with doc:
        if doc.needs_pass:
            raise DocumentError(
                name, "the PDF is password-protected; remove the password and ingest it again"
            )
        if doc.page_count == 0:
            raise DocumentError(name, "the PDF has no pages — corrupt or truncated")
        if doc.is_repaired:
            if b"%%EOF" not in data[-2048:]:
                # Repair "succeeds" on a cut-off file by dropping what is missing: refuse, don't guess.
                raise DocumentError(
                    name,
                    "the PDF is truncated (it stops before its %%EOF end marker, so pages or text "
                    "are missing) — copy or download the file again",
                )
            warnings.append("the PDF was damaged and had to be repaired; some text may be missing")
        tables = _pdf_tables(name, data, doc.page_count, warnings)
        pages: list[Page] = []
        for i in range(doc.page_count):
            try:
                page = doc.load_page(i)
                # expand ligatures (ﬁ -> fi) so "classification" matches what users type
                raw = page.get_text(
                    "blocks", flags=pymupdf.TEXTFLAGS_BLOCKS & ~pymupdf.TEXT_PRESERVE_LIGATURES
                )
                width = page.rect.width
            except Exception as e:
                raise DocumentError(
                    name, f"page {i + 1} cannot be read — corrupt or truncated PDF ({e})"
                ) from None
            blocks = [
                _Block(b[0], b[1], b[2], b[3], _join_lines(b[4])) for b in raw if b[6] == 0 and b[4].strip()
            ]
            page_tables = tables.get(i, [])
            blocks = _replace_table_regions(blocks, page_tables)
            text = "\n\n".join(b.text for b in reading_order(blocks, width))
            pages.append(Page(number=i + 1, text=text, tables=len(page_tables)))
    empty = [p.number for p in pages if not p.text.strip()]
    if len(empty) == 1:
        warnings.append(f"page {empty[0]} has no extractable text — scanned image?")
    elif empty:
        warnings.append(f"pages {', '.join(map(str, empty))} have no extractable text — scanned images?")
    if empty and len(empty) == len(pages):
        warnings.append("no page has a text layer: nothing will be indexed (run OCR on it first)")
    return pages, warnings


_HYPHEN_BREAK = re.compile(r"(?<=[^\W\d_])-\n(?=[a-z])")


def _join_lines(block_text: str) -> str:
    """One PDF text block -> one line: re-join words hyphenated at a line end, fold whitespace."""
    return " ".join(_HYPHEN_BREAK.sub("", block_text).split())


def _pdf_tables(name: str, data: bytes, n_pages: int, warnings: list[str]) -> dict[int, list[_Block]]:
    """Tables per 0-based page index, as blocks whose text is a Markdown table."""
    import pdfplumber

    found: dict[int, list[_Block]] = {}
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for i, page in enumerate(pdf.pages[:n_pages]):
                try:
                    for table in page.find_tables():
                        md = table_to_markdown(table.extract())
                        if md:
                            x0, top, x1, bottom = table.bbox
                            found.setdefault(i, []).append(_Block(x0, top, x1, bottom, md))
                except Exception as e:  # one bad page must not lose the others' tables
                    warnings.append(f"page {i + 1}: table detection failed ({e})")
    except Exception as e:
        warnings.append(f"table detection skipped ({e})")
    return found


def table_to_markdown(rows: list[list[str | None]]) -> str:
    """A pdfplumber table (rows of cells) as a GitHub Markdown table; "" if it is not a real table."""
    clean = [[" ".join(c.split()).replace("|", "\\|") for c in row] for row in _explode_stacked_rows(rows)]
    clean = [row for row in clean if any(row)]
    if not clean:
        return ""
    width = max(len(r) for r in clean)
    clean = [r + [""] * (width - len(r)) for r in clean]
    keep = [j for j in range(width) if any(r[j] for r in clean)]
    clean = [[r[j] for j in keep] for r in clean]
    if len(clean) < 2 or len(keep) < 2:
        return ""
    lines = ["| " + " | ".join(clean[0]) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(r) + " |" for r in clean[1:]]
    return "\n".join(lines)


def _explode_stacked_rows(rows: list[list[str | None]]) -> list[list[str]]:
    """Split a row whose non-empty cells all hold k lines into k rows.

    Tables without ruling lines between rows come out of pdfplumber as one row of multi-line cells
    ("Alabama\\nAlaska" beside "18,870\\n209"); re-stacking them keeps each value on its own row.
    """
    out: list[list[str]] = []
    for row in rows:
        if not row:
            continue
        cells = [(c or "").strip() for c in row]
        lines = [c.split("\n") if c else [] for c in cells]
        counts = {len(ls) for ls in lines if ls}
        filled = sum(1 for ls in lines if ls)
        if len(counts) == 1 and filled >= 2 and (k := counts.pop()) > 1:
            out.extend([ls[i] if ls else "" for ls in lines] for i in range(k))
        else:
            out.append(cells)
    return out


def _replace_table_regions(blocks: list[_Block], tables: list[_Block]) -> list[_Block]:
    """Drop text blocks whose centre lies inside a table; the table block stands in their place."""
    if not tables:
        return blocks

    def inside(b: _Block, t: _Block) -> bool:
        cx, cy = (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
        return t.x0 - 1 <= cx <= t.x1 + 1 and t.y0 - 1 <= cy <= t.y1 + 1

    kept = [b for b in blocks if not any(inside(b, t) for t in tables)]
    return kept + tables


def reading_order(blocks: list[_Block], page_width: float) -> list[_Block]:
    """Order blocks as a person reads: top to bottom, and in two-column bands left column first.

    A block that spans the middle of the page (a title, a full-width figure) closes a band; inside a
    band, every left-column block comes before every right-column block.
    """
    mid = page_width / 2
    tol = 0.02 * page_width
    out: list[_Block] = []
    left: list[_Block] = []
    right: list[_Block] = []

    def flush() -> None:
        out.extend(sorted(left, key=lambda b: (b.y0, b.x0)))
        out.extend(sorted(right, key=lambda b: (b.y0, b.x0)))
        left.clear()
        right.clear()

    for b in sorted(blocks, key=lambda b: (b.y0, b.x0)):
        if b.x1 <= mid + tol:
            left.append(b)
        elif b.x0 >= mid - tol:
            right.append(b)
        else:
            flush()
            out.append(b)
    flush()
    return out
