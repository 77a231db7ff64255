"""Unit tests of :mod:`ragkit.ingestion.reading`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.core.errors import DocumentError
from ragkit.ingestion.parse import load_document
from ragkit.ingestion.reading import page_ranges
from tests.ingest_processes import finish, run_ingest

ROOT = Path(__file__).resolve().parents[2]


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def test_fifo_and_device_symlinks_are_refused_and_the_rest_of_the_batch_indexed(tmp_path, fake_embedder):
    import os

    good = write(tmp_path, "good.txt", "Good text stays. " * 30)
    os.mkfifo(tmp_path / "pipe.txt")
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    (tmp_path / "passwd.txt").symlink_to("/etc/passwd")
    files = [tmp_path / "pipe.txt", tmp_path / "zero.txt", good, tmp_path / "passwd.txt"]
    proc = run_ingest(tmp_path / "idx", files, follow=False)
    by = {f["file"]: f for f in finish(proc, timeout=60)["files"]}  # a FIFO read would hang: timeout
    assert "pipe.txt: is a FIFO (named pipe), not a regular file" in by["pipe.txt"]["error"]
    assert "zero.txt: is a symbolic link to /dev/zero" in by["zero.txt"]["error"]
    assert "passwd.txt: is a symbolic link to /etc/passwd" in by["passwd.txt"]["error"]
    assert by["good.txt"]["action"] == "added"
    # asked to follow links: the device is still refused (a character device is not a file), passwd is read
    by = {
        f["file"]: f for f in finish(run_ingest(tmp_path / "idx2", files, follow=True), timeout=60)["files"]
    }
    assert "zero.txt: is a character device, not a regular file" in by["zero.txt"]["error"]
    assert by["passwd.txt"]["status"] == "ok"


def test_size_limit_counts_bytes_read_not_the_reported_size(tmp_path):
    proc_file = Path("/proc/self/status")  # reports size 0, holds text
    with pytest.raises(DocumentError, match=r"is a symbolic link|not a regular file|unsupported"):
        load_document(proc_file)
    big = write(tmp_path, "big.txt", "x" * 3000)
    with pytest.raises(DocumentError, match=r"big\.txt: the file is 0\.0 MB, over the 0\.001 MB size limit"):
        load_document(big, max_mb=0.001)


def test_long_page_lists_are_summarised():
    assert page_ranges(range(1, 3001)) == "1–3000"
    assert page_ranges([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert "… (40 pages in all)" in page_ranges(range(1, 80, 2))
