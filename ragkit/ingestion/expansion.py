"""What compressed data expands to, counted through bounded buffers: a PDF stream through its whole filter
chain (any number of filters, in any order) and the parts of a ZIP container, so a cap can refuse a bomb
before a parser inflates it whole. Pure functions: the caps themselves live in :mod:`ragkit.ingestion.limits`.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import zipfile
import zlib
from collections.abc import Iterable, Iterator

BLOCK = 1 << 20  # no stage holds or yields more than about this much at once

#: filters whose output is image pixels (bounded by the image's declared size), or encryption: the chain
#: is counted up to them
OPAQUE = {"DCTDecode", "DCT", "JPXDecode", "CCITTFaxDecode", "CCF", "JBIG2Decode", "Crypt"}


def _flate(src: Iterable[bytes]) -> Iterator[bytes]:
    d = zlib.decompressobj()
    try:
        for chunk in src:
            while chunk:
                out = d.decompress(chunk, BLOCK)
                if out:
                    yield out
                chunk = d.unconsumed_tail
            if d.eof:
                return
        yield d.flush()
    except zlib.error:
        return  # a damaged stream ends here: MuPDF repairs or reports it


def _lzw(src: Iterable[bytes], early: int = 1) -> Iterator[bytes]:
    """PDF's LZW (9–12-bit codes, 256 clears, 257 ends; ``early``: the code width grows one code early)."""
    table = [bytes([i]) for i in range(256)] + [b"", b""]
    width, prev, bits, nbits = 9, b"", 0, 0
    out = bytearray()
    for chunk in src:
        for byte in chunk:
            bits, nbits = (bits << 8) | byte, nbits + 8
            while nbits >= width:
                nbits -= width
                code = (bits >> nbits) & ((1 << width) - 1)
                bits &= (1 << nbits) - 1
                if code == 256:
                    del table[258:]
                    width, prev = 9, b""
                    continue
                if code == 257:
                    yield bytes(out)
                    return
                if code < len(table):
                    entry = table[code]
                    if prev and len(table) < 4096:
                        table.append(prev + entry[:1])
                elif code == len(table) and prev and len(table) < 4096:
                    entry = prev + prev[:1]
                    table.append(entry)
                else:
                    yield bytes(out)
                    return  # a damaged stream
                out += entry
                prev = entry
                if len(table) + early >= 1 << width and width < 12:
                    width += 1
                if len(out) >= BLOCK:
                    yield bytes(out)
                    out.clear()
    yield bytes(out)


def _run_length(src: Iterable[bytes]) -> Iterator[bytes]:
    out, pending = bytearray(), b""
    for chunk in src:
        data, i = pending + chunk, 0
        while i < len(data):
            n = data[i]
            if n == 128:
                yield bytes(out)
                return
            if n < 128:
                if i + n + 2 > len(data):
                    break
                out += data[i + 1 : i + n + 2]
                i += n + 2
            else:
                if i + 2 > len(data):
                    break
                out += data[i + 1 : i + 2] * (257 - n)
                i += 2
            if len(out) >= BLOCK:
                yield bytes(out)
                out.clear()
        pending = data[i:]
    yield bytes(out)


_SPACE = b" \t\r\n\f\x00"


def _ascii_hex(src: Iterable[bytes]) -> Iterator[bytes]:
    carry = b""
    for chunk in src:
        data = carry + chunk.translate(None, _SPACE)
        end = data.find(b">")
        if end >= 0:
            data = data[:end] + (b"0" if end % 2 else b"")
        cut = len(data) - len(data) % 2
        try:
            yield binascii.unhexlify(data[:cut])
        except binascii.Error:
            return
        if end >= 0:
            return
        carry = data[cut:]


#: whole ASCII85 groups ('z' stands for four zero bytes), a bounded run of them at a time
_A85_RUN = re.compile(rb"(?:z|[!-u]{5}){1,65536}")


def _ascii85(src: Iterable[bytes]) -> Iterator[bytes]:
    carry = b""
    for chunk in src:
        data = carry + chunk.translate(None, _SPACE)
        end = data.find(b"~>")
        if end >= 0:
            data = data[:end]
        pos = 0
        try:
            while m := _A85_RUN.match(data, pos):
                yield base64.a85decode(m.group())
                pos = m.end()
            if end >= 0:
                yield base64.a85decode(data[pos:])  # the last, partial group
                return
        except ValueError:
            return
        carry = data[pos:]
        if len(carry) >= 5:
            return  # a character ASCII85 does not use
    yield b""


_DECODERS = {
    "FlateDecode": _flate, "Fl": _flate, "LZWDecode": _lzw, "LZW": _lzw,
    "RunLengthDecode": _run_length, "RL": _run_length,
    "ASCIIHexDecode": _ascii_hex, "AHx": _ascii_hex, "ASCII85Decode": _ascii85, "A85": _ascii85,
}  # fmt: skip


def parse_filters(value: str) -> list[str]:
    """PyMuPDF's rendering of a ``/Filter`` value (``/FlateDecode``, ``[/A85 /Fl]``) as filter names."""
    return re.findall(r"/([^\s/\[\]<>()]+)", value or "")


def decoded_size(raw: bytes, filters: list[str], limit: int, early: list[int] | None = None) -> int | None:
    """The size ``raw`` decodes to through ``filters`` (applied in order), or None once it passes ``limit``.
    Memory stays at a few bounded buffers per stage whatever the chain holds; the chain is counted up to
    the first image or unknown filter (its input is what that decoder is handed)."""
    stream: Iterable[bytes] = (raw,)
    for k, name in enumerate(filters):
        decoder = _DECODERS.get(name)
        if decoder is None:
            break
        if decoder is _lzw:
            stream = _lzw(stream, early[k] if early and k < len(early) else 1)
        else:
            stream = decoder(stream)
    size = 0
    for block in stream:
        size += len(block)
        if size > limit:
            return None
    return size


def zip_parts(data: bytes) -> list[tuple[str, int]] | None:
    """Every member of a ZIP container with its declared size (``zipfile`` never yields more than a member
    declares: one that inflates beyond it fails its check); None when ``data`` is not a ZIP."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            return [(i.filename, i.file_size) for i in z.infolist()]
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
