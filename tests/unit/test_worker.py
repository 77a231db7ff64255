"""The parse worker: documents come back exactly as an in-process parse makes them (as JSON), a breach
of any cap (memory, wall time, CPU time, output) is that file's error while the next file is parsed by a
fresh worker, the calling process does not grow, and stopping a batch stops its worker."""

from __future__ import annotations

import os
import signal

import pytest

from ragkit.core.errors import DocumentError
from ragkit.ingestion.parse import load_document, parse_bytes
from ragkit.ingestion.worker import ParseSession, Request
from ragkit.ingestion.worker.protocol import status_kb
from tests.adversarial import PDFS
from tests.bombs import glyph_storm_pdf

GOOD = b"The kiln reached cone 10 after eleven hours of firing."


def _status(pid: int) -> str:
    """A process's /proc status; a process that is gone reads as a zombie."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return f.read()
    except OSError:
        return "State:\tZ"


@pytest.fixture(scope="module")
def storm(tmp_path_factory):
    """One page that costs tens of seconds and more than a gigabyte to parse, from 2 KB."""
    return glyph_storm_pdf(tmp_path_factory.mktemp("storm") / "storm.pdf")


def test_a_document_comes_back_exactly_as_an_in_process_parse_makes_it(tmp_path):
    pdf = PDFS / "docling_multi_page.pdf"
    md = tmp_path / "notes ü.md"
    md.write_text(
        "# Título\n\nLine one.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\x0cSecond page.", encoding="utf-8"
    )
    pages: list[tuple[int, int]] = []
    with ParseSession() as s:
        from_path = s.parse(
            Request("docling_multi_page.pdf", path=str(pdf)), lambda d, t: pages.append((d, t))
        )
        from_bytes = s.parse(Request(md.name, data=md.read_bytes()))
        with pytest.raises(DocumentError, match=r"^empty\.txt: the file is empty"):
            s.parse(Request("empty.txt", data=b""))
        again = s.parse(Request("good.txt", data=GOOD))  # a file's own error leaves the worker serving
    assert from_path.to_dict() == load_document(pdf).to_dict()
    assert from_bytes.to_dict() == parse_bytes(md.name, md.read_bytes()).to_dict()
    assert pages[-1] == (5, 5) and [d for d, _ in pages] == sorted(d for d, _ in pages)
    assert again.pages[0].text == GOOD.decode()


def test_memory_over_the_cap_is_that_files_error_and_the_next_file_gets_a_fresh_worker(storm, monkeypatch):
    monkeypatch.setenv("RAGKIT_PARSE_MEMORY_MB", "400")  # the storm's one page needs more than a GB
    before = status_kb()["VmRSS"]
    with ParseSession() as s:
        with pytest.raises(DocumentError) as e:
            s.parse(Request("storm.pdf", path=str(storm)))
        assert s._worker is None  # the breached worker is gone
        doc = s.parse(Request("good.txt", data=GOOD))
    assert (
        str(e.value) == "storm.pdf: parsing used more than 400 MB of memory (RAGKIT_PARSE_MEMORY_MB): refused"
    )
    assert doc.pages[0].text == GOOD.decode()
    assert (status_kb()["VmRSS"] - before) / 1024 < 50  # this process never held what the parse built


def test_wall_time_is_enforced_inside_a_page(storm, monkeypatch):
    monkeypatch.setenv("RAGKIT_MAX_PARSE_S", "2")  # the single page alone takes far longer
    monkeypatch.setenv(
        "RAGKIT_PARSE_CPU_S", "600"
    )  # (by default the CPU cap is the wall cap: it could trip first)
    with ParseSession() as s:
        with pytest.raises(
            DocumentError, match=r"^storm\.pdf: parsing took more than 2 s \(RAGKIT_MAX_PARSE_S"
        ):
            s.parse(Request("storm.pdf", path=str(storm)))
        assert s.parse(Request("good.txt", data=GOOD)).pages[0].text == GOOD.decode()


def test_cpu_seconds_are_capped_by_the_os(storm, monkeypatch):
    monkeypatch.setenv("RAGKIT_PARSE_CPU_S", "1")
    with (
        ParseSession() as s,
        pytest.raises(DocumentError, match=r"parsing used more than 1 s of CPU time \(RAGKIT_PARSE_CPU_S\)"),
    ):
        s.parse(Request("storm.pdf", path=str(storm)))


def test_output_over_the_cap_is_refused(monkeypatch):
    monkeypatch.setenv("RAGKIT_PARSE_OUTPUT_MB", "0.05")
    over = r"^big\.txt: parsing produced 0\.1 MB of output, over the 0\.05 MB cap \(RAGKIT_PARSE_OUTPUT_MB\)"
    with ParseSession() as s, pytest.raises(DocumentError, match=over):
        s.parse(Request("big.txt", data=b"word " * 20_000))


def test_a_parser_crash_is_that_files_error(storm):
    with ParseSession() as s:
        s.submit(Request("storm.pdf", path=str(storm)))
        os.kill(s._worker.proc.pid, signal.SIGSEGV)  # as a bug in a C parser would
        with pytest.raises(DocumentError, match=r"^storm\.pdf: the parser crashed \(SIGSEGV\): not indexed"):
            s.result()
        assert s.parse(Request("next.txt", data=GOOD)).pages[0].text == GOOD.decode()


def test_stopping_a_batch_mid_file_stops_its_worker():
    seen: list[int] = []

    def stop(done: int, total: int) -> None:
        seen.append(s._worker.proc.pid)
        raise KeyboardInterrupt  # a Ctrl-C, or a Stop in the app, arriving with progress

    with pytest.raises(KeyboardInterrupt), ParseSession() as s:
        s.parse(Request("real.pdf", path=str(PDFS / "docling_multi_page.pdf")), stop)
    assert seen and "State:\tZ" in _status(seen[0])  # gone, not left parsing


def test_one_users_next_batch_reuses_a_healthy_worker_but_visitors_never_share_one():
    from ragkit.ingestion.netpolicy import serve_visitors

    with ParseSession() as a, ParseSession() as b:  # two batches at once: two workers
        a.parse(Request("a.txt", data=GOOD))
        b.parse(Request("b.txt", data=GOOD))
        pids = {a._worker.proc.pid, b._worker.proc.pid}
        assert len(pids) == 2
    with ParseSession() as c:  # one user (the CLI, a script): the next batch takes a healthy worker
        c.parse(Request("c.txt", data=GOOD))
        assert c._worker.proc.pid in pids
    serve_visitors()  # the app: a worker serves one session, then stops
    with ParseSession() as d:
        d.parse(Request("d.txt", data=GOOD))
        pid = d._worker.proc.pid
        assert pid not in pids  # the idle worker of before is not handed to a visitor
    assert "State:\tZ" in _status(pid)  # stopped with its session
    with ParseSession() as e:
        e.parse(Request("e.txt", data=GOOD))
        assert e._worker.proc.pid != pid


def test_a_worker_lives_as_long_as_its_process_and_no_longer(tmp_path):
    import subprocess
    import sys
    import threading
    import time

    from ragkit.ingestion.worker import POOL

    thread = threading.Thread(target=POOL.keep_warm)  # as the app's script thread starts the spare
    thread.start()
    thread.join()
    time.sleep(0.5)
    assert POOL._spares and all(w.alive for w in POOL._spares)  # not killed with the thread that asked
    script = (
        "import os, sys\nfrom ragkit.ingestion.worker import ParseSession, Request\n"
        "s = ParseSession()\ns.parse(Request('a.txt', data=b'x'))\n"
        "print(s._worker.proc.pid, flush=True)\nos.kill(os.getpid(), 9)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip(), out.stderr[-2000:]
    pid = int(out.stdout.split()[0])
    deadline = time.monotonic() + 10
    while "State:\tZ" not in _status(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert "State:\tZ" in _status(pid)  # killed with its parent, not left parsing


def test_the_worker_imports_the_ragkit_its_parent_runs_not_one_in_the_working_directory(
    tmp_path, monkeypatch
):
    """A benchmark run from another checkout (or any directory holding a ``ragkit`` folder, or a file
    named like a parser's library) parsed with that directory's code: ``-m`` puts the working directory
    first on the child's path."""
    shadow = tmp_path / "ragkit"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('the working directory was imported')\n")
    (tmp_path / "pymupdf.py").write_text("raise ImportError('a shadowing pymupdf was imported')\n")
    monkeypatch.chdir(tmp_path)
    with ParseSession() as s:
        doc = s.parse(Request("good.txt", data=GOOD))
        pdf = s.parse(Request("docling_multi_page.pdf", path=str(PDFS / "docling_multi_page.pdf")))
    assert doc.pages[0].text == GOOD.decode() and len(pdf.pages) == 5
