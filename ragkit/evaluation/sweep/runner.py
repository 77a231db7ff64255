"""``ragkit sweep``: a grid of set-ups over one question set, raced
(see :mod:`ragkit.evaluation.sweep.racing`).

Questions are taken in a seeded random order, so each look sees a fair sample. At each look, every live
candidate answers the questions it has not answered yet (configs interleaved, as ``eval run`` does), and
the candidates significantly worse than the best are dropped. What each candidate measured is kept per
question in a checkpoint beside the saved sweeps after every look, so a cancelled or interrupted sweep
resumes where it stopped and a finished one re-runs in place without asking anything again.

Work is done once: a candidate's runner (its index and models) is built only when it first has a
question to answer; indexes are cached per (corpus, chunker, model) and shared by every retriever over
them, and embedders are shared by model.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragkit import __version__
from ragkit.core.files import atomic_write
from ragkit.core.hashing import config_key
from ragkit.core.progress import DETAIL, Progress
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.metrics.comparisons import check_primary, default_primary
from ragkit.evaluation.metrics.names import LOWER_IS_BETTER
from ragkit.evaluation.runs.evaluate import failure
from ragkit.evaluation.runs.saved import save_record, saved_records
from ragkit.evaluation.sweep.candidates import (
    check_judge,
    default_runner,
    item_id,
    judge_metric,
    question_order,
    slim_row,
)
from ragkit.evaluation.sweep.grid import Candidate, Grid
from ragkit.evaluation.sweep.racing import Drop, Schedule, default_schedule, look
from ragkit.evaluation.sweep.summary import summarise

#: how questions are scored; a checkpoint scored otherwise is not resumed (2: evidence moved onto each
#: set-up's reading of the PDFs, :mod:`ragkit.evaluation.datasets.reparse`)
SCORING = 2


def sweeps_dir(index_root: str | Path) -> Path:
    return Path(index_root) / "sweeps"


class Sweep:
    """One sweep's state: candidates, per-question rows, drops; stepped look by look by :meth:`run`."""

    def __init__(
        self,
        qset: QuestionSet,
        grid: Grid,
        metric: str | None = None,
        *,
        racing: bool = True,
        alpha: float = 0.05,
        first: int | None = None,
        step: int | None = None,
        limit: int | None = None,
        seed: int = 0,
        budget: int | None = None,
        max_latency_ms: float | None = None,
        max_index_mb: float | None = None,
        judge: Any = None,
        index_root: str | Path = "indexes/.eval",
        embedders: dict | None = None,
        runner_factory: Callable[[QuestionSet, Any, dict, str], Any] | None = None,
    ) -> None:
        self.qset, self.grid = qset, grid
        self.metric = check_primary(metric) or default_primary(qset)
        self.higher = self.metric not in LOWER_IS_BETTER
        self.candidates, self.merged = grid.candidates()
        self.by_key: dict[str, Candidate] = {c.key: c for c in self.candidates}
        self.index_root, self.seed, self.budget = str(index_root), seed, budget
        self.max_latency_ms, self.max_index_mb = max_latency_ms, max_index_mb
        self.judge = check_judge(self.metric, judge, qset)
        self.index_mb: dict[str, float] = {}  # candidate -> its index's size, once its runner is built
        self.embedders = embedders if embedders is not None else {}
        self.make_runner = runner_factory or default_runner
        self.items = question_order(qset, limit, seed)
        self.schedule: Schedule = default_schedule(len(self.items), alpha, racing, first, step)
        self.rows: dict[str, dict[str, dict[str, Any]]] = {c.key: {} for c in self.candidates}
        self.drops: dict[str, Drop] = {}
        self.failures: list[dict[str, str]] = []
        self.looks: list[dict[str, Any]] = []
        self.runners: dict[str, Any] = {}
        self.pending: dict[str, list[str]] = {}  # candidate -> questions answered, not yet scored
        self.status = "new"
        self.elapsed_s = 0.0

    # -- identity and checkpoint -------------------------------------------------------------------------
    def key(self) -> str:
        """What makes two sweeps the same: grid, question set, metric, schedule, order and budget."""
        return config_key(
            {
                "grid": self.grid.to_dict(),
                "questions": self.qset.hash,
                "metric": self.metric,
                "schedule": self.schedule.to_dict(),
                "seed": self.seed,
                "budget": self.budget,
                "max_latency_ms": self.max_latency_ms,
                "max_index_mb": self.max_index_mb,
                "judge": getattr(self.judge, "model_id", None),
                "n": len(self.items),
                "scoring": SCORING,
            }
        )

    def checkpoint_path(self) -> Path:
        return sweeps_dir(self.index_root) / f"partial-{self.key()[:16]}.json"

    def save_checkpoint(self) -> None:
        path = self.checkpoint_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {
            "key": self.key(),
            "rows": self.rows,
            "failures": self.failures,
            "index_mb": self.index_mb,
            "elapsed_s": self.elapsed_s,
            "ragkit_version": __version__,
        }
        atomic_write(path, lambda f: json.dump(data, f))

    def resume(self) -> int:
        """Load what an earlier run of the same sweep measured; returns the question evaluations loaded."""
        path = self.checkpoint_path()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0
        if data.get("key") != self.key():
            return 0
        for k, rows in data.get("rows", {}).items():
            if k in self.rows:
                self.rows[k] = rows
        self.failures = list(data.get("failures", []))
        self.index_mb.update({k: v for k, v in data.get("index_mb", {}).items() if k in self.rows})
        self.elapsed_s = float(data.get("elapsed_s", 0.0))
        return sum(len(r) for r in self.rows.values())

    # -- the race ----------------------------------------------------------------------------------------
    def estimate(self) -> dict[str, Any]:
        """What the full grid costs on these questions (see :meth:`Grid.estimate`), the judge's calls
        included when the sweep optimises a judge's grade."""
        judged = judge_metric(self.metric) if self.judge is not None else None
        return self.grid.estimate(len(self.items), self.qset.kind == "beir", judged)

    def alive(self) -> list[str]:
        failed = {f["config"] for f in self.failures}
        return [c.key for c in self.candidates if c.key not in self.drops and c.name not in failed]

    def evaluations_used(self) -> int:
        return sum(len(r) for r in self.rows.values()) + sum(len(p) for p in self.pending.values())

    def run(
        self,
        progress: Progress | None = None,
        should_stop: Callable[[], bool] | None = None,
        checkpoint: bool = True,
    ) -> dict[str, Any]:
        """Race (or, without racing, run every candidate on every question) and return the result."""
        started = time.perf_counter()
        before = self.elapsed_s
        looks = self.schedule.looks()
        self.status = "running"
        for li, upto in enumerate(looks):
            batch = self.items[:upto]
            try:
                stopped = self._answer(batch, li, len(looks), progress, should_stop)
            finally:  # also when interrupted (Ctrl-C, a page rerun): keep what was measured
                self._collect()
                self.elapsed_s = before + time.perf_counter() - started
                if checkpoint:
                    self.save_checkpoint()
            if stopped:
                self.status = stopped
                break
            self._decide(batch, li)
            if len(self.alive()) <= 1:  # none: every set-up broke a ceiling or failed
                self.status = "one left" if self.alive() else "none left"
                break
        else:
            self.status = "questions done"
        return self.result()

    def _answer(
        self,
        batch: Sequence[Any],
        li: int,
        n_looks: int,
        progress: Progress | None,
        should_stop: Callable[[], bool] | None,
    ) -> str | None:
        """Every live candidate answers the batch's questions it has not answered; None, or why it
        stopped early ("cancelled", "budget spent")."""
        for i, q in enumerate(batch):
            live = self.alive()
            for j in range(len(live)):
                k = live[(i + j) % len(live)]
                if item_id(q) in self.rows[k] or item_id(q) in self.pending.get(k, ()):
                    continue
                if should_stop is not None and should_stop():
                    return "cancelled"
                if self.budget is not None and self.evaluations_used() >= self.budget:
                    return "budget spent"
                self._step(k, q, li, progress)
                if progress is not None:  # overall: done of at most what is left if nobody else drops
                    done = self.evaluations_used()
                    mine = len(self.rows[k]) + len(self.pending.get(k, ()))
                    progress(
                        f"sweep{DETAIL}look {li + 1} of {n_looks}, {len(live)} set-ups in the race; "
                        f"{self.by_key[k].name}: {mine} of {len(batch)} questions",
                        done,
                        done + self._remaining(),
                    )
        return None

    def _remaining(self) -> int:
        """Question evaluations still to come if nobody else is dropped."""
        n = len(self.items)
        return sum(n - len(self.rows[k]) - len(self.pending.get(k, ())) for k in self.alive())

    def _step(self, key: str, q: Any, li: int, progress: Progress | None = None) -> None:
        cand = self.by_key[key]
        try:
            runner = self.runners.get(key)
            if runner is None:
                extra: dict[str, Any] = {}
                if progress is not None:  # building an index (chunk, embed) can take minutes: say so
                    extra["progress"] = lambda stage, done, total: progress(
                        f"{stage}{DETAIL}for {cand.name}", done, total
                    )
                if self.judge is not None:
                    extra |= {"judge": self.judge, "judge_metrics": (judge_metric(self.metric),)}
                runner = self.runners[key] = self.make_runner(
                    self.qset, cand.config, self.embedders, self.index_root, **extra
                )
                if self._too_big(key, runner, li):
                    return
            runner.step(q)
        except Exception as e:
            self.failures.append(failure(cand.name, f"question {item_id(q)}", e))
            self.runners.pop(key, None)
            self.pending.pop(key, None)
            return
        self.pending.setdefault(key, []).append(item_id(q))

    def _too_big(self, key: str, runner: Any, li: int) -> bool:
        """Record the index size a new runner searches; drop the candidate before it answers anything
        when the size is over the ceiling."""
        size = getattr(runner, "index_bytes", None)
        if size is None:
            return False
        mb = self.index_mb[key] = size / 1e6
        if self.max_index_mb is None or mb <= self.max_index_mb:
            return False
        self.drops[key] = Drop(
            self.by_key[key].name,
            li,
            len(self.rows[key]),
            "constraint",
            detail=f"index {mb:.1f} MB (texts + vectors) > the {self.max_index_mb:g} MB ceiling",
        )
        self.runners.pop(key, None)
        return True

    def _collect(self) -> None:
        """Score what the runners answered since the last look (each runner scores once per look)."""
        for key, qids in list(self.pending.items()):
            per_q = self.runners[key].finish().per_question
            for qid in qids:
                self.rows[key][qid] = slim_row(per_q[qid])
        self.pending.clear()

    def _decide(self, batch: Sequence[Any], li: int) -> None:
        """One look: constraints first, then the race over the questions every live candidate scored."""
        dropped: list[Drop] = []
        alive = self.alive()
        if self.max_latency_ms is not None:
            for k in alive:
                lat = [r["latency_ms"] for r in self.rows[k].values() if r.get("latency_ms") is not None]
                p50 = statistics.median(lat) if lat else None
                if p50 is not None and p50 > self.max_latency_ms:
                    dropped.append(
                        Drop(
                            self.by_key[k].name,
                            li,
                            len(self.rows[k]),
                            "constraint",
                            detail=f"p50 latency {p50:.1f} ms > the {self.max_latency_ms:g} ms ceiling",
                        )
                    )
                    self.drops[k] = dropped[-1]
            alive = self.alive()
        common = [item_id(q) for q in batch if all(self._value(k, item_id(q)) is not None for k in alive)]
        if len(alive) >= 2 and common:
            scores = {self.by_key[k].name: [self._value(k, q) for q in common] for k in alive}
            best, race_drops, gate = look(scores, li, self.schedule.alpha_at(li), self.higher, self.seed)
            names = {self.by_key[k].name: k for k in alive}
            for d in race_drops:
                self.drops[names[d.candidate]] = d
            dropped += race_drops
        else:
            best, gate = (self.by_key[alive[0]].name if alive else ""), None
        self.looks.append(
            {
                "look": li,
                "questions": len(common),
                "alpha": self.schedule.alpha_at(li),
                "alive_before": len(alive),
                "friedman_p": gate,
                "best": best,
                "dropped": [d.candidate for d in dropped],
            }
        )

    def _value(self, key: str, qid: str) -> float | None:
        row = self.rows[key].get(qid)
        return None if row is None else row.get(self.metric)

    def result(self) -> dict[str, Any]:
        """The sweep as JSON: settings, every candidate, the best within noise, the evaluations used."""
        return summarise(self)


def save_sweep(result: dict[str, Any], index_root: str | Path = "indexes/.eval") -> Path:
    """Write a finished sweep as ``<created>-<id>.json`` under ``<index root>/sweeps/``."""
    return save_record(sweeps_dir(index_root), result, result["sweep_id"])


def list_sweeps(index_root: str | Path = "indexes/.eval") -> list[dict[str, Any]]:
    """A summary per saved sweep, newest first (checkpoints of unfinished ones are not listed)."""
    return [
        {
            "path": str(p),
            "sweep_id": r.get("sweep_id"),
            "created_at": r.get("created_at"),
            "questions": r.get("question_set", {}).get("name"),
            "metric": r.get("metric"),
            "candidates": len(r.get("candidates", [])),
            "status": r.get("status"),
        }
        for p, r in saved_records(sweeps_dir(index_root), "2*.json")
    ]
