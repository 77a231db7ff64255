"""Text files -> str: byte-order marks, UTF-8, a detected legacy encoding, and mixed-encoding files decoded
line by line."""

from __future__ import annotations

from ragkit.core.errors import DocumentError
from ragkit.ingestion.reading import page_ranges

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
