"""Replay finished exhaustive sweeps through other racing rules, without asking anything again: the
per-question scores a sweep checkpointed (``<index root>/sweeps/partial-*.json``, every set-up on every
question, in the sweep's question order) raced with the final look's share of alpha changed, or with
one-sided p-values. Reports, per rule and sweep, the best-within-noise sets of the exhaustive look and of
racing, whether they agree, and the question evaluations racing used.

    .venv/bin/python bench/racing_replay.py indexes/.eval/sweeps/partial-98b0bb9fee273966.json \\
        indexes/.eval/sweeps/partial-21c3134dd0dc5739.json --shares 0.5,0.6,0.7,0.8,0.9 --one-sided
    .venv/bin/python bench/racing_replay.py <checkpoints…> --shares "" --steps 10,15,20,30,50 --noise
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def one_sided(a, b) -> tuple[float, str]:
    """Wilcoxon's p that ``b`` is worse than ``a`` (the candidate below the best)."""
    from scipy import stats

    d = np.asarray(b, float) - np.asarray(a, float)
    nz = d[d != 0]
    if nz.size == 0:
        return 1.0, "none (identical)"
    return float(stats.wilcoxon(nz, alternative="less").pvalue), "wilcoxon (one-sided)"


def replay(scores: dict[str, list[float]], metric_n: int, step: int | None = None) -> dict:
    from ragkit.evaluation.racing import Schedule, default_schedule, race

    exhaustive, _, _ = race(scores, Schedule(metric_n, metric_n, metric_n, racing=False))
    raced, _, used = race(scores, default_schedule(metric_n, first=step, step=step))
    full = len(scores) * metric_n
    return {
        "exhaustive": len(exhaustive),
        "racing": len(raced),
        "same": set(exhaustive) == set(raced),
        "used": used,
        "full": full,
        "share": round(used / full, 3),
    }


def noise(scores: dict[str, list[float]], at: tuple[int, ...] = (30, 60, 90, 120, 150, 300)) -> list[dict]:
    """How noisy the per-question differences to the best are: their spread, the share of exact ties, and
    the raw two-sided Wilcoxon p after ``at`` questions (what any racing test has to work with)."""
    from scipy import stats

    means = {k: float(np.mean(v)) for k, v in scores.items()}
    best = max(means, key=means.get)
    out = []
    for k, v in sorted(scores.items(), key=lambda kv: -means[kv[0]]):
        if k == best:
            continue
        d = np.asarray(v, float) - np.asarray(scores[best], float)
        ps = {}
        for n in at:
            nz = d[:n][d[:n] != 0]
            ps[n] = float(stats.wilcoxon(nz).pvalue) if nz.size else 1.0
        out.append(
            {
                "set_up": k[:8],
                "diff": round(float(d.mean()), 4),
                "sd": round(float(d.std()), 3),
                "ties": round(float((d == 0).mean()), 2),
                "p_raw": {n: float(f"{p:.2g}") for n, p in ps.items()},
            }
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--metric", default="ndcg@10")
    ap.add_argument("--shares", default="0.5", help="final-look shares of alpha, comma-separated")
    ap.add_argument("--one-sided", action="store_true", help="also replay with one-sided p-values")
    ap.add_argument("--steps", default="", help="also replay with looks every N questions, comma-separated")
    ap.add_argument("--noise", action="store_true", help="print each set-up's differences to the best")
    args = ap.parse_args()
    from ragkit.evaluation import racing

    sweeps = {}
    for path in args.checkpoints:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))["rows"]
        qids = list(next(iter(rows.values())))
        sweeps[Path(path).stem] = {k: [r[q][args.metric] for q in qids] for k, r in rows.items()}
    shipped = racing.Schedule.alpha_at
    for share in (float(x) for x in args.shares.split(",") if x):

        def alpha_at(self, look: int, share: float = share) -> float:
            count = len(self.looks())
            if count == 1:
                return self.alpha
            return self.alpha * share if look == count - 1 else self.alpha * (1 - share) / (count - 1)

        racing.Schedule.alpha_at = alpha_at
        for name, scores in sweeps.items():
            print(
                json.dumps(
                    {"final_share": share, "sweep": name, **replay(scores, len(scores[next(iter(scores))]))}
                )
            )
    racing.Schedule.alpha_at = shipped
    for step in (int(x) for x in args.steps.split(",") if x):
        for name, scores in sweeps.items():
            n = len(scores[next(iter(scores))])
            print(json.dumps({"step": step, "sweep": name, **replay(scores, n, step)}))
    if args.noise:
        for name, scores in sweeps.items():
            for row in noise(scores):
                print(json.dumps({"sweep": name, **row}))
    if args.one_sided:
        racing.paired_test = one_sided
        for name, scores in sweeps.items():
            print(
                json.dumps(
                    {"one_sided": True, "sweep": name, **replay(scores, len(scores[next(iter(scores))]))}
                )
            )


if __name__ == "__main__":
    main()
