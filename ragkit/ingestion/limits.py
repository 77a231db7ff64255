"""Caps on what one file may cost: the text and data it expands to, its pages, chunks and rendered pixels,
and the time and memory its parsing may take.

The file-size cap (``max_mb``) counts the bytes on disk; a container can expand far beyond them (a 0.9 MB
DOCX whose XML inflates to 220 MB; a 2 KB PDF whose doubly-compressed stream inflates to 300 MB). Each
cap is checked *before* the expanded data is built where the format allows it (every stream of a PDF
through its whole filter chain, every part of a DOCX, with bounded buffers), and on the text as it
accumulates otherwise. The parse worker (:mod:`ragkit.ingestion.worker`) holds every parse to the time,
memory and output caps whatever a parser does inside one page. Going over is that file's error; the rest
of the batch goes on.

Settings (environment), with their defaults:

- ``RAGKIT_MAX_TEXT_MB`` (64): text one document may expand to; also what one PDF content stream or the
  XML parts of a DOCX may decode to.
- ``RAGKIT_MAX_EXPANDED_MB`` (512): what all the streams of a PDF or all the parts of a DOCX may expand
  to together, and one image of a PDF at its declared size (images are drawn one page at a time).
- ``RAGKIT_MAX_PAGES`` (5,000): pages of one PDF.
- ``RAGKIT_MAX_MEGAPIXELS`` (25): pixels of one page rendered (OCR renders below 300 dpi to stay under
  it; the layout engine, which renders at 72 dpi, leaves a larger page to the text layer).
- ``RAGKIT_MAX_CHUNKS`` (100,000): chunks one file may produce.
- ``RAGKIT_MAX_PARSE_S`` (600): wall-clock seconds one document's parsing may take (inside a page too:
  the worker is stopped at the deadline).
- ``RAGKIT_PARSE_CPU_S`` (the wall-clock cap): CPU seconds of the worker for one document (set by the OS).
- ``RAGKIT_PARSE_MEMORY_MB`` (1024): resident memory of the parse worker (and the OCR program it runs);
  its address space is capped by the OS at what it had mapped when ready plus this much.
- ``RAGKIT_PARSE_OUTPUT_MB`` (256): the parsed document as the worker sends it back (JSON).
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field, fields
from typing import Any

from ragkit.core.errors import DocumentError
from ragkit.ingestion.expansion import decoded_size, image_frames, parse_filters, zip_parts

MB = 1024 * 1024

#: field -> (environment variable, default); ``cpu_s`` defaults to the wall-clock cap
ENV: dict[str, tuple[str, float]] = {
    "text_mb": ("RAGKIT_MAX_TEXT_MB", 64.0),
    "chunks": ("RAGKIT_MAX_CHUNKS", 100_000),
    "parse_s": ("RAGKIT_MAX_PARSE_S", 600.0),
    "expanded_mb": ("RAGKIT_MAX_EXPANDED_MB", 512.0),
    "pages": ("RAGKIT_MAX_PAGES", 5_000),
    "megapixels": ("RAGKIT_MAX_MEGAPIXELS", 25.0),
    "memory_mb": ("RAGKIT_PARSE_MEMORY_MB", 1024.0),
    "cpu_s": ("RAGKIT_PARSE_CPU_S", 0.0),
    "output_mb": ("RAGKIT_PARSE_OUTPUT_MB", 256.0),
}
TEXT_MB_ENV, CHUNKS_ENV, PARSE_S_ENV = (ENV[k][0] for k in ("text_mb", "chunks", "parse_s"))
DEFAULT_TEXT_MB, DEFAULT_CHUNKS, DEFAULT_PARSE_S = (ENV[k][1] for k in ("text_mb", "chunks", "parse_s"))


def _env_number(var: str, default: float) -> float:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{var} must be a number, got {raw!r}") from None
    if value <= 0 or math.isnan(value):
        raise ValueError(f"{var} must be positive, got {raw!r}")
    return value


def size_text(mb: float) -> str:
    """``1 GB``, ``512 MB``, ``0.5 MB``: a cap in the unit a person reads."""
    return f"{mb / 1024:g} GB" if mb >= 1024 and mb % 512 == 0 else f"{mb:g} MB"


@dataclass(frozen=True)
class Limits:
    """The caps one document is held to (see the module docstring)."""

    text_mb: float = 64.0
    chunks: int = 100_000
    parse_s: float = 600.0
    expanded_mb: float = 512.0
    pages: int = 5_000
    megapixels: float = 25.0
    memory_mb: float = 1024.0
    cpu_s: float = 600.0
    output_mb: float = 256.0

    @classmethod
    def from_env(cls) -> Limits:
        values: dict[str, Any] = {}
        for f in fields(cls):
            var, default = ENV[f.name]
            value = _env_number(var, default or values.get("parse_s", DEFAULT_PARSE_S))
            values[f.name] = int(value) if f.name in ("chunks", "pages") else value
        return cls(**values)

    @staticmethod
    def environment() -> dict[str, str]:
        """The caps' environment variables as set now (a worker started earlier is handed these)."""
        return {var: os.environ[var] for var, _ in ENV.values() if var in os.environ}

    @property
    def text_bytes(self) -> int:
        return int(self.text_mb * MB)

    @property
    def pixels(self) -> int:
        return int(self.megapixels * 1_000_000)

    def over_text(self, name: str, what: str = "text") -> DocumentError:
        return DocumentError(
            name, f"expands to more than {self.text_mb:g} MB of {what} (the cap; {TEXT_MB_ENV}): not indexed"
        )

    def check_chunks(self, name: str, n: int) -> None:
        """A file's chunk count against the cap."""
        if n > self.chunks:
            raise DocumentError(
                name, f"would make {n:,} chunks, over the {self.chunks:,} cap ({CHUNKS_ENV}): not indexed"
            )

    def render_dpi(self, width_pt: float, height_pt: float, dpi: float) -> float:
        """The resolution at which a page of this size renders within the pixel cap (``dpi`` or less)."""
        area = max(width_pt, 1.0) * max(height_pt, 1.0) / 72**2  # square inches
        return min(dpi, math.sqrt(self.pixels / area))


@dataclass
class Budget:
    """One document's running use of its caps: text so far, the parse deadline, what its PDF streams
    decode to (counted once)."""

    name: str
    limits: Limits = field(default_factory=Limits.from_env)
    used: int = 0
    started: float = field(default_factory=time.monotonic)
    streams: dict[int, int] = field(default_factory=dict)  # xref -> decoded size

    def add_text(self, n: int) -> None:
        self.used += n
        if self.used > self.limits.text_bytes:
            raise self.limits.over_text(self.name)

    def check_time(self, where: str) -> None:
        if time.monotonic() - self.started > self.limits.parse_s:
            raise DocumentError(
                self.name,
                f"parsing took more than {self.limits.parse_s:g} s (stopped at {where}; {PARSE_S_ENV})",
            )


def check_zip_expansion(
    name: str, data: bytes, limits: Limits, parts: tuple[str, ...] = (".xml", ".rels")
) -> None:
    """Refuse a ZIP container (DOCX) whose text parts declare more than the text cap, or whose parts
    together declare more than the expansion cap (a linked 1.5 GB "image", 2,000 entries sharing one
    kernel), before anything inflates."""
    members = zip_parts(data)
    if members is None:
        return  # not a ZIP: the format's own reader reports it
    declared = sum(size for n, size in members if n.lower().endswith(parts))
    if declared > limits.text_bytes:
        raise DocumentError(
            name,
            f"expands to more than {limits.text_mb:g} MB of XML ({declared / MB:,.0f} MB declared inside "
            f"{len(data) / MB:.1f} MB; the cap is {TEXT_MB_ENV}): not indexed",
        )
    total = sum(size for _, size in members)
    if total > limits.expanded_mb * MB:
        big = max(members, key=lambda m: m[1])
        raise DocumentError(
            name,
            f"expands to more than {size_text(limits.expanded_mb)} ({total / MB:,.0f} MB declared by its "
            f"{len(members):,} parts, the largest {big[0]} of {big[1] / MB:,.0f} MB; the cap is "
            f"{ENV['expanded_mb'][0]}): not indexed",
        )


def _stream_xrefs(doc: Any) -> list[int]:
    """The objects that can hold a stream: objects stored on their own (an object inside an object stream
    never is one), read from the cross-reference table so no object stream is inflated to find them."""
    try:
        import pymupdf

        pdf = pymupdf._as_pdf_document(doc)
        entry = pymupdf.mupdf.ll_pdf_get_xref_entry_no_null
        return [x for x in range(1, doc.xref_length()) if entry(pdf.m_internal, x).type == "n"]
    except Exception:  # another PyMuPDF: every object (reading one may inflate its object stream)
        return list(range(1, doc.xref_length()))


def _key(doc: Any, xref: int, key: str) -> str:
    kind, value = doc.xref_get_key(xref, key)
    if kind == "xref":  # an indirect value: read the object it points to
        return str(doc.xref_object(int(value.split()[0]), compressed=True))
    return "" if kind == "null" else str(value)


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


_COMPONENTS = {"/DeviceGray": 1, "/CalGray": 1, "/DeviceRGB": 3, "/CalRGB": 3, "/DeviceCMYK": 4}


def _image_bytes(doc: Any, xref: int) -> int:
    """What an image XObject decodes to, from its declared size (what MuPDF allocates to draw it)."""
    w, h = _number(_key(doc, xref, "Width")), _number(_key(doc, xref, "Height"))
    bpc = _number(_key(doc, xref, "BitsPerComponent")) or 8
    return int(w * h * _COMPONENTS.get(_key(doc, xref, "ColorSpace"), 4) * bpc / 8)


def check_pdf(name: str, doc: Any, budget: Budget) -> None:
    """Refuse a PDF with more pages than the cap, or whose streams decode (through every filter of each
    chain) past the caps: one content stream, form or font past the text cap, all of them together or
    one image (at its declared size) past the expansion cap. Sizes are kept for
    :func:`check_page_streams`."""
    limits = budget.limits
    try:
        pages = doc.page_count
    except Exception as e:  # MuPDF refuses a page tree that loops or lies about its count
        raise DocumentError(name, f"the PDF's page tree is broken ({e}): not indexed") from None
    if pages > limits.pages:
        raise DocumentError(
            name, f"has {pages:,} pages, over the {limits.pages:,}-page cap ({ENV['pages'][0]}): not indexed"
        )
    total, cap = 0, int(limits.expanded_mb * MB)
    over = f"more than {size_text(limits.expanded_mb)} (the cap; {ENV['expanded_mb'][0]}): not indexed"
    for k, xref in enumerate(_stream_xrefs(doc)):
        if k % 256 == 0:
            budget.check_time("checking its streams")
        try:
            if not doc.xref_is_stream(xref) or _key(doc, xref, "Type") == "/EmbeddedFile":
                continue  # an attachment is never read
            subtype = _key(doc, xref, "Subtype")
            if subtype == "/Image":
                if _image_bytes(doc, xref) > cap:
                    raise DocumentError(name, f"an image (object {xref}) decodes to {over}")
                continue  # drawn one page at a time, each image on its own within the cap
            filters = parse_filters(_key(doc, xref, "Filter"))
            raw = doc.xref_stream_raw(xref)
            size = decoded_size(raw, filters, limits.text_bytes) if filters else len(raw)
        except DocumentError:
            raise
        except Exception:
            continue  # a damaged object: MuPDF repairs or reports it where it is read
        if size is None:
            what = "form" if subtype == "/Form" else "stream"
            raise DocumentError(
                name,
                f"its {what} object {xref} (filters {' '.join(filters)}) expands to more than "
                f"{limits.text_mb:g} MB (a decompression bomb?; {TEXT_MB_ENV}): not indexed",
            )
        budget.streams[xref] = size
        total += size
        if total > cap:
            raise DocumentError(name, f"its streams expand to {over}")


def check_page_streams(name: str, doc: Any, page: Any, i: int, budget: Budget) -> None:
    """Refuse PDF page ``i`` when its content streams decode past the text cap, through each stream's
    whole filter chain with bounded buffers, before MuPDF or pdfplumber inflate them whole."""
    limit = budget.limits.text_bytes
    for xref in page.get_contents():
        size = budget.streams.get(xref)
        if size is None:
            filters = parse_filters(_key(doc, xref, "Filter"))
            size = decoded_size(doc.xref_stream_raw(xref), filters, limit) if filters else 0
        if size is None or size > limit:
            raise DocumentError(
                name,
                f"page {i + 1}'s content stream expands to more than {budget.limits.text_mb:g} MB "
                "(a decompression bomb?): not indexed",
            )


def too_big_to_render(page: Any, limits: Limits, dpi: float = 72.0) -> bool:
    """Whether rendering ``page`` at ``dpi`` would pass the pixel cap (the layout engine renders at 72)."""
    return limits.render_dpi(page.rect.width, page.rect.height, dpi) < dpi


def check_image(name: str, data: bytes, limits: Limits) -> None:
    """Refuse an image (PNG, JPEG, TIFF) whose frames declare more pixels than the expansion cap holds, or
    more frames than the page cap, before one is decoded (a 1.6 MB PNG can declare 40,000 × 40,000)."""
    frames = image_frames(data, limits.pages + 1)
    if len(frames) > limits.pages:
        raise DocumentError(
            name, f"has more than {limits.pages:,} frames, over the page cap ({ENV['pages'][0]}): not indexed"
        )
    for w, h, n in frames:
        if w * h * n > limits.expanded_mb * MB:
            raise DocumentError(
                name,
                f"is an image of {w:,} × {h:,} pixels: it decodes to more than "
                f"{size_text(limits.expanded_mb)} (the cap; {ENV['expanded_mb'][0]}): not indexed",
            )
