"""Labelled (sentence, chunk) pairs from XQuAD for the offline citation check: thresholds chosen on the first
120 paragraphs, precision and recall of the detector measured on the other 120.

Pairs, for every question with its gold answer (a claim "<question> <answer>."):

- **supported**: the claim and the chunk (sliding 500/100 over its paragraph) that holds the answer;
- **not supported, other passage**: the claim and a chunk of another paragraph of the same article that
  does not contain the answer (same topic, hard);
- **not supported, wrong answer**: the claim with another answer from the same article swapped in (one
  that does not occur in the passage) and the chunk that holds the real answer.

    .venv/bin/python bench/citation_pairs.py --json bench/results/citation_pairs.json
"""

from __future__ import annotations

import argparse
import json
import os
import random
from pathlib import Path

import numpy as np

from ragkit.evaluation.datasets.loaders import load_squad
from ragkit.evaluation.metrics.citations import pair_scores
from ragkit.index.embeddings import Embedder
from ragkit.ingestion.chunkers import SlidingChunker
from ragkit.retrievers.analyzer import Analyzer

HERE = Path(__file__).resolve().parent
EVALDATA = Path(os.environ.get("RAGKIT_EVALDATA", HERE.parents[1] / "shared" / "evaldata"))


def build_pairs(seed: int = 0) -> list[dict]:
    ds = load_squad(EVALDATA / "xquad_en" / "xquad.en.json")
    rng = random.Random(seed)
    chunker = SlidingChunker()
    chunks = {pid: [c.text for c in chunker.split(d)] for pid, d in ((d.doc_id, d) for d in ds.documents())}
    by_article: dict[str, list[str]] = {}
    for pid, (title, _) in ds.paragraphs.items():
        by_article.setdefault(title, []).append(pid)
    answers_by_article: dict[str, list[str]] = {}
    for q in ds.questions:
        answers_by_article.setdefault(ds.paragraphs[q.paragraph_id][0], []).append(q.answers[0])
    pairs = []
    for q in ds.questions:
        pid, ans = q.paragraph_id, q.answers[0]
        title = ds.paragraphs[pid][0]
        split = "dev" if int(pid[1:]) < 120 else "test"
        holding = [c for c in chunks[pid] if ans in c]
        if not holding:
            continue
        claim = f"{q.question.rstrip('?')}? {ans}."
        pairs.append({"split": split, "kind": "supported", "label": 1, "claim": claim, "chunk": holding[0]})
        others = [c for p in by_article[title] if p != pid for c in chunks[p] if ans not in c]
        if others:
            pairs.append(
                {
                    "split": split,
                    "kind": "other passage",
                    "label": 0,
                    "claim": claim,
                    "chunk": rng.choice(others),
                }
            )
        wrong = [a for a in answers_by_article[title] if a != ans and a not in ds.paragraphs[pid][1]]
        if wrong:
            swapped = f"{q.question.rstrip('?')}? {rng.choice(wrong)}."
            pairs.append(
                {"split": split, "kind": "wrong answer", "label": 0, "claim": swapped, "chunk": holding[0]}
            )
    return pairs


def prf(pred: np.ndarray, gold: np.ndarray) -> tuple[float, float, float]:
    tp = float(np.sum(pred & gold))
    p = tp / max(float(np.sum(pred)), 1.0)
    r = tp / max(float(np.sum(gold)), 1.0)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    pairs = build_pairs()
    emb, analyzer = Embedder(), Analyzer()
    for p in pairs:
        p["semantic"], p["lexical"], p["key"] = pair_scores(p["claim"], p["chunk"], emb, analyzer)
    sem = np.array([p["semantic"] for p in pairs])
    lex = np.array([p["lexical"] for p in pairs])
    key = np.array([p["key"] for p in pairs])
    gold = np.array([p["label"] == 1 for p in pairs])
    dev = np.array([p["split"] == "dev" for p in pairs])
    best = (-1.0, 0.0, 0.0, 0.0)
    for ts in np.arange(0.30, 0.86, 0.05):
        for tl in np.arange(0.0, 1.01, 0.1):
            for tk in (0.0, 0.5, 0.75, 1.0):
                f1 = prf((sem >= ts) & (lex >= tl) & (key >= tk) & dev, gold & dev)[2]
                if f1 > best[0]:
                    best = (f1, round(float(ts), 2), round(float(tl), 2), tk)
    _, ts, tl, tk = best
    pred = (sem >= ts) & (lex >= tl) & (key >= tk)
    report = {"thresholds": {"semantic": ts, "lexical": tl, "key": tk}, "pairs": len(pairs)}
    # the same grid without the key-term signal, for comparison
    best2 = max(
        (prf((sem >= a) & (lex >= b) & dev, gold & dev)[2], round(float(a), 2), round(float(b), 2))
        for a in np.arange(0.30, 0.86, 0.05)
        for b in np.arange(0.0, 1.01, 0.1)
    )
    pred2 = (sem >= best2[1]) & (lex >= best2[2])
    test = np.array([p["split"] == "test" for p in pairs])
    report["without key terms"] = {
        "thresholds": {"semantic": best2[1], "lexical": best2[2]},
        "test f1": round(prf(pred2 & test, gold & test)[2], 4),
    }
    for split in ("dev", "test"):
        m = np.array([p["split"] == split for p in pairs])
        p_, r_, f_ = prf(pred & m, gold & m)
        report[split] = {
            "pairs": int(m.sum()),
            "precision": round(p_, 4),
            "recall": round(r_, 4),
            "f1": round(f_, 4),
        }
        for kind in ("other passage", "wrong answer"):
            k = m & np.array([p["kind"] == kind for p in pairs])
            report[split][f"false accept, {kind}"] = round(float(np.mean(pred[k])), 4) if k.any() else None
    print(json.dumps(report, indent=1))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
