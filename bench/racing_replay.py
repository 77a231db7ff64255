"""Replay finished exhaustive sweeps through other racing rules, without asking anything again: the
per-question scores a sweep checkpointed (``<index root>/sweeps/partial-*.json``, every set-up on every
question, in the sweep's question order) raced with the final look's share of alpha changed, or with
one-sided p-values. Reports, per rule and sweep, the best-within-noise sets of the exhaustive look and of
racing, whether they agree, and the question evaluations racing used.

    .venv/bin/python bench/racing_replay.py indexes/.eval/sweeps/partial-98b0bb9fee273966.json \\
        indexes/.eval/sweeps/partial-21c3134dd0dc5739.json --shares 0.5,0.6,0.7,0.8,0.9 --one-sided
    .venv/bin/python bench/racing_replay.py <checkpoints…> --shares "" --steps 10,15,20,30,50 --noise
    .venv/bin/python bench/racing_replay.py <checkpoints…> --shares 0.5 --exact-final
    .venv/bin/python bench/racing_replay.py <checkpoints…> --shares "" --uncontrolled --landscape --easiest 11
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
    from ragkit.evaluation.sweep.racing import Schedule, default_schedule, race

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


def set_final_share(final: float, interim: float) -> None:
    """Make every schedule give its final look ``final`` × alpha and share ``interim`` × alpha equally
    among the others (the shipped schedule: 0.5 and 0.5)."""
    from ragkit.evaluation.sweep import racing

    def alpha_at(self, look: int) -> float:
        count = len(self.looks())
        if count == 1:
            return self.alpha
        return self.alpha * final if look == count - 1 else self.alpha * interim / (count - 1)

    racing.Schedule.alpha_at = alpha_at


def exact_final_share(looks: list[int], level: float) -> float:
    """The final look's share of ``level`` when the interim looks keep theirs (level/2 shared equally) and
    the looks' correlation is counted instead of a Bonferroni sum: the boundary of a two-sided group-
    sequential test on a Brownian motion observed at ``looks`` (numerical integration over the
    continuation region), so that crossing at any look has probability ``level``."""
    from scipy import optimize, stats

    t = np.asarray(looks, float) / looks[-1]
    z_interim = stats.norm.isf(level / 2 / (len(looks) - 1) / 2)
    h = 0.01
    x = np.arange(-12, 12 + h, h)
    dens = stats.norm.pdf(x, scale=np.sqrt(t[0]))
    crossed = 0.0
    for i in range(len(t) - 1):
        inside = np.abs(x) <= z_interim * np.sqrt(t[i])
        crossed += dens[~inside].sum() * h
        dens = np.where(inside, dens, 0.0)
        sd = np.sqrt(t[i + 1] - t[i])
        steps = np.arange(-int(8 * sd / h), int(8 * sd / h) + 1) * h
        dens = np.convolve(dens, stats.norm.pdf(steps, scale=sd) * h, mode="same")
    z_final = optimize.brentq(lambda z: crossed + dens[np.abs(x) > z].sum() * h - level, 0.5, 10)
    return 2 * stats.norm.sf(z_final) / level


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoints", nargs="+")
    ap.add_argument("--metric", default="ndcg@10")
    ap.add_argument("--shares", default="0.5", help="final-look shares of alpha, comma-separated")
    ap.add_argument("--one-sided", action="store_true", help="also replay with one-sided p-values")
    ap.add_argument("--steps", default="", help="also replay with looks every N questions, comma-separated")
    ap.add_argument("--noise", action="store_true", help="print each set-up's differences to the best")
    ap.add_argument(
        "--landscape",
        action="store_true",
        help="pool the checkpoints' distinct set-ups and print how far each is below the best",
    )
    ap.add_argument(
        "--easiest",
        default="",
        help="also replay the easiest grids of N+1 set-ups from the pooled checkpoints: the best and the N "
        "worst (comma-separated Ns), shipped and with --uncontrolled's rule",
    )
    ap.add_argument(
        "--uncontrolled",
        action="store_true",
        help="also replay with every look at alpha/2 (no error control across looks): an upper bound on "
        "what any racing that keeps the final look's alpha can save",
    )
    ap.add_argument(
        "--exact-final",
        action="store_true",
        help="also replay with the final share from exact group-sequential boundaries, per comparison",
    )
    args = ap.parse_args()
    from ragkit.evaluation.sweep import racing

    sweeps = {}
    for path in args.checkpoints:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))["rows"]
        qids = list(next(iter(rows.values())))
        sweeps[Path(path).stem] = {k: [r[q][args.metric] for q in qids] for k, r in rows.items()}
    shipped = racing.Schedule.alpha_at
    shares = [float(x) for x in args.shares.split(",") if x]
    if args.exact_final:  # one share per sweep: the comparisons with the best at the first look
        shares.append(-1.0)
    if args.uncontrolled:  # each interim look at alpha/2: their shares sum to (looks - 1)/2
        shares.append(-2.0)
    for share in shares:
        for name, scores in sweeps.items():
            n = len(scores[next(iter(scores))])
            final, interim = share, 1 - share
            if share == -2.0:
                final, interim = 0.5, 0.5 * (len(racing.default_schedule(n).looks()) - 1)
            elif share < 0:  # exact: the interim looks keep half, the final gets what they leave
                looks = racing.default_schedule(n).looks()
                final, interim = exact_final_share(looks, racing.ALPHA / (len(scores) - 1)), 0.5
            set_final_share(final, interim)
            rule = {"final_share": round(final, 3), "interim_share": round(interim, 3)}
            print(json.dumps({**rule, "sweep": name, **replay(scores, n)}))
    racing.Schedule.alpha_at = shipped
    for step in (int(x) for x in args.steps.split(",") if x):
        for name, scores in sweeps.items():
            n = len(scores[next(iter(scores))])
            print(json.dumps({"step": step, "sweep": name, **replay(scores, n, step)}))
    if args.noise:
        for name, scores in sweeps.items():
            for row in noise(scores):
                print(json.dumps({"sweep": name, **row}))
    if args.landscape:
        pooled = {k: v for scores in sweeps.values() for k, v in scores.items()}
        means = {k: float(np.mean(v)) for k, v in pooled.items()}
        top = max(means.values())
        gaps = sorted(top - m for m in means.values())
        print(
            json.dumps(
                {
                    "landscape": len(means),
                    "best": round(top, 4),
                    "worst": round(min(means.values()), 4),
                    "below_by": {f">={g}": sum(x >= g for x in gaps) for g in (0.02, 0.05, 0.08, 0.1)},
                }
            )
        )
    if args.easiest:
        # one question order for the pool: every checkpoint is keyed by question id
        order = list(json.loads(Path(args.checkpoints[0]).read_text(encoding="utf-8"))["rows"].popitem()[1])
        pooled = {}
        for path in args.checkpoints:
            for k, r in json.loads(Path(path).read_text(encoding="utf-8"))["rows"].items():
                pooled[k] = [r[q][args.metric] for q in order]
        ranked = sorted(pooled, key=lambda k: -float(np.mean(pooled[k])))
        for worst in (int(x) for x in args.easiest.split(",")):
            grid = {k: pooled[k] for k in [ranked[0], *ranked[-worst:]]}
            for interim in (0.5, 0.5 * (len(racing.default_schedule(len(order)).looks()) - 1)):
                set_final_share(0.5, interim)
                rule = "shipped" if interim == 0.5 else "uncontrolled"
                print(json.dumps({"easiest": len(grid), "rule": rule, **replay(grid, len(order))}))
        racing.Schedule.alpha_at = shipped
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
