"""Racing's rank tests in ragkit (``ragkit/evaluation/metrics/ranktests.py``) against scipy.stats, in one
run: the same random grids raced with each, every drop compared (it must be identical: same candidates,
looks, p-values, Friedman gates and intervals), and the median wall time of the whole set of races.

    .venv/bin/python bench/rank_tests.py --grids 400 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import median_time, write_result  # noqa: E402


def grids(count: int) -> list[tuple[dict[str, list[float]], int]]:
    """Seeded grids of 2-8 set-ups over 20-159 questions: binary scores (hit@k-like, many ties) on odd
    seeds, continuous ones rounded to 0.01 (nDCG-like, some ties) on even seeds."""
    out = []
    for seed in range(count):
        rng = np.random.default_rng(seed)
        k, n = int(rng.integers(2, 9)), int(rng.integers(20, 160))
        means = rng.uniform(0.3, 0.8, size=k)
        if seed % 2:
            scores = {f"c{i}": (rng.random(n) < m).astype(float).tolist() for i, m in enumerate(means)}
        else:
            scores = {
                f"c{i}": np.round(np.clip(rng.normal(m, 0.25, n), 0, 1), 2).tolist()
                for i, m in enumerate(means)
            }
        out.append((scores, n))
    return out


@contextmanager
def scipy_tests():
    """Racing with scipy.stats.wilcoxon and friedmanchisquare, as before ranktests existed."""
    from scipy import stats

    from ragkit.evaluation.metrics import stats as ours
    from ragkit.evaluation.sweep import racing

    saved = ours.signed_rank_p, racing.friedman_p_value
    ours.signed_rank_p = lambda d: float(stats.wilcoxon(d, zero_method="wilcox").pvalue)
    racing.friedman_p_value = lambda cols: float(stats.friedmanchisquare(*cols).pvalue)
    try:
        yield
    finally:
        ours.signed_rank_p, racing.friedman_p_value = saved


def race_all(cases) -> list:
    from ragkit.evaluation.sweep.racing import Schedule, race

    out = []
    for scores, n in cases:
        step = max(10, n // 10)
        alive, drops, used = race(scores, Schedule(n, step, step))
        out.append([alive, used, [[d.candidate, d.look, d.p_value, d.gate_p, d.diff, d.ci_low, d.ci_high]
                                  for d in drops]])  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grids", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cases = grids(args.grids)
    ours_s, ours = median_time(lambda: race_all(cases), args.repeat)
    with scipy_tests():
        scipy_s, theirs = median_time(lambda: race_all(cases), args.repeat)
    identical = json.dumps(ours) == json.dumps(theirs)
    numbers = {
        "grids": args.grids,
        "drops": sum(len(r[2]) for r in ours),
        "identical_drops": identical,
        "ragkit_s": round(ours_s, 2),
        "scipy_s": round(scipy_s, 2),
        "ratio": round(scipy_s / ours_s, 1),
    }
    print(json.dumps(numbers, indent=1))
    write_result("rank_tests", numbers)
    if not identical:
        sys.exit("the two raced differently")


if __name__ == "__main__":
    main()
