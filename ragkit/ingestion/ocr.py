"""OCR of PDF pages with Tesseract: PyMuPDF renders the page, the ``tesseract`` program reads it.

Tesseract is asked for TSV output, so every word comes with its confidence: the page's text is rebuilt
from the words (lines and paragraphs as Tesseract found them) and the report can say how sure it was
(the mean word confidence, 0–100). A page "needs" OCR when its text layer is missing or mostly garbage
(:func:`needs_ocr`). Where Tesseract is not installed, :data:`INSTALL` is the command that installs it.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.types import Page
from ragkit.ingestion.limits import Budget, Limits
from ragkit.ingestion.reading import page_ranges, pages_named
from ragkit.ingestion.tables import count_markdown_tables

INSTALL = "apt-get install -y tesseract-ocr tesseract-ocr-eng"
DPI = 300
TIMEOUT_S = 120.0


@dataclass(frozen=True)
class OcrPage:
    """What OCR read on one page: the text, the mean word confidence (0–100) and the word count."""

    text: str
    confidence: float
    words: int


def tesseract_path() -> str | None:
    return shutil.which("tesseract")


@lru_cache(maxsize=1)
def languages_all() -> tuple[str, ...]:
    """Every installed Tesseract language data file (``osd`` included); empty without Tesseract."""
    exe = tesseract_path()
    if exe is None:
        return ()
    try:
        out = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(x.strip() for x in out.splitlines()[1:] if x.strip())


def languages() -> tuple[str, ...]:
    """The installed Tesseract languages (``eng``, ``deu``…; ``osd`` left out); empty without Tesseract."""
    return tuple(x for x in languages_all() if x != "osd")


def check_language(lang: str) -> None:
    """Raise a clear error when Tesseract or one of the ``+``-joined languages is not installed."""
    if tesseract_path() is None:
        raise DocumentError("OCR", f"Tesseract is not installed: {INSTALL}")
    missing = [x for x in lang.split("+") if x not in languages()]
    if missing:
        pkgs = " ".join(f"tesseract-ocr-{x}" for x in missing)
        raise DocumentError(
            "OCR", f"the OCR language {'+'.join(missing)} is not installed (apt-get install -y {pkgs}); "
            f"installed: {', '.join(languages()) or 'none'}",
        )  # fmt: skip


def usable_chars(text: str) -> int:
    """Characters of real text: letters and digits (garbage from a broken font map is mostly neither)."""
    return sum(ch.isalnum() for ch in text)


def needs_ocr(text: str) -> bool:
    """Whether a page's text layer is missing or mostly garbage (replacement characters, control and
    private-use characters, too few letters for its length)."""
    stripped = "".join(text.split())
    if usable_chars(stripped) < 20:
        return True
    bad = sum(ch == "\ufffd" or 0xE000 <= ord(ch) <= 0xF8FF or ord(ch) < 32 for ch in stripped)
    return bad / len(stripped) > 0.2 or usable_chars(stripped) / len(stripped) < 0.4


#: below this mean word confidence, a page is checked for a sideways or upside-down scan
TURN_BELOW = 60.0


def _tesseract(exe: str, png: bytes, args: list[str]) -> str:
    try:
        proc = subprocess.run(
            [exe, "stdin", "stdout", *args], input=png, capture_output=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise DocumentError("OCR", f"Tesseract took more than {TIMEOUT_S:g} s on one page") from None
    if proc.returncode != 0:
        raise DocumentError("OCR", f"Tesseract failed: {proc.stderr.decode(errors='replace').strip()[:300]}")
    return proc.stdout.decode("utf-8", errors="replace")


def orientation(exe: str, png: bytes) -> int:
    """How many degrees a page image must turn to read upright (0, 90, 180 or 270), by Tesseract's
    orientation detection (``osd``); 0 when it is not installed or not sure."""
    if "osd" not in languages_all():
        return 0
    try:
        out = _tesseract(exe, png, ["--psm", "0"])
    except DocumentError:
        return 0  # too little text to tell: read it as it is
    rotate = re.search(r"Rotate:\s*(\d+)", out)
    sure = re.search(r"Orientation confidence:\s*([\d.]+)", out)
    return int(rotate.group(1)) if rotate and sure and float(sure.group(1)) >= 1.0 else 0


def _tesseract_exe() -> str:
    exe = tesseract_path()
    if exe is None:
        raise DocumentError("OCR", f"Tesseract is not installed: {INSTALL}")
    return exe


def _grey_png(page: Any, dpi: float, limits: Limits | None, clip: Any = None, turn: int = 0) -> bytes:
    """``page`` (or its ``clip``) rendered in grey at ``dpi`` — lower when it would pass the pixel cap (a
    7,200-point poster is 900 megapixels at 300 dpi) — turned by ``turn`` degrees, as PNG."""
    import pymupdf

    area = clip if clip is not None else page.rect
    dpi = (limits or Limits.from_env()).render_dpi(area.width, area.height, dpi)
    matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
    return page.get_pixmap(matrix=matrix, clip=clip, colorspace=pymupdf.csGRAY).tobytes("png")


def _read(exe: str, png: bytes, lang: str) -> OcrPage:
    return parse_tsv(_tesseract(exe, png, ["-l", lang, "--psm", "3", "tsv"]))


def ocr_page(page: object, lang: str = "eng", dpi: float = DPI, limits: Limits | None = None) -> OcrPage:
    """Render ``page`` (a PyMuPDF page) in grey at ``dpi`` (within the pixel cap) and read it with
    Tesseract; a page read with low confidence is turned upright first when it was scanned sideways or
    upside down."""
    exe = _tesseract_exe()
    png = _grey_png(page, dpi, limits)
    read = _read(exe, png, lang)
    if read.confidence >= TURN_BELOW:
        return read
    turn = orientation(exe, png)
    if not turn:
        return read
    again = _read(exe, _grey_png(page, dpi, limits, turn=turn), lang)
    return again if again.confidence * again.words > read.confidence * read.words else read


def read_region(
    page: object, clip: Any, lang: str = "eng", dpi: float = DPI, limits: Limits | None = None
) -> OcrPage:
    """OCR of one region of a PyMuPDF page (a picture on a page that has a text layer), rendered in grey at
    ``dpi`` or less within the pixel cap."""
    return _read(_tesseract_exe(), _grey_png(page, dpi, limits, clip=clip), lang)


def parse_tsv(tsv: str) -> OcrPage:
    """Tesseract's TSV (one row per word, with block/paragraph/line numbers and a confidence) as text:
    words joined into lines, paragraphs separated by a blank line."""
    rows = csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    paragraphs: dict[tuple[int, int], dict[int, list[str]]] = {}
    confs: list[float] = []
    for r in rows:
        word = (r.get("text") or "").strip()
        if r.get("level") != "5" or not word:
            continue
        conf = float(r.get("conf") or -1)
        if conf >= 0:
            confs.append(conf)
        para = paragraphs.setdefault((int(r["block_num"]), int(r["par_num"])), {})
        para.setdefault(int(r["line_num"]), []).append(word)
    text = "\n\n".join(
        "\n".join(" ".join(words) for _, words in sorted(lines.items()))
        for _, lines in sorted(paragraphs.items())
    )
    mean = sum(confs) / len(confs) if confs else 0.0
    return OcrPage(text, round(mean, 1), len(confs))


def ocr_pages(
    doc: Any,
    pages: list[Page],
    ocr: str,
    ocr_language: str,
    budget: Budget,
    dpi: int = DPI,
    only: int | None = None,
) -> tuple[list[Page], list[str]]:
    """OCR the pages of an opened PDF whose text layer is not usable (``auto``), or every page
    (``always``); a page where OCR reads nothing keeps its text layer. The note names the OCR'd pages
    and the mean word confidence of each. ``only`` is the page number of ``doc`` when ``pages`` holds
    that one page."""
    want = [p.number for p in pages if ocr == "always" or (ocr == "auto" and needs_ocr(p.text))]
    if not want:
        return pages, []
    try:
        check_language(ocr_language)
    except DocumentError as e:
        return pages, [str(e).removeprefix("OCR: ") + " — pages without a text layer were not read"]
    out, confidence, coarse = list(pages), {}, []
    for k, n in enumerate(want):
        budget.check_time(f"OCR of page {n}")
        page = doc.load_page((only or n) - 1)
        if budget.limits.render_dpi(page.rect.width, page.rect.height, dpi) < dpi:
            coarse.append(n)
        read = ocr_page(page, ocr_language, dpi, budget.limits)
        confidence[n] = read.confidence
        if read.text.strip():
            budget.add_text(len(read.text))
            text = normalise_ocr(read.text)
            at = k if only else n - 1
            out[at] = Page(number=n, text=text, tables=count_markdown_tables(text))
    conf = ", ".join(f"p{p}: {c:.0f}" for p, c in confidence.items())
    notes = [f"{OCR_NOTE} on {pages_named(want)}; mean word confidence {conf}"]
    if coarse:
        which = f"page {coarse[0]} is" if len(coarse) == 1 else f"pages {page_ranges(coarse)} are"
        notes.append(
            f"{which} too large to render at {dpi} dpi within the {budget.limits.megapixels:g}-megapixel "
            "cap (RAGKIT_MAX_MEGAPIXELS): read at a lower resolution"
        )
    return out, notes


#: how a note that OCR read a page begins (information, not a warning: the report shows it as such)
OCR_NOTE = "OCR (Tesseract)"
_OCR_DASHES = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u00ad": ""})


def normalise_ocr(text: str) -> str:
    """Tesseract's text in the characters a person types: compatibility forms as their plain letters
    ("ﬁ" -> "fi", full-width letters), hyphen variants as "-", soft hyphens dropped, a word broken at a
    line end joined where the joined word is the plausible one (quotes are matched with the same folding,
    :mod:`ragkit.core.folding`)."""
    import unicodedata

    from ragkit.ingestion.hyphenation import _Hyphenation

    text = unicodedata.normalize("NFKC", text).translate(_OCR_DASHES)
    return _Hyphenation([text]).resolve([text])[0]  # "seg-⏎mentation" one word, "high-⏎quality" kept
