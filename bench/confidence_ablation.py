"""Does the fitted answer confidence earn its place (issue 40: a rule that does not help the sealed test
goes)? From one run's per-question rows of ``bench/heldout_qa.py`` (dev or sealed test), the model's
answer confidence against what it replaced, the mean of the retrieval gauge and the reader's
answerability: ROC AUC of right over wrong answers, and the decisions each would take at its threshold
(the model's chosen on dev, 0.45; the mean's, 0.4), other refusals (a name never mentioned, only the
subject) kept as they are.

    .venv/bin/python bench/confidence_ablation.py --split dev
    .venv/bin/python bench/confidence_ablation.py --split test   # after heldout_qa.py --split test

Reads only ``bench/results/raw/heldout_qa_<split>.jsonl``; tunes nothing. Figures to
``bench/results/confidence_ablation_<split>.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import write_result  # noqa: E402
from heldout_qa import auroc  # noqa: E402

RULES = {"model": ("answer_confidence", 0.45), "mean of gauges": (None, 0.4)}


def score(row: dict, key: str | None) -> float:
    """The row's answer confidence, or the mean of its retrieval gauge and answerability."""
    if key:
        return float(row[key])
    return (float(row["confidence"]) + float(row["answerability"])) / 2


def other_refusal(row: dict) -> bool:
    """Refused by a rule beside the confidence (a name never mentioned, only the subject found), as
    :class:`~ragkit.pipeline.answerability.Answerability` decides it."""
    from ragkit.pipeline.answerability import Answerability

    ans = Answerability(float(row["answerability"]), 0.0, "reader", row.get("answer_inputs") or {})
    return bool(ans.inputs.get("missing_subject")) or ans.off_the_question


def figures(rows: list[dict]) -> dict:
    """The reader's own ceiling (right if it never abstained); per rule: AUROC, answerable right,
    near-topic and off-topic abstained, false abstention."""
    rows = [r for r in rows if r["variant"] == "asked" and r.get("answerability") is not None]
    answerable = [r for r in rows if r["kind"] == "answerable"]
    out: dict = {"reader_right_never_abstaining": round(
        sum(bool(r.get("candidate_correct")) for r in answerable) / max(1, len(answerable)), 4)}  # fmt: skip
    for name, (key, threshold) in RULES.items():
        scores = [score(r, key) for r in rows]
        labels = [r["kind"] == "answerable" and bool(r.get("candidate_correct")) for r in rows]
        refuse = [s < threshold or other_refusal(r) for s, r in zip(scores, rows, strict=True)]

        def share(kind: str, want, rows=rows, refuse=refuse) -> float | None:
            sel = [want(r, a) for r, a in zip(rows, refuse, strict=True) if r["kind"] == kind]
            return round(sum(sel) / len(sel), 4) if sel else None

        out[name] = {
            "threshold": threshold,
            "auroc": round(auroc(scores, labels) or 0.0, 4),
            "answerable_right": share("answerable", lambda r, a: not a and bool(r.get("candidate_correct"))),
            "false_abstention": share("answerable", lambda r, a: a),
            "near_topic_abstained": share("near_topic", lambda r, a: a),
            "off_topic_abstained": share("off_topic", lambda r, a: a),
            "questions": len(rows),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    args = ap.parse_args()
    raw = HERE / "results" / "raw" / f"heldout_qa_{args.split}.jsonl"
    rows = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    result = figures(rows)
    print(json.dumps(result, indent=1))
    write_result(f"confidence_ablation_{args.split}", result)


if __name__ == "__main__":
    main()
