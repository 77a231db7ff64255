"""XQuAD split once into dev and test by article (seeded; no article's paragraphs on both sides), for the
answer-confidence fit: dev is what ``bench/fit_answer_confidence.py`` may read, test is sealed with the
held-out set (bench/heldout/SEALED.json records this split's hash).

    .venv/bin/python bench/heldout/xquad_split.py --write          # once: bench/heldout/xquad_split.json
    .venv/bin/python bench/heldout/xquad_split.py --part dev --out /tmp/xquad_dev.json   # a SQuAD file
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
XQUAD = HERE.parents[2] / "shared" / "evaldata" / "xquad_en" / "xquad.en.json"
SPLIT = HERE / "xquad_split.json"
SEED = 20261125


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="make the split (refuses to redo it)")
    ap.add_argument("--part", choices=("dev", "test"))
    ap.add_argument("--out", help="where to write that part as a SQuAD JSON")
    args = ap.parse_args()
    data = json.loads(XQUAD.read_text(encoding="utf-8"))
    if args.write:
        if SPLIT.exists():
            raise SystemExit(f"{SPLIT} exists: the split is made once")
        titles = sorted(a["title"] for a in data["data"])
        random.Random(SEED).shuffle(titles)
        half = len(titles) // 2
        split = {"seed": SEED, "dev": sorted(titles[:half]), "test": sorted(titles[half:])}
        SPLIT.write_text(json.dumps(split, indent=1) + "\n")
        print(f"wrote {SPLIT}")
    if args.part:
        keep = set(json.loads(SPLIT.read_text())[args.part])
        part = {**data, "data": [a for a in data["data"] if a["title"] in keep]}
        Path(args.out).write_text(json.dumps(part, ensure_ascii=False), encoding="utf-8")
        n = sum(len(p["qas"]) for a in part["data"] for p in a["paragraphs"])
        print(f"wrote {args.out}: {len(part['data'])} articles, {n} questions")


if __name__ == "__main__":
    main()
