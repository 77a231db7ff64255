"""The default offline pipeline on a researcher's own documents: a two-column paper with tables (S2ORC,
from ``../shared/evaldata``), a DOCX handbook, an HTML blog post with boilerplate, a Markdown README with
code, and an RFC-style text file with page headers, footers and form feeds (``bench/corpus/``), asked 39
questions of every type (``bench/corpus/questions.csv``: 30 answerable — number, person, date, why,
table, code, factual — and 7 near-topic and 2 off-topic questions whose answer is not in the
collection). The reader's rules were fitted on these questions over rounds 2-3: its figures here are
training-set figures (the held-out set, ``bench/heldout_qa.py``, is the honest measure).

Reports, per question type and overall: answerable questions answered with the gold answer in the text
(contains-gold), questions without an answer abstained on (``idk_when_absent``), and false abstentions.

    .venv/bin/python bench/own_corpus.py --json bench/results/own_corpus.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
PAPER = HERE.parents[1] / "shared" / "evaldata" / "pdfs" / "acl2020_s2orc_2020.acl-main.447.pdf"
FILES = ["lab_handbook.docx", "orbit_release.html", "tessera_README.md", "rfc9999_kvl.txt"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, help="write the per-question results here")
    ap.add_argument(
        "--run-json", default=None, help="write the whole eval run (for bench/fit_answer_confidence.py)"
    )
    ap.add_argument(
        "--config", default=None, help="a config JSON (default: PipelineConfig(), the offline default)"
    )
    args = ap.parse_args()

    root = Path(tempfile.mkdtemp(prefix="ragkit-own-"))
    os.environ["RAGKIT_INDEX_ROOT"] = str(root)
    from ragkit.evaluation.datasets.questionsets import load_question_set
    from ragkit.evaluation.runs.evaluate import evaluate_configs
    from ragkit.index.collections import Collection
    from ragkit.pipeline.config import PipelineConfig

    try:
        c = Collection.create("own", root)
        files = [(PAPER.name, PAPER.read_bytes())] + [(f, (CORPUS / f).read_bytes()) for f in FILES]
        report = c.add_files(files)
        assert not report.failed, [f.error for f in report.failed]
        config = PipelineConfig.load(args.config) if args.config else PipelineConfig(name="default")
        qset = load_question_set(CORPUS / "questions.csv", collection=c)
        result = evaluate_configs(qset, [config], index_root=str(root / ".eval"))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.run_json:
        Path(args.run_json).write_text(json.dumps(result, default=str))
    types = {}
    for line in (CORPUS / "questions.csv").read_text().splitlines()[1:]:
        q, kind = line.rsplit(",", 1)
        types[q.split(",")[0].strip('"')] = kind
    per_q = result["configs"][0]["per_question"]
    by_type: dict[str, list[float]] = defaultdict(list)
    rows = []
    for v in per_q.values():
        kind = types.get(v["question"], "?")
        if v["answerable"]:
            score = v["contains_gold"] or 0.0
        else:
            score = v["idk_when_absent"] if v["idk_when_absent"] is not None else float(v["abstained"])
        by_type[kind].append(score)
        rows.append(
            {
                "type": kind,
                "question": v["question"],
                "score": score,
                "abstained": v["abstained"],
                "answer": v["answer"][:300],
            }
        )
    answerable = [r for r in rows if not r["type"].startswith("unanswerable")]
    absent = [r for r in rows if r["type"].startswith("unanswerable")]
    summary = {
        "answered_with_gold": f"{sum(r['score'] for r in answerable):.0f}/{len(answerable)}",
        "abstained_without_answer": f"{sum(r['score'] for r in absent):.0f}/{len(absent)}",
        "false_abstentions": sum(r["abstained"] for r in answerable),
        "by_type": {k: f"{sum(v):.0f}/{len(v)}" for k, v in sorted(by_type.items())},
    }
    print(json.dumps(summary, indent=2))
    for r in rows:
        mark = "ok " if r["score"] else "-- "
        print(f"{mark}[{r['type']}] {r['question']}\n      {r['answer'][:160]!r}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(
            json.dumps(
                {
                    "summary": summary,
                    "rows": rows,
                    "machine": platform.processor() or platform.machine(),
                    "config": result["configs"][0]["config"],
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    main()
