"""The parse worker's wire format: frames of one type byte (``J``: a JSON object, ``B``: raw bytes) and an
8-byte length, over the worker's stdin and stdout. Nothing is pickled: a request is JSON (plus the file's
bytes when the worker cannot read it from disk), a parsed document comes back as ``Document.to_dict()``.
"""

from __future__ import annotations

import json
import os
import re
import struct
from dataclasses import dataclass, field
from typing import Any

HEADER = struct.Struct(">cQ")
JSON, BYTES = b"J", b"B"


def write_frame(fd: int, kind: bytes, payload: bytes) -> None:
    """Write one frame to ``fd`` (all of it: a pipe may take it in parts)."""
    view = memoryview(HEADER.pack(kind, len(payload)) + payload) if len(payload) < 1 << 16 else None
    if view is None:
        _write_all(fd, memoryview(HEADER.pack(kind, len(payload))))
        view = memoryview(payload)
    _write_all(fd, view)


def _write_all(fd: int, view: memoryview) -> None:
    while view:
        n = os.write(fd, view[: 1 << 20])
        view = view[n:]


def write_json(fd: int, obj: dict[str, Any]) -> None:
    write_frame(fd, JSON, json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def read_exactly(fd: int, n: int) -> bytes | None:
    """``n`` bytes from ``fd``, or None at end of file."""
    parts, got = [], 0
    while got < n:
        block = os.read(fd, min(n - got, 1 << 20))
        if not block:
            return None
        parts.append(block)
        got += len(block)
    return b"".join(parts)


def read_frame(fd: int) -> tuple[bytes, bytes] | None:
    """One frame (kind, payload) from ``fd``; None at end of file."""
    head = read_exactly(fd, HEADER.size)
    if head is None:
        return None
    kind, size = HEADER.unpack(head)
    payload = read_exactly(fd, size)
    return None if payload is None else (kind, payload)


def status_kb(pid: int | str = "self") -> dict[str, int]:
    """``VmSize``, ``VmRSS``, ``VmPeak``… of a process in KB (empty when it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return {m[1]: int(m[2]) for m in re.finditer(r"^(Vm\w+):\s+(\d+) kB", f.read(), re.M)}
    except OSError:
        return {}


@dataclass
class Request:
    """One file to parse: from ``path`` (the worker reads it under the same guards as ever) or from
    ``data`` (an upload, a fetched page); ``fetched`` holds a page's final URL and content type."""

    name: str
    path: str | None = None
    data: bytes | None = None
    max_mb: float = 50.0
    root: str | None = None
    follow_symlinks: bool = False
    settings: dict[str, Any] = field(default_factory=dict)  # a ParseSettings' fields
    fetched: dict[str, Any] | None = None  # {"url", "content_type", "status"} of a fetched page
    env: dict[str, str] = field(default_factory=dict)  # the caps' settings when the request was made

    def header(self) -> dict[str, Any]:
        h = {k: v for k, v in self.__dict__.items() if k != "data"}
        h["has_data"] = self.data is not None
        h["max_mb"] = None if self.max_mb == float("inf") else self.max_mb  # JSON has no infinity
        return h

    @classmethod
    def for_page(cls, url: str, page: Any) -> Request:
        """A fetched page (a ``Fetched``): its body, final URL and content type; named by ``url``."""
        meta = {"url": page.url, "content_type": page.content_type, "status": page.status}
        return cls(url, data=page.data, fetched=meta)

    @classmethod
    def from_header(cls, h: dict[str, Any], data: bytes | None) -> Request:
        fields = {k: v for k, v in h.items() if k != "has_data"}
        fields["max_mb"] = float("inf") if h.get("max_mb") is None else h["max_mb"]
        return cls(**fields, data=data)
