"""Progress reporting shared by the CLI and the app: ``(stage, done, total)`` events turned into one line
with a rate and an ETA ("embed: 1,200/20,669 chunks · 35.1/s · ETA 9 min 12 s").

The CLI prints to stderr: a live bar on a terminal, and a plain line every few seconds when stderr is
redirected (a long ``eval retrieval`` into a log file must still say what it is doing).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

Progress = Callable[[str, int, int], None]

UNITS = {
    "parse": "files",
    "chunk": "documents",
    "embed": "chunks",
    "save": "",
    "questions": "questions",
    "sweep": "question evaluations",
}

#: a stage may carry a detail that changes at every event after this mark ("sweep, look 2 of 10 — bm25:
#: 3 of 30 questions"): rates, ETAs, printed lines and bars belong to the part before it
DETAIL = " — "


def stage_key(stage: str) -> str:
    """The stage without its detail: what a rate and an ETA are measured over."""
    return stage.split(DETAIL, 1)[0]


def unit_for(stage: str) -> str:
    if stage.startswith("page "):
        return "pages"
    for key, unit in UNITS.items():
        if stage.startswith(key):
            return unit
    return ""


def format_duration(seconds: float) -> str:
    """``"9 min 12 s"``, ``"41 s"``, ``"2 h 3 min"``."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {(s % 3600) // 60} min"


@dataclass
class StageClock:
    """Start time and count per stage, to derive a rate and an ETA from plain ``(done, total)`` events."""

    started: dict[str, tuple[float, int]] = field(default_factory=dict)

    def line(self, stage: str, done: int, total: int, now: float | None = None) -> str:
        """One human line for this event (rate and ETA once a few seconds of data exist)."""
        now = time.monotonic() if now is None else now
        key, _, detail = stage.partition(DETAIL)
        if key not in self.started or done < self.started[key][1]:
            self.started[key] = (now, done)
        t0, d0 = self.started[key]
        unit = unit_for(key)
        text = f"{key}: {done:,}/{total:,} {unit}".rstrip()
        elapsed = now - t0
        if done > d0 and elapsed >= 1.0:
            rate = (done - d0) / elapsed
            text += f" · {rate:,.1f}/s"
            if total > done:
                text += f" · ETA {format_duration((total - done) / rate)}"
        return f"{text} ({detail})" if detail else text


class CliProgress:
    """``progress(stage, done, total)`` for the command line: tqdm bars on a terminal, else a line per
    stage at most every ``interval`` seconds (and at each stage's end) on ``stream``."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 5.0, enabled: bool = True) -> None:
        self.stream = stream or sys.stderr
        self.interval = interval
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = StageClock()
        self._bars: dict[str, object] = {}
        self._last: dict[str, float] = {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        if self.tty:
            self._bar(stage, done, total)
            return
        line = self.clock.line(stage, done, total)
        now = time.monotonic()
        key = stage_key(stage)
        last = self._last.get(key)  # None: the stage's first event is always printed
        if done >= total or last is None or now - last >= self.interval:
            self._last[key] = now
            print(line, file=self.stream, flush=True)

    def _bar(self, stage: str, done: int, total: int) -> None:
        from tqdm import tqdm

        key = stage_key(stage)
        bar = self._bars.get(key)
        if bar is None:
            bar = self._bars[key] = tqdm(
                total=total, desc=key, unit=unit_for(key) or "it", file=self.stream, leave=False
            )
        if key != stage:
            bar.set_postfix_str(stage.partition(DETAIL)[2], refresh=False)  # type: ignore[attr-defined]
        bar.total = total  # type: ignore[attr-defined]
        bar.n = done  # type: ignore[attr-defined]
        bar.refresh()  # type: ignore[attr-defined]

    def say(self, message: str) -> None:
        """A one-off status line ("loading the embedding model…")."""
        if self.enabled:
            print(message, file=self.stream, flush=True)

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()  # type: ignore[attr-defined]
        self._bars.clear()
