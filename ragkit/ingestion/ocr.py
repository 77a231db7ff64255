"""OCR of PDF pages with Tesseract: PyMuPDF renders the page, the ``tesseract`` program reads it.

Tesseract is asked for TSV output, so every word comes with its confidence: the page's text is rebuilt
from the words (lines and paragraphs as Tesseract found them) and the report can say how sure it was
(the mean word confidence, 0–100). A page "needs" OCR when its text layer is missing or mostly garbage
(:func:`needs_ocr`). Where Tesseract is not installed, :data:`INSTALL` is the command that installs it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.core.types import Page
from ragkit.ingestion.limits import Budget, Limits
from ragkit.ingestion.ocr_boxes import INK, MOST_BOXES, Box, box_rows, inside, ruled_boxes
from ragkit.ingestion.ocr_columns import two_columns
from ragkit.ingestion.ocr_grid import grid_text, ruled_grids, unruled
from ragkit.ingestion.ocr_render import grey, grey_png
from ragkit.ingestion.ocr_sideways import UNSURE, stacks
from ragkit.ingestion.ocr_tsv import OcrPage, line_height, parse_tsv, read_once, word_box, words_of
from ragkit.ingestion.reading import page_ranges, pages_named
from ragkit.ingestion.tables import count_markdown_tables, table_to_markdown

INSTALL = "apt-get install -y tesseract-ocr tesseract-ocr-eng"
DPI = 300
TIMEOUT_S = 120.0


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


#: a page whose lines of text are drawn lower than this (median, in pixels) is read again enlarged to
#: :data:`TEXT_PX`: Tesseract reads best with capitals about 30 pixels high, and at 13-pixel lines it
#: misreads letters (tessdoc ImproveQuality, *Rescaling*)
SMALL_TEXT_PX = 20
TEXT_PX = 28
#: the most a page is enlarged to for that (and within the pixel cap, whatever this says)
MAX_DPI = 600
#: below this mean word confidence, a page is checked for a sideways or upside-down scan
TURN_BELOW = 60.0
#: a ruled box read alone replaces the page layout's reading of it when it reads this many times the
#: words (the layout dropped some) at a text's mean word confidence
BOX_MORE = 1.2
BOX_CONFIDENCE = 60.0
#: the layout read a box as a table's columns when its lines there hold this many words or fewer
TABLE_LINE_WORDS = 3


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


def _tsv(exe: str, png: bytes, lang: str, psm: int = 3) -> str:
    # the setting, not the "tsv" config file: a model folder of one's own (TESSDATA_PREFIX) may have no
    # configs/, and Tesseract then read nothing and said so only on stderr
    return _tesseract(exe, png, ["-l", lang, "--psm", str(psm), "-c", "tessedit_create_tsv=1"])


def _read(exe: str, png: bytes, lang: str) -> OcrPage:
    """One image's reading, the two columns of a caption box Tesseract read as one read apart."""
    return parse_tsv(two_columns(_tsv(exe, png, lang)))


def ocr_page(page: object, lang: str = "eng", dpi: float = DPI, limits: Limits | None = None) -> OcrPage:
    """Render ``page`` (a PyMuPDF page) in grey at ``dpi`` (within the pixel cap) and read it with
    Tesseract; a page read with low confidence is turned upright first when it was scanned sideways or
    upside down. A ruled box on the page (a results table in its frame) is read on its own, row by row,
    when that reads more of it than the page's layout did, or anything where it read nothing
    (:mod:`ragkit.ingestion.ocr_boxes`)."""
    exe = _tesseract_exe()
    pix = grey(page, dpi, limits)
    png = pix.tobytes("png")
    tsv = _tsv(exe, png, lang)
    height = line_height(tsv)
    tsv = two_columns(tsv)  # two columns of a caption box read as one, read apart
    read = parse_tsv(tsv)
    if height is not None and height < SMALL_TEXT_PX and dpi < MAX_DPI:
        # text drawn too small for Tesseract (an image whose stated resolution is not its scan's: a
        # 770-pixel typescript page tagged 300 dpi read "ené sebotage" for "and sabotage"): read again
        # enlarged to a line height it reads well, and keep the surer reading
        larger = ocr_page(page, lang, min(MAX_DPI, dpi * TEXT_PX / height), limits)
        if larger.confidence > read.confidence:
            return larger
    if read.confidence < TURN_BELOW and (turn := orientation(exe, png)):
        again = _read(exe, grey_png(page, dpi, limits, turn=turn), lang)
        return again if again.confidence * again.words > read.confidence * read.words else read
    return _boxed(exe, page, pix, tsv, lang) or read


def _boxed(exe: str, page: Any, pix: Any, tsv: str, lang: str) -> OcrPage | None:
    """The page's reading with each ruled box read alone (``--psm 6``: one block, line by line) in place
    of the words the page's layout read inside it, where that reads the box at a text's confidence and
    the layout read less of it (:data:`BOX_MORE`), read it as a table's columns, a word or two a line,
    or read none of it though it holds ink (a shaded header row, binarised as dark as its text; framed
    rows the layout passed over); None when no box is read so."""
    import numpy as np
    import pymupdf

    if page.rotation:  # the pixels of a turned page are not where its clip says
        return None
    pixels = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width)
    boxes = ruled_boxes(pixels)
    scale = page.rect.width / pix.width
    words = words_of(tsv)
    kept = _grids(exe, page, pixels, scale, words, lang)
    boxes = [b for b in boxes if not any(inside(g, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for g, _ in kept)]
    for box in boxes:
        # the frame's own ink is no text; a wide, low box (a table's row) is inset by its height, not its
        # width, or the tops of its letters go ("BING" for "Blind")
        across, down = max((box[2] - box[0]) // 100, 4), max((box[3] - box[1]) // 100, 4)
        x0, y0, x1, y1 = (box[0] + across, box[1] + down, box[2] - across, box[3] - down)
        clip = pymupdf.Rect(x0 * scale, y0 * scale, x1 * scale, y1 * scale)
        read = [r for centre, r in words if inside(box, *centre)]
        if not read and not _inked(pixels, (x0, y0, x1, y1)):  # blank: no second Tesseract run
            continue
        box_tsv = _tsv(exe, grey_png(page, 72 / scale, None, clip=clip), lang, psm=6)
        alone = parse_tsv(box_tsv)
        lines = {(r["block_num"], r["par_num"], r["line_num"]) for r in read}
        columns = len(read) <= TABLE_LINE_WORDS * len(lines)
        more = alone.words >= BOX_MORE * len(read) or (columns and alone.words >= len(read))
        if more and alone.confidence >= BOX_CONFIDENCE:
            rows = box_rows(
                [((int(r["block_num"]), int(r["par_num"]), int(r["line_num"])), int(r["left"]),
                  int(r["left"]) + int(r["width"]), r["text"].strip()) for _, r in words_of(box_tsv)]
            )  # fmt: skip
            table = table_to_markdown(rows) if rows else ""
            kept.append((box, replace(alone, text=table or re.sub(r"\n\s*\n", "\n", alone.text))))
    rest = [
        (word_box(r), r["text"], float(r["conf"]))
        for c, r in words
        if not any(inside(b, *c) for b, _ in kept)
    ]
    for box, sure in stacks(rest)[:MOST_BOXES]:
        if (read := _sideways(exe, page, scale, box, lang, sure)) is not None:
            kept.append((box, read))
    return parse_tsv(tsv, kept) if kept else None


def _sideways(exe: str, page: Any, scale: float, box: Box, lang: str, sure: float) -> OcrPage | None:
    """A line printed up or down the page's margin (:mod:`ragkit.ingestion.ocr_sideways`) read turned
    each way (``--psm 7``: one line): the surer reading where it is sure and surer than the stack's words
    (``sure``, their mean confidence); nothing where neither is sure and the words are unsure either
    (noise); None to keep the words (a table's column, read sure upright)."""
    import pymupdf

    pad = box[2] - box[0]  # about a glyph's height, all round
    clip = pymupdf.Rect(
        (box[0] - pad) * scale, (box[1] - pad) * scale, (box[2] + pad) * scale, (box[3] + pad) * scale
    )
    reads = [
        parse_tsv(_tsv(exe, grey_png(page, 72 / scale, None, clip=clip, turn=t), lang, psm=7))
        for t in (-90, 90)
    ]
    best = max(reads, key=lambda r: r.confidence)
    if best.confidence >= BOX_CONFIDENCE and best.confidence > sure:
        return best
    return OcrPage("", 0.0, 0) if sure < UNSURE else None


def _grids(
    exe: str,
    page: Any,
    pixels: Any,
    scale: float,
    words: list[tuple[tuple[float, float], dict[str, str]]],
    lang: str,
) -> list[tuple[Box, OcrPage]]:
    """Each fully ruled table of the page read cell by cell (:mod:`ragkit.ingestion.ocr_grid`), read once
    as one block, where that reads it at a text's confidence and as many words as the page's layout did."""
    import numpy as np
    import pymupdf

    out = []
    for grid in ruled_grids(pixels)[:MOST_BOXES]:
        x0, y0, x1, y1 = grid.box
        clip = pymupdf.Rect(x0 * scale, y0 * scale, x1 * scale, y1 * scale)
        crop = grey(page, 72 / scale, None, clip=clip)
        inner = unruled(np.frombuffer(crop.samples, np.uint8).reshape(crop.height, crop.width), grid)
        png = pymupdf.Pixmap(pymupdf.csGRAY, crop.width, crop.height, inner.tobytes(), 0).tobytes("png")
        box_tsv = _tsv(exe, png, lang, psm=6)
        alone = parse_tsv(box_tsv)
        read = sum(inside(grid.box, *centre) for centre, _ in words)
        if alone.confidence < BOX_CONFIDENCE or alone.words < read:
            continue
        placed = [
            (
                (cx + x0, cy + y0, r["text"].strip()),
                (int(r["block_num"]), int(r["par_num"]), int(r["line_num"])),
            )
            for (cx, cy), r in read_once(words_of(box_tsv))
        ]
        out.append((grid.box, replace(alone, text=grid_text(grid, placed))))
    return out


#: a box's inside is written on when this share of it is ink (a word of 8-pt type in a 1-inch box
#: at 300 dpi is about 1 %)
WRITTEN = 0.002


def _inked(pixels: Any, box: Box) -> bool:
    """Whether the inside of ``box`` (x0, y0, x1, y1 in ``pixels``, a grey image) holds ink: text the
    page's layout may have dropped whole (a table's shaded header row, its rows inside a frame)."""
    x0, y0, x1, y1 = box
    inner = pixels[y0:y1, x0:x1]
    return inner.size > 0 and float((inner < INK).mean()) >= WRITTEN


def read_region(
    page: object, clip: Any, lang: str = "eng", dpi: float = DPI, limits: Limits | None = None
) -> OcrPage:
    """OCR of one region of a PyMuPDF page (a picture on a page that has a text layer), rendered in grey at
    ``dpi`` or less within the pixel cap."""
    return _read(_tesseract_exe(), grey_png(page, dpi, limits, clip=clip), lang)


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
    ("ﬁ" -> "fi", full-width letters), hyphen variants as "-", soft hyphens dropped, a section sign
    spaced from its number as print sets it ("§ 2.1"), a squared unit's raised 2 that Tesseract read as a
    question mark put back ("cm?)" -> "cm²)"), a word broken at a line end joined where the
    joined word is the plausible one (quotes are matched with the same folding,
    :mod:`ragkit.core.folding`)."""
    import unicodedata

    from ragkit.ingestion.hyphenation import _Hyphenation

    text = unicodedata.normalize("NFKC", text).translate(_OCR_DASHES)
    text = _SECTION.sub(r"\1 ", text)  # "§2.1" as printed, "§ 2.1": Tesseract drops the thin space
    text = _SQUARED.sub(r"\1²", text)  # "(g/cm?)": Tesseract reads a raised 2 after a unit as "?"
    return _Hyphenation([text]).resolve([text])[0]  # "seg-⏎mentation" one word, "high-⏎quality" kept


#: a unit of length read with a question mark for its raised 2, in a compound unit ("g/cm?", "cGy*cm?")
#: or closing a bracket ("(cm?)"): a question may end on a bare unit ("is it 5 km?"), not these
_SQUARED = re.compile(r"(?:(?<=[/*·])|(?<=\()(?=\w+\?\)))([cmk]m|[µμ]m)\?")
#: a section or paragraph sign run into its number: print sets a (thin) space between them
_SECTION = re.compile(r"([§¶]{1,2})(?=\d)")
