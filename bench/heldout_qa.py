"""Answers and abstentions on documents nobody tuned on (issue 40): the held-out questions of
``bench/heldout`` asked over a collection of their split's documents, with a config (default: the app's
default pipeline, offline). Reported: answerable questions answered with the gold answer, near-topic and
off-topic unanswerable questions abstained on, follow-ups (asked after the question they continue, with
its answer) against the same questions written out in full, and how well the answer confidence ranks
right answers above wrong ones (ROC AUC; risk-coverage). A question whose answer was withheld is judged
on what the reader would have said, so the ranking covers every question.

    .venv/bin/python bench/heldout_qa.py --docs /work/corpus/heldout/docs --split dev
    .venv/bin/python bench/heldout_qa.py --docs /work/corpus/heldout/docs --split test   # report only

``--split test`` reads the sealed questions: run it to report, never to tune (bench/heldout/SEALED.json).
Per-question rows (with the reader's measures, for ``bench/fit_answer_confidence.py`` on dev) go to
``bench/results/raw/heldout_qa_<split>.jsonl``; the figures to ``bench/results/heldout_qa_<split>.json``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, write_result  # noqa: E402


def question_rows(split: str, standalone: bool = False) -> list[dict]:
    """The split's questions as an eval question file: answerable ones with their gold answer, file and
    evidence; unanswerable ones with nothing (the right response is "I don't know"). ``standalone``: each
    follow-up written out in full and asked on its own."""
    out = []
    for line in (HERE / "heldout" / f"questions_{split}.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        answerable = q["kind"] == "answerable"
        follows = q.get("follows") or ""
        out.append(
            {
                "id": q["id"],
                "question": q["standalone"] if standalone and follows else q["question"],
                "gold_answer": q["gold_answer"] if answerable else "",
                "relevant_sources": q["relevant_sources"] if answerable else "",
                "follows": "" if standalone else follows,
                "kind": q["kind"],
            }
        )
    return out


FIGURES = (
    "answerable_right",
    "near_topic_abstained",
    "off_topic_abstained",
    "follow_ups_right",
    "false_abstention",
)


def auroc(scores: list[float], labels: list[bool]) -> float | None:
    """ROC AUC: the chance a right answer's confidence is above a wrong one's (ties count half)."""
    pos = [s for s, y in zip(scores, labels, strict=True) if y]
    neg = [s for s, y in zip(scores, labels, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def risk_coverage(scores: list[float], labels: list[bool]) -> list[dict]:
    """Accuracy of the answers kept against the share kept, keeping the most confident first."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    out, right = [], 0
    for k, i in enumerate(order, 1):
        right += labels[i]
        if k % max(1, len(order) // 10) == 0 or k == len(order):
            out.append({"coverage": round(k / len(order), 3), "accuracy": round(right / k, 3)})
    return out


def run(split: str, docs: Path, configs: list[str], collection_dir: Path) -> tuple[list[dict], dict]:
    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.runs.evaluate import evaluate_configs
    from ragkit.index.collections import Collection
    from ragkit.pipeline.config import PipelineConfig

    corpus = json.loads((HERE / "heldout" / "corpus.json").read_text())
    files = [docs / d["file"] for d in corpus if d["split"] == split]
    collection = Collection(f"heldout-{split}", collection_dir)
    if not collection.exists:
        collection = Collection.create(f"heldout-{split}", collection_dir)
        report = collection.add_files([(p.name, p.read_bytes()) for p in files], max_mb=200)
        for f in report.failed:
            print(f"not read: {f.error}", file=sys.stderr)
    cfgs = [PipelineConfig.load(c) for c in configs] or [PipelineConfig(name="default")]
    rows: list[dict] = []
    figures: dict = {}
    for variant in ("asked", "standalone"):
        qfile = collection_dir / f"questions-{split}-{variant}.jsonl"
        spec = question_rows(split, standalone=variant == "standalone")
        qfile.write_text("".join(json.dumps(r) + "\n" for r in spec), encoding="utf-8")
        qset = load_question_set(qfile, collection=collection)
        kinds = {r["id"]: r["kind"] for r in spec}
        follow_ups = {r["id"] for r in question_rows(split) if r["follows"]}
        result = evaluate_configs(qset, cfgs, index_root=str(collection_dir / "evalruns"))
        for c in result["configs"]:
            for qid, row in c["per_question"].items():
                rows.append({"variant": variant, "config": c["name"], "id": qid, "kind": kinds[qid],
                             "follow_up": qid in follow_ups, **row})  # fmt: skip
            figures.setdefault(c["name"], {})[variant] = summary(
                [r for r in rows if r["variant"] == variant and r["config"] == c["name"]]
            )
        figures["set_aside"] = [p["qid"] for p in qset.problems]
    return rows, figures


def summary(rows: list[dict]) -> dict:
    """The issue's figures over one config's rows."""

    def share(sel: list[dict], key: str) -> dict:
        vals = [float(r.get(key) or 0.0) for r in sel]
        return {"n": len(vals), "share": round(sum(vals) / len(vals), 4) if vals else None}

    answerable = [r for r in rows if r["kind"] == "answerable"]
    scored = [r for r in rows if r.get("answer_confidence") is not None]
    labels = [bool(r.get("candidate_correct")) if r["kind"] == "answerable" else False for r in scored]
    confs = [float(r["answer_confidence"]) for r in scored]
    return {
        "answerable_right": share(answerable, "contains_gold"),
        "near_topic_abstained": share([r for r in rows if r["kind"] == "near_topic"], "abstained"),
        "off_topic_abstained": share([r for r in rows if r["kind"] == "off_topic"], "abstained"),
        "follow_ups_right": share([r for r in answerable if r["follow_up"]], "contains_gold"),
        "false_abstention": share(answerable, "abstained"),
        "answer_confidence_auroc": auroc(confs, labels),
        "risk_coverage": risk_coverage(confs, labels),
        "scored": len(scored),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docs", required=True, help="the held-out corpus folder (bench/heldout/get_corpus.py)")
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument(
        "--config", action="append", default=[], help="config JSON (repeatable; default: defaults)"
    )
    ap.add_argument("--keep", default=None, help="folder to keep the collection in (reused when present)")
    ap.add_argument("--name", default=None, help="results name (default heldout_qa_<split>)")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="heldout-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        rows, figures = run(args.split, Path(args.docs), args.config, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    name = args.name or f"heldout_qa_{args.split}"
    raw = RESULTS / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    (raw / f"{name}.jsonl").write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    print(write_result(name, figures))
    for cfg, v in figures.items():
        if cfg == "set_aside":
            continue
        for variant, f in v.items():
            shown = [f"{k} {f[k]['share']:.2f} of {f[k]['n']}" for k in FIGURES if f[k]["share"] is not None]
            print(f"{cfg} [{variant}]: " + ", ".join(shown) + f", AUROC {f['answer_confidence_auroc']}")


if __name__ == "__main__":
    main()
