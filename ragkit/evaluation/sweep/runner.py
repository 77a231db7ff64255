"""``ragkit sweep``: a grid of set-ups over one question set, raced
(see :mod:`ragkit.evaluation.sweep.racing`).

Questions are taken in a seeded random order, so each look sees a fair sample. At each look, every live
candidate answers the questions it has not answered yet (configs interleaved, as ``eval run`` does), and
the candidates significantly worse than the best are dropped. What each candidate measured is kept per
question in a checkpoint beside the saved sweeps after every look, so a cancelled or interrupted sweep
resumes where it stopped and a finished one re-runs in place without asking anything again.

Work is done once: a candidate's runner (its index and models) is built only when it first has a
question to answer; indexes are cached per (corpus, chunker, model) and shared by every retriever over
them, and embedders are shared by model and backend.

The race runs on the selection part of the questions; when it ends, the set-ups it kept answer the
held-out part, which it never saw (:mod:`ragkit.evaluation.sweep.holdout`).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ragkit.core.progress import DETAIL, Progress
from ragkit.evaluation.datasets.questionsets import QuestionSet
from ragkit.evaluation.metrics.comparisons import check_primary, default_primary
from ragkit.evaluation.metrics.names import LOWER_IS_BETTER
from ragkit.evaluation.runs.config_run import embedder_key
from ragkit.evaluation.runs.evaluate import failure
from ragkit.evaluation.sweep import checkpoint
from ragkit.evaluation.sweep.candidates import (
    check_judge,
    default_runner,
    item_id,
    judge_metric,
    question_order,
    slim_row,
)
from ragkit.evaluation.sweep.grid import Candidate, Grid
from ragkit.evaluation.sweep.holdout import DEFAULT_SHARE, split, stratum
from ragkit.evaluation.sweep.racing import Drop, Schedule, default_schedule, look
from ragkit.evaluation.sweep.rates import measured, save_rates
from ragkit.evaluation.sweep.summary import summarise


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
        holdout: float = DEFAULT_SHARE,
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
        every = question_order(qset, limit, seed)
        by_id = {item_id(q): q for q in every}
        race, held, self.split_status = split(list(by_id), lambda q: stratum(qset, by_id[q]), holdout, seed)
        self.holdout_share, self.n_questions = holdout, len(every)
        self.items = [by_id[q] for q in race]  # what the race sees, in the seeded order
        self.held_items = [by_id[q] for q in held]
        self.held_ids = set(held)
        self.schedule: Schedule = default_schedule(len(self.items), alpha, racing, first, step)
        self.rows: dict[str, dict[str, dict[str, Any]]] = {c.key: {} for c in self.candidates}
        self.held_rows: dict[str, dict[str, dict[str, Any]]] = {c.key: {} for c in self.candidates}
        self.held_failures: list[dict[str, str]] = []
        # what the work took, for the rates the next estimate rests on (ragkit.evaluation.sweep.cost)
        self.timing: dict[str, Any] = {"builds": [], "steps": {}}
        self.index_plans: list[Any] = []  # the indexes as the cost estimate found them, before the run
        self.estimated: dict[str, Any] | None = None  # what the cost estimate said it would take
        self.drops: dict[str, Drop] = {}
        self.failures: list[dict[str, str]] = []
        self.looks: list[dict[str, Any]] = []
        self.runners: dict[str, Any] = {}
        self.pending: dict[str, list[str]] = {}  # candidate -> questions answered, not yet scored
        self.status = "new"
        self.elapsed_s = 0.0

    # -- identity and checkpoint (ragkit.evaluation.sweep.checkpoint) ----------------------------------
    def key(self) -> str:
        """What makes two sweeps the same: grid, question set, metric, schedule, order, split and budget."""
        return checkpoint.sweep_key(self)

    def checkpoint_path(self) -> Path:
        return checkpoint.sweeps_dir(self.index_root) / f"partial-{self.key()[:16]}.json"

    def save_checkpoint(self) -> None:
        checkpoint.save(self, self.checkpoint_path())

    def resume(self) -> int:
        """Load what an earlier run of the same sweep measured; returns the question evaluations loaded."""
        return checkpoint.load(self, self.checkpoint_path())

    # -- the race ----------------------------------------------------------------------------------------
    def estimate(self) -> dict[str, Any]:
        """What the full grid costs at most on these questions, held-out ones included (see
        :meth:`Grid.estimate`), the judge's calls included when the sweep optimises a judge's grade."""
        judged = judge_metric(self.metric) if self.judge is not None else None
        return self.grid.estimate(self.n_questions, self.qset.kind == "beir", judged)

    def alive(self) -> list[str]:
        failed = {f["config"] for f in self.failures}
        return [c.key for c in self.candidates if c.key not in self.drops and c.name not in failed]

    def evaluations_used(self) -> int:
        """The race's question evaluations (the held-out re-scoring is counted apart)."""
        return sum(len(r) for r in self.rows.values()) + sum(
            1 for p in self.pending.values() for q in p if q not in self.held_ids
        )

    def holdout_evaluations(self) -> int:
        return sum(len(r) for r in self.held_rows.values())

    def run(
        self,
        progress: Progress | None = None,
        should_stop: Callable[[], bool] | None = None,
        checkpoint: bool = True,
    ) -> dict[str, Any]:
        """Race (or, without racing, run every candidate on every question) and return the result."""
        started = time.perf_counter()
        before = self.elapsed_s

        def keep() -> None:
            """What was measured so far: collected, its time counted, checkpointed."""
            self._collect()
            self.elapsed_s = before + time.perf_counter() - started
            if checkpoint:
                self.save_checkpoint()

        looks = self.schedule.looks()
        self.status = "running"
        for li, upto in enumerate(looks):
            batch = self.items[:upto]
            try:
                stopped = self._answer(batch, li, len(looks), progress, should_stop)
            finally:  # also when interrupted (Ctrl-C, a page rerun): keep what was measured
                keep()
            if stopped:
                self.status = stopped
                break
            self._decide(batch, li)
            if len(self.alive()) <= 1:  # none: every set-up broke a ceiling or failed
                self.status = "one left" if self.alive() else "none left"
                break
        else:
            self.status = "questions done"
        if self.status in ("questions done", "one left") and self.held_items:
            try:
                stopped = self._score_held_out(progress, should_stop)
            finally:
                keep()
            if stopped:
                self.status = stopped
        if checkpoint:  # what this run measured: the next estimate rests on it
            save_rates(self.index_root, measured(self, self.index_plans))
        return self.result()

    def _score_held_out(
        self, progress: Progress | None, should_stop: Callable[[], bool] | None
    ) -> str | None:
        """The set-ups the race kept answer every held-out question (None, or "cancelled")."""
        keys = self.alive()
        failed = {f["config"] for f in self.held_failures}
        todo = [(k, q) for q in self.held_items for k in keys if item_id(q) not in self.held_rows[k]]
        for done, (k, q) in enumerate(todo):
            if self.by_key[k].name in failed or item_id(q) in self.pending.get(k, ()):
                continue
            if should_stop is not None and should_stop():
                return "cancelled"
            self._step(k, q, -1, progress)
            failed = {f["config"] for f in self.held_failures}
            if progress is not None:
                progress(
                    f"held-out questions{DETAIL}the {len(keys)} set-ups the race kept, on "
                    f"{len(self.held_items)} questions it never saw; {self.by_key[k].name}",
                    done + 1,
                    len(todo),
                )
        return None

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
        held = item_id(q) in self.held_ids
        try:
            runner = self.runners.get(key)
            if runner is None:
                emb = self.embedders.get(embedder_key(cand.config))
                embedded, t0 = getattr(emb, "new_embeddings", 0), time.perf_counter()
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
                emb = self.embedders.get(embedder_key(cand.config))
                self.timing["builds"].append(
                    {
                        "candidate": key,
                        "s": time.perf_counter() - t0,
                        "new_embeddings": getattr(emb, "new_embeddings", 0) - embedded,
                    }
                )
                if self._too_big(key, runner, li):
                    return
            t0 = time.perf_counter()
            runner.step(q)
            self._spent(key, time.perf_counter() - t0, 1)
        except Exception as e:
            where = f"{'held-out ' if held else ''}question {item_id(q)}"
            (self.held_failures if held else self.failures).append(failure(cand.name, where, e))
            self.runners.pop(key, None)
            self.pending.pop(key, None)
            return
        self.pending.setdefault(key, []).append(item_id(q))

    def _spent(self, key: str, seconds: float, questions: int) -> None:
        """Add to a candidate's measured work: seconds over questions answered (scoring included)."""
        s, n = self.timing["steps"].get(key, (0.0, 0))
        self.timing["steps"][key] = (s + seconds, n + questions)

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
            t0 = time.perf_counter()
            per_q = self.runners[key].finish().per_question
            self._spent(key, time.perf_counter() - t0, 0)
            for qid in qids:
                (self.held_rows if qid in self.held_ids else self.rows)[key][qid] = slim_row(per_q[qid])
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
