"""Extractive answers on table questions: the FBI NICS PDF (a 25-column table) with 18 questions whose
gold answers are cells of the table (``bench/data/fbi_table_questions.csv``), asked through three
chunkers with the extractive backend. Prints contains-gold, token F1 and the mean answer length.

    .venv/bin/python bench/extractive_answers.py --json bench/results/extractive_tables.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from dataclasses import replace
from pathlib import Path

from ragkit.evaluation.datasets.questionsets import load_question_set
from ragkit.evaluation.runs.evaluate import evaluate_configs
from ragkit.index.collections import Collection
from ragkit.pipeline.config import PipelineConfig

HERE = Path(__file__).resolve().parent
EVALDATA = Path(os.environ.get("RAGKIT_EVALDATA", HERE.parents[1] / "shared" / "evaldata"))
PDF = EVALDATA / "pdfs" / "table_fbi_nics_background_checks_2015-11.pdf"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", default=str(HERE / "data" / "fbi_table_questions.csv"))
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ragkit-tables-"))
    col = Collection.create("tables", root)
    col.add_files([(PDF.name, PDF.read_bytes())])
    configs = [
        replace(PipelineConfig(), name="sliding-500", chunker="sliding"),
        replace(PipelineConfig(), name="sentence-3", chunker="sentence"),
        replace(PipelineConfig(), name="markdown", chunker="markdown"),
    ]
    qset = load_question_set(args.questions, collection=col)
    result = evaluate_configs(qset, configs, index_root=str(root / ".eval"))
    rows = []
    for c in result["configs"]:
        lengths = [len(v["answer"]) for v in c["per_question"].values()]
        rows.append(
            {
                "config": c["name"],
                "contains_gold": round(c["metrics"]["contains_gold"], 4),
                "f1": round(c["metrics"]["f1"], 4),
                "false_abstention": round(c["metrics"].get("false_abstention", 0.0), 4),
                "median_answer_chars": statistics.median(lengths),
                "max_answer_chars": max(lengths),
            }
        )
    for r in rows:
        print(json.dumps(r))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"rows": rows, "result": result}, indent=1, default=str))


if __name__ == "__main__":
    main()
