"""Is the confidence gauge a probability? ECE of the raw gauge and of the calibrated one (isotonic and
Platt), 5-fold cross-validated (each question's calibrated value comes from a map fitted on the other
folds), beside the sampling-noise floor (the ECE a perfectly calibrated gauge would show on as many
questions), on XQuAD (full pipeline, 10 % of paragraphs held out so some questions have no evidence) and
SciFact (retrieval; correct = a relevant document among the top-k chunks).

    .venv/bin/python bench/calibration.py --json bench/results/calibration.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from ragkit.evaluation.metrics.calibration import cross_validated_calibration
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.pipeline.config import PipelineConfig

HERE = Path(__file__).resolve().parent
EVALDATA = Path(os.environ.get("RAGKIT_EVALDATA", HERE.parents[1] / "shared" / "evaldata"))
CONFIGS = [
    PipelineConfig(name="bm25", retriever="bm25"),
    PipelineConfig(name="dense", retriever="dense"),
    PipelineConfig(name="hybrid", retriever="hybrid"),
]


def ece_floor(probabilities: list[float], draws: int = 200, seed: int = 0) -> float:
    """The ECE a perfectly calibrated gauge would still show on this many questions: outcomes drawn
    with exactly these probabilities, then binned like the real ones (the sampling-noise floor)."""
    import numpy as np

    from ragkit.evaluation.metrics.calibration import expected_calibration_error

    rng = np.random.default_rng(seed)
    p = np.asarray(probabilities)
    return float(
        np.mean(
            [
                expected_calibration_error(p.tolist(), (rng.random(len(p)) < p).astype(float).tolist())
                for _ in range(draws)
            ]
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    ap.add_argument("--index-root", default="indexes/.eval")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    sets = {
        "xquad (holdout 0.1)": (EVALDATA / "xquad_en" / "xquad.en.json", 0.1),
        "scifact": (EVALDATA / "scifact", 0.0),
    }
    out: dict = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "rows": []}
    for name, (path, holdout) in sets.items():
        t = time.perf_counter()
        result = evaluate_configs(path, CONFIGS, args.limit, args.index_root, holdout=holdout)
        for c in result["configs"]:
            rows = [
                v
                for v in c["per_question"].values()
                if v.get("confidence") is not None and v.get("evidence_retrieved") is not None
            ]
            conf = [v["confidence_raw"] for v in rows]
            corr = [v["evidence_retrieved"] for v in rows]
            row = {"set": name, "config": c["name"], "n": len(rows), "accuracy": sum(corr) / len(corr)}
            for method in ("isotonic", "platt"):
                cv = cross_validated_calibration(conf, corr, method, folds=5)
                row["ece_raw"] = round(cv["ece_raw"], 4)
                row[f"ece_{method}_cv"] = round(cv["ece_calibrated"], 4)
                if method == "isotonic":
                    row["ece_floor"] = round(ece_floor(cv["calibrated"]), 4)
            out["rows"].append(row)
            print(json.dumps(row), flush=True)
        print(f"{name}: {time.perf_counter() - t:.0f} s", flush=True)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
