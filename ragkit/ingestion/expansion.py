"""What compressed data expands to, counted through bounded buffers: a PDF stream through its whole filter
chain (any number of filters, in any order), the parts of a ZIP container, the frames of an image from
its headers; so a cap can refuse a bomb before a parser inflates it whole. Pure functions: the caps
themselves live in :mod:`ragkit.ingestion.limits`.
"""

from __future__ import annotations

import base64
import binascii
import io
import re
import struct
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


def image_frames(data: bytes, most: int = 10_000) -> list[tuple[int, int, int]]:
    """``(width, height, channels)`` of each frame of a PNG, JPEG or TIFF, read from its headers (nothing
    is decoded); empty when the format is not one of these or its header is damaged."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n":
            w, h, _, colour = struct.unpack(">IIBB", data[16:26])
            return [(w, h, {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour, 4))]
        if data[:2] == b"\xff\xd8":
            return _jpeg(data)
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(data, most)
    except (struct.error, IndexError, ValueError):
        pass
    return []


def _jpeg(data: bytes) -> list[tuple[int, int, int]]:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return []
        marker, size = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
            h, w, n = struct.unpack(">HHB", data[i + 5 : i + 10])
            return [(w, h, n)]
        i += 2 + size
    return []


def _tiff(data: bytes, most: int) -> list[tuple[int, int, int]]:
    end = "<" if data[:2] == b"II" else ">"
    (offset,) = struct.unpack(end + "I", data[4:8])
    frames, seen = [], set()
    while offset and offset not in seen and len(frames) < most:
        seen.add(offset)
        (count,) = struct.unpack(end + "H", data[offset : offset + 2])
        tags: dict[int, int] = {}
        for k in range(count):
            at = offset + 2 + 12 * k
            tag, kind = struct.unpack(end + "HH", data[at : at + 4])
            value = struct.unpack(
                end + ("H" if kind == 3 else "I"), data[at + 8 : at + (10 if kind == 3 else 12)]
            )
            tags[tag] = value[0]
        frames.append((tags.get(256, 0), tags.get(257, 0), tags.get(277, 1)))
        (offset,) = struct.unpack(end + "I", data[offset + 2 + 12 * count : offset + 6 + 12 * count])
    return frames
