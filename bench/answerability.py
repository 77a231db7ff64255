"""Which signal tells "the answer is in the passages" from "only the topic is": retrieval confidence, the
extractive reader's answerability, or their mean? XQuAD with 10 % of its paragraphs held out of the
index (their questions have no answer in it), a seeded sample of questions through the default
extractive pipeline (sliding 500/100, hybrid); reports ROC AUC of each signal for "should abstain", and
false abstentions / "I don't know" on held-out questions for several decision rules.

    RAGKIT_CACHE_DIR=/tmp/xqcache .venv/bin/python bench/answerability.py --n 700 --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
XQUAD = HERE.parents[1] / "shared" / "evaldata" / "xquad_en" / "xquad.en.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=700)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import numpy as np
    from sklearn.metrics import roc_auc_score

    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.metrics.answers import contains_gold
    from ragkit.evaluation.runs.config_run import index_for
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.rag import RagPipeline

    qs = load_question_set(XQUAD, holdout=0.1)
    cfg = PipelineConfig.load(HERE.parent / "configs" / "sliding-500.json")
    store, emb = index_for(qs, cfg, {}, tempfile.mkdtemp(prefix="ragkit-ans-"), None)
    pipe = RagPipeline(cfg, store, emb)
    random.seed(args.seed)
    rows = []
    for q in random.sample(qs.questions, args.n):
        prep = pipe.prepare(q.question)
        _, choice = pipe.llm.read(prep.request)
        text = " ".join(s.unit.text for s in choice.units)
        rows.append({"absent": not q.answerable, "conf": prep.confidence.value, "value": choice.answerability,
                     "missing_subject": bool(choice.inputs.get("missing_subject")),
                     "only_subject": bool(choice.inputs.get("only_subject")),
                     "no_kind": choice.inputs.get("expects") in ("number", "date", "person")
                     and choice.inputs.get("kind_found") is False,
                     "gold": contains_gold(text, q.answers) if q.answers else 0.0})  # fmt: skip
    y = np.array([r["absent"] for r in rows], dtype=int)
    conf = np.array([r["conf"] for r in rows])
    val = np.array([r["value"] for r in rows])
    gold = np.array([r["gold"] for r in rows])
    off = np.array([r["missing_subject"] for r in rows])
    only = np.array([r["only_subject"] for r in rows])
    no_kind = np.array([r["no_kind"] for r in rows])
    out: dict = {"n": len(rows), "held_out": int(y.sum()), "auc": {}, "rules": {}}
    for name, s in (
        ("retrieval confidence", conf),
        ("answerability", val),
        ("mean of both", (conf + val) / 2),
    ):
        out["auc"][name] = round(float(roc_auc_score(y, -s)), 3)
    gate = (conf < 0.25) & (val < 0.75)
    base = ((conf + val) / 2 < 0.4) | gate | off
    rules = {
        "retrieval < 0.25 (round 2)": conf < 0.25,
        "mean < 0.4, retrieval gate": ((conf + val) / 2 < 0.4) | gate,
        "mean < 0.4, retrieval gate, subject missing": base,
        "mean < 0.45, retrieval gate, subject missing": ((conf + val) / 2 < 0.45) | gate | off,
        "subject missing, or nothing but the subject": base | only,
        "subject missing, or no number/date/person asked for": base | no_kind,
        "subject missing, or both of the last two (shipped)": base | (only & no_kind),
    }
    out["signals"] = {"only_subject": int(only.sum()), "no_kind": int(no_kind.sum())}
    for name, abst in rules.items():
        out["rules"][name] = {
            "false_abstention": round(float(abst[y == 0].mean()), 3),
            "idk_when_absent": round(float(abst[y == 1].mean()), 3),
            "contains_gold_answered": round(float((gold * (1 - abst))[y == 0].mean()), 3),
        }
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
