"""Selection against held-out scores of a sweep's winners (issue 45): ``ragkit sweep`` per grid and seed,
each seed a different question order and 70/30 split; writes the winner's score on the questions that
picked it, its score on the held-out ones, and the optimism (with their 95 % intervals) per run.

    .venv/bin/python bench/sweep_holdout.py --dataset ../shared/evaldata/scifact \
        --grid bench/sweeps/scifact_grid_holdout.json --grid bench/sweeps/scifact_grid_k1b.json \
        --seeds 0,1,2,3,4

Each run is ``ragkit sweep --dataset D --grid G --seed S --fresh --yes --json <raw>`` (the JSON goes to
bench/results/raw/, not kept); the figures go to bench/results/sweep_holdout_scifact.json. ``--from-raw``
reads the raw JSONs of an earlier run of this script instead of running the sweeps again.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _common import RESULTS, write_result  # noqa: E402


def run(dataset: str, grid: str, seed: int, index_root: str, from_raw: bool = False) -> dict:
    raw = RESULTS / "raw" / f"sweep_holdout_{Path(grid).stem}_seed{seed}.json"
    if from_raw:
        return json.loads(raw.read_text())
    raw.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "ragkit", "sweep", "--dataset", dataset, "--grid", grid, "--seed", str(seed),
           "--fresh", "--yes", "--index-root", index_root, "--json", str(raw)]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-3000:]}")
    return json.loads(raw.read_text())


def figures(result: dict) -> dict:
    """The run's winner on both parts, the best set's optimism, and what the race cost."""
    by_key = {c["config_hash"]: c for c in result["candidates"]}
    win = by_key[result["best"]]
    kept = [by_key[k] for k in result["best_within_noise"]]
    ci = lambda c, n: [round(c[f"{n}_ci_low"], 4), round(c[f"{n}_ci_high"], 4)]  # noqa: E731
    return {
        "set_ups": len(result["candidates"]),
        "best_within_noise": len(kept),
        "winner": win["name"],
        "selection_questions": win["questions_evaluated"],
        "selection_mean": round(win["mean"], 4),
        "selection_ci": ci(win, "mean"),
        "holdout_questions": win["holdout_n"],
        "holdout_mean": round(win["holdout_mean"], 4),
        "holdout_ci": ci(win, "holdout"),
        "optimism": round(result["optimism"], 4),
        "optimism_ci": [round(result["optimism_ci_low"], 4), round(result["optimism_ci_high"], 4)],
        "best_set_mean_optimism": round(statistics.fmean(c["optimism"] for c in kept), 4),
        "pick_optimism": None if result.get("pick_optimism") is None else round(result["pick_optimism"], 4),
        "winner_holdout_rank": win.get("holdout_rank"),
        "holdout_best_in_set": max(kept, key=lambda c: c["holdout_mean"])["name"],
        "evaluations_used": result["evaluations_used"],
        "evaluations_full": result["evaluations_full"],
        "holdout_evaluations": result["holdout_evaluations"],
        "elapsed_s": result["elapsed_s"],
        # what the cost shown before the start said (every set-up on every question: racing can only
        # take less), and what it rested on
        "estimated_s": None if not result.get("estimate") else round(result["estimate"]["minutes"] * 60, 1),
        "estimate_rests_on": None if not result.get("estimate") else result["estimate"]["rests_on"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "evaldata" / "scifact"))
    ap.add_argument("--grid", action="append", required=True)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--index-root", default="indexes/.eval")
    ap.add_argument("--from-raw", action="store_true", help="read the raw JSONs of an earlier run")
    args = ap.parse_args()
    out: dict[str, dict] = {}
    for grid in args.grid:
        rows = {}
        for seed in (int(s) for s in args.seeds.split(",")):
            rows[f"seed {seed}"] = f = figures(run(args.dataset, grid, seed, args.index_root, args.from_raw))
            print(f"{Path(grid).stem} seed {seed}: {json.dumps(f)}", flush=True)
        opt = [r["optimism"] for r in rows.values()]
        pick = [r["pick_optimism"] for r in rows.values() if r.get("pick_optimism") is not None]
        out[Path(grid).stem] = {
            "runs": rows,
            "mean_optimism": round(statistics.fmean(opt), 4),
            "runs_with_positive_optimism": sum(o > 0 for o in opt),
            "mean_pick_optimism": round(statistics.fmean(pick), 4) if pick else None,
        }
    print(write_result("sweep_holdout_scifact", out))


if __name__ == "__main__":
    main()
