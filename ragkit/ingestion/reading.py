"""Reading a file safely: regular files only, symlinks kept inside their folder, a size limit counted on the
bytes read, and the checks every format shares (extension, size, binary data)."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from ragkit.core.errors import DocumentError

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
    # scanned pages as images: read by OCR
    ".png": "image",
    ".jpg": "image",
    ".jpeg": "image",
    ".tif": "image",
    ".tiff": "image",
}


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


def pages_named(pages: Iterable[int]) -> str:
    """``"page 4"`` or ``"pages 8–14"``: the pages a note speaks of, one or several."""
    nums = sorted(set(pages))
    return f"page {nums[0]}" if len(nums) == 1 else f"pages {page_ranges(nums)}"


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
