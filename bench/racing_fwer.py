"""How often racing drops a set-up that is in truth as good as the best: planted per-question scores
(the model of ``tests/unit/test_racing.py``: a shared difficulty per question, each set-up's offset, and
independent noise, clipped to [0, 1]) raced over many seeded grids, with the shipped schedule or with
the final look's share of alpha changed (a fixed share, or the exact group-sequential one).

    .venv/bin/python bench/racing_fwer.py --grids 2000
    .venv/bin/python bench/racing_fwer.py --grids 2000 --exact-final
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SCENARIOS = {
    "null": [0.0] * 8,
    "four-best": [0.0, 0.0, 0.0, -0.3, -0.3, -0.3],
    "two-best": [0.0, 0.0] + [-0.3] * 10,
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grids", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5000, help="the first grid's seed")
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--final-share", type=float, default=None, help="the final look's share of alpha")
    ap.add_argument("--exact-final", action="store_true", help="the exact group-sequential final share")
    args = ap.parse_args()
    from racing_replay import exact_final_share, set_final_share

    from ragkit.evaluation.sweep import racing
    from tests.unit.test_racing import planted  # the test's own model, not a copy of it

    for name, means in SCENARIOS.items():
        schedule = racing.default_schedule(args.questions)
        final, interim = None, 0.5
        if args.exact_final:
            final = exact_final_share(schedule.looks(), racing.ALPHA / (len(means) - 1))
        elif args.final_share is not None:
            final, interim = args.final_share, 1 - args.final_share
        if final is not None:
            set_final_share(final, interim)
        started, wrong = time.perf_counter(), 0
        for g in range(args.grids):
            _, drops, _ = racing.race(planted(means, args.questions, args.seed + g), schedule)
            wrong += any(means[int(d.candidate[1:])] == 0.0 for d in drops)
        print(
            json.dumps(
                {
                    "scenario": name,
                    "final_share": round(final, 3) if final is not None else 0.5,
                    "grids": args.grids,
                    "true_best_dropped": wrong,
                    "rate": round(wrong / args.grids, 4),
                    "seconds": round(time.perf_counter() - started, 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
