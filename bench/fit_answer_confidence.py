"""Fit the answer confidence (``ragkit/pipeline/answer_confidence.py``) on dev question sets only: a
logistic model of "the reader's answer holds the gold answer" (unanswerable questions: never right) over
the signals the reader and the gauge record, then the abstention threshold that does best on dev for
both answerable questions answered right and unanswerable ones refused. Refuses any file of a sealed
test part.

    # rows: per-question rows of the default config on each dev set
    .venv/bin/python bench/heldout_qa.py --docs /work/corpus/heldout/docs --split dev
    .venv/bin/python bench/heldout/xquad_split.py --part dev --out /tmp/xquad_dev.json
    .venv/bin/python -m ragkit eval run --dataset /tmp/xquad_dev.json --holdout 0.1 \
        --json /tmp/xquad_dev_run.json
    .venv/bin/python bench/own_corpus.py --run-json /tmp/own_run.json
    .venv/bin/python bench/fit_answer_confidence.py bench/results/raw/heldout_qa_dev.jsonl \\
        /tmp/xquad_dev_run.json /tmp/own_run.json [--write]

``--write`` stores the model in ragkit/pipeline/answer_confidence.json (with what it was fitted on and its
5-fold cross-validated AUROC on dev); without it the figures are only printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from _common import write_result  # noqa: E402

from ragkit.pipeline.answer_confidence import FEATURES, MODEL_FILE, features  # noqa: E402


def rows_of(path: Path) -> list[dict]:
    """Per-question rows (answerable or not, right or not, and the signals) of a heldout_qa rows file or
    an ``eval run --json`` result (its first config)."""
    if "_test" in path.name or "test." in path.name:
        raise SystemExit(f"{path}: a sealed test part is never fitted on")
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        rows = [json.loads(x) for x in text.splitlines() if x.strip()]
        rows = [r for r in rows if r.get("variant", "asked") == "asked"]
        return [{**r, "answerable": r["kind"] == "answerable"} for r in rows]
    result = json.loads(text)
    return list(result["configs"][0]["per_question"].values())


def example(row: dict) -> tuple[list[float], int] | None:
    """(signals, right) for a row the reader answered or withheld; None without the reader's signals."""
    inputs = row.get("answer_inputs")
    if not inputs or row.get("answerability") is None or row.get("confidence") is None:
        return None
    right = int(bool(row.get("answerable")) and bool(row.get("candidate_correct")))
    return features(inputs, float(row["answerability"]), float(row["confidence"])), right


#: the model's regularisation (chosen on dev: 0.1, 0.3 and 1 give out-of-fold AUROC within 0.006)
C = 0.3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rows", nargs="+", help="dev rows files (heldout_qa jsonl or eval run JSON)")
    ap.add_argument("--write", action="store_true", help="store the model in ragkit/pipeline")
    args = ap.parse_args()
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    data, sources = [], []
    for p in map(Path, args.rows):
        rows = rows_of(p)
        kept = [(e, r) for r in rows if (e := example(r)) is not None]
        data += kept
        sources.append({"file": p.name, "rows": len(rows), "used": len(kept),
                        "sha256": hashlib.sha256(p.read_bytes()).hexdigest()[:16]})  # fmt: skip
    x = np.array([e[0] for e, _ in data])
    y = np.array([e[1] for e, _ in data])
    answerable = np.array([bool(r.get("answerable")) for _, r in data])
    source = np.array([k for k, n in enumerate(sources) for _ in range(n["used"])])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / scale
    oof = np.zeros(len(y))
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(z, y):
        oof[test] = (
            LogisticRegression(C=C, max_iter=2000).fit(z[train], y[train]).predict_proba(z[test])[:, 1]
        )
    lr = LogisticRegression(C=C, max_iter=2000).fit(z, y)
    # the threshold: best mean of "answerable answered right" and "unanswerable refused", out of fold
    best = max(
        (float(t) for t in np.arange(0.05, 0.95, 0.025)),
        key=lambda t: (
            ((oof >= t) & (y == 1)).sum() / max(answerable.sum(), 1)
            + ((oof < t) & ~answerable).sum() / max((~answerable).sum(), 1)
        ),
    )
    at = oof >= best
    figures = {
        "examples": len(y),
        "right": int(y.sum()),
        "unanswerable": int((~answerable).sum()),
        "cv_auroc_model": round(float(roc_auc_score(y, oof)), 4),
        "cv_auroc_mean_of_gauge_and_answerability": round(
            float(roc_auc_score(y, (x[:, 0] + x[:, 1]) / 2)), 4
        ),
        "cv_auroc_by_source": {
            s["file"]: round(float(roc_auc_score(y[source == k], oof[source == k])), 4)
            for k, s in enumerate(sources)
            if len(set(y[source == k])) > 1
        },
        "threshold": round(best, 3),
        "dev_answerable_right": round(float((at & (y == 1)).sum() / max(answerable.sum(), 1)), 4),
        "dev_unanswerable_refused": round(float((~at & ~answerable).sum() / max((~answerable).sum(), 1)), 4),
        "weights": dict(zip(FEATURES, [round(float(w), 4) for w in lr.coef_[0]], strict=True)),
        "sources": sources,
    }
    print(json.dumps(figures, indent=1))
    write_result("fit_answer_confidence", figures)
    if args.write:
        model = {
            "about": "Answer confidence of the extractive reader: logistic model over FEATURES (standardised "
            "with mean/scale), fitted on dev sets only by bench/fit_answer_confidence.py",
            "fitted": datetime.now(UTC).strftime("%Y-%m-%d"),
            "features": list(FEATURES),
            "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale],
            "weights": [round(float(w), 6) for w in lr.coef_[0]],
            "bias": round(float(lr.intercept_[0]), 6),
            "threshold": round(best, 3),
            "dev": {k: figures[k] for k in ("examples", "right", "unanswerable", "cv_auroc_model")},
            "fitted_on": sources,
        }
        MODEL_FILE.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE}")


if __name__ == "__main__":
    main()
