"""Unit tests of :mod:`ragkit.core.progress`."""

from __future__ import annotations

import io

from ragkit.core.progress import CliProgress, StageClock, format_duration


def test_progress_lines_carry_rate_and_eta():
    clock = StageClock()
    assert clock.line("embed", 0, 400, now=100.0) == "embed: 0/400 chunks"
    assert clock.line("embed", 100, 400, now=104.0) == "embed: 100/400 chunks · 25.0/s · ETA 12 s"
    assert clock.line("page a.pdf", 3, 15, now=104.0) == "page a.pdf: 3/15 pages"
    assert format_duration(552) == "9 min 12 s" and format_duration(7380) == "2 h 3 min"


def test_cli_progress_prints_lines_when_stderr_is_not_a_terminal():
    out = io.StringIO()  # what a redirected stderr is
    p = CliProgress(stream=out, interval=0.0)
    for done in (0, 50, 100):
        p("query", done, 100)
    lines = out.getvalue().splitlines()
    assert lines[0] == "query: 0/100" and lines[-1].startswith("query: 100/100")
    quiet = io.StringIO()
    slow = CliProgress(stream=quiet, interval=3600)
    for done in range(1, 100):
        slow("embed", done, 100)
    slow("embed", 100, 100)
    assert len(quiet.getvalue().splitlines()) == 2  # the first event, then the end of the stage


def test_first_progress_line_printed_on_a_machine_booted_a_second_ago(monkeypatch):
    """``time.monotonic()`` counts from boot on Linux: right after boot it is below any interval."""
    import ragkit.core.progress as progress

    monkeypatch.setattr(progress.time, "monotonic", lambda: 0.5)
    out = io.StringIO()
    CliProgress(stream=out, interval=5.0)("parse", 0, 3)
    assert out.getvalue().splitlines() == ["parse: 0/3 files"]


def test_a_stage_detail_changing_every_event_keeps_one_rate_and_one_line_per_interval():
    """A sweep names the set-up answering at each event: the rate, the ETA and the printed lines belong
    to the stage, not to each set-up's name."""
    clock = StageClock()
    assert clock.line("sweep — look 1 of 10; bm25: 1 of 30 questions", 1, 401, now=10.0) == (
        "sweep: 1/401 question evaluations (look 1 of 10; bm25: 1 of 30 questions)"
    )
    assert clock.line("sweep — look 2 of 10; dense: 31 of 60 questions", 101, 401, now=14.0) == (
        "sweep: 101/401 question evaluations · 25.0/s · ETA 12 s (look 2 of 10; dense: 31 of 60 questions)"
    )
    out = io.StringIO()
    p = CliProgress(stream=out, interval=3600)
    for done in range(1, 60):
        p(f"sweep — look {done // 30 + 1} of 2; set-up {done % 7}: {done} of 60 questions", done, 120)
    p("embed — for set-up 3", 5, 10)
    assert len(out.getvalue().splitlines()) == 2  # the look's first event, then the new stage's
