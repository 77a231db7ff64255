"""Caps on what one file may expand to: decompressed text, chunks and parse time.

The file-size cap (``max_mb``) counts the bytes on disk; a container can expand far beyond them (a 0.9 MB
DOCX whose XML inflates to 220 MB; a PDF page whose compressed stream inflates to gigabytes). Each cap is
checked *before* the expanded data is built where the format allows it (a DOCX's declared part sizes, a
PDF page's content stream inflated with a bounded buffer), and on the text as it accumulates otherwise.
Going over is that file's error; the rest of the batch goes on.

Settings (environment): ``RAGKIT_MAX_TEXT_MB`` (text and XML one document may expand to, default 64),
``RAGKIT_MAX_CHUNKS`` (chunks one file may produce, default 100,000), ``RAGKIT_MAX_PARSE_S`` (seconds
one document's parsing may take, default 600).
"""

from __future__ import annotations

import io
import os
import time
import zipfile
import zlib
from dataclasses import dataclass, field

from ragkit.core.errors import DocumentError

TEXT_MB_ENV, CHUNKS_ENV, PARSE_S_ENV = "RAGKIT_MAX_TEXT_MB", "RAGKIT_MAX_CHUNKS", "RAGKIT_MAX_PARSE_S"
DEFAULT_TEXT_MB, DEFAULT_CHUNKS, DEFAULT_PARSE_S = 64.0, 100_000, 600.0
MB = 1024 * 1024


def _env_number(var: str, default: float) -> float:
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{var} must be a number, got {raw!r}") from None
    if value <= 0:
        raise ValueError(f"{var} must be positive, got {raw!r}")
    return value


@dataclass(frozen=True)
class Limits:
    """The caps one document is held to (see the module docstring)."""

    text_mb: float = DEFAULT_TEXT_MB
    chunks: int = DEFAULT_CHUNKS
    parse_s: float = DEFAULT_PARSE_S

    @classmethod
    def from_env(cls) -> Limits:
        return cls(
            _env_number(TEXT_MB_ENV, DEFAULT_TEXT_MB),
            int(_env_number(CHUNKS_ENV, DEFAULT_CHUNKS)),
            _env_number(PARSE_S_ENV, DEFAULT_PARSE_S),
        )

    @property
    def text_bytes(self) -> int:
        return int(self.text_mb * MB)

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


@dataclass
class Budget:
    """One document's running use of its caps: text so far and the parse deadline."""

    name: str
    limits: Limits = field(default_factory=Limits.from_env)
    used: int = 0
    started: float = field(default_factory=time.monotonic)

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
    """Refuse a ZIP container (DOCX) whose text parts declare more than the cap, before anything inflates.

    ``zipfile`` never yields more than a member's declared size (a member that inflates beyond it fails its
    CRC check), so the declared sizes bound what the parser can be handed."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            declared = sum(i.file_size for i in z.infolist() if i.filename.lower().endswith(parts))
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a ZIP: the format's own reader reports it
    if declared > limits.text_bytes:
        raise DocumentError(
            name,
            f"expands to more than {limits.text_mb:g} MB of XML ({declared / MB:,.0f} MB declared inside "
            f"{len(data) / MB:.1f} MB; the cap is {TEXT_MB_ENV}): not indexed",
        )


def inflated_size(raw: bytes, limit: int) -> int | None:
    """The size ``raw`` (a zlib/Flate stream) inflates to, or None once it passes ``limit`` bytes; memory
    stays at one bounded buffer whatever the stream holds."""
    d = zlib.decompressobj()
    size, chunk = 0, raw
    try:
        while chunk:
            out = d.decompress(chunk, 1 << 20)
            size += len(out)
            if size > limit:
                return None
            chunk = d.unconsumed_tail
        size += len(d.flush())
    except zlib.error:
        return size  # a damaged stream: MuPDF repairs or reports it
    return size if size <= limit else None


def check_page_streams(name: str, doc: object, page: object, i: int, budget: Budget) -> None:
    """Refuse PDF page ``i`` when one of its Flate content streams inflates past the text cap, measured
    with a bounded buffer before MuPDF or pdfplumber inflate it whole."""
    limit = budget.limits.text_bytes
    for xref in page.get_contents():  # type: ignore[attr-defined]
        _, value = doc.xref_get_key(xref, "Filter")  # type: ignore[attr-defined]
        if value not in ("/FlateDecode", "[/FlateDecode]"):
            continue
        if inflated_size(doc.xref_stream_raw(xref), limit) is None:  # type: ignore[attr-defined]
            raise DocumentError(
                name,
                f"page {i + 1}'s content stream expands to more than {budget.limits.text_mb:g} MB "
                "(a decompression bomb?): not indexed",
            )
