"""How far generated questions rank set-ups the way real questions do (issue 26).

For each dataset (SciFact: 300 test claims with real qrels; XQuAD: real questions with their gold
paragraphs) every set-up of a grid (chunkers x retrievers) is scored twice with nDCG@10 over the same
corpus: by the real questions, and by a question set generated over that corpus with each generation
method available here. Both sets are judged at document level (SciFact abstracts, XQuAD paragraphs),
with the same runner. Reported: Kendall tau-b between the two rankings, and whether the best set-up is
the same.

    RAGKIT_CACHE_DIR=/tmp/scicache python bench/question_agreement.py \
        --grid bench/sweeps/agreement_grid.json --write-agreement
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from scipy.stats import kendalltau

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _common import machine  # noqa: E402

from ragkit.evaluation.datasets.loaders import BeirDataset, load_beir, load_squad  # noqa: E402
from ragkit.evaluation.datasets.questionsets import QuestionSet  # noqa: E402
from ragkit.evaluation.questiongen import QuestionGenerator, offline  # noqa: E402
from ragkit.evaluation.runs.config_run import BeirRunner  # noqa: E402
from ragkit.evaluation.sweep.grid import Grid  # noqa: E402

EVALDATA = ROOT.parent / "shared" / "evaldata"
AGREEMENT = ROOT / "ragkit" / "evaluation" / "questiongen" / "agreement.json"


def datasets(n_scifact: int, n_xquad: int) -> dict[str, tuple[BeirDataset, int]]:
    sci = load_beir(EVALDATA / "scifact")
    sq = load_squad(EVALDATA / "xquad_en" / "xquad.en.json")
    corpus = {pid: ("", ctx) for pid, (_title, ctx) in sq.paragraphs.items()}
    queries = {q.qid: q.question for q in sq.questions}
    qrels = {q.qid: {q.paragraph_id: 1} for q in sq.questions}
    xq = BeirDataset("xquad", sq.path, corpus, queries, qrels)
    return {"scifact": (sci, n_scifact), "xquad": (xq, n_xquad)}


def generated(ds: BeirDataset, method: str, n: int, terms: tuple[int, int]) -> tuple[BeirDataset, dict]:
    """A generated set over ``ds``'s corpus, as a BEIR dataset judged by each question's evidence file."""
    t = time.perf_counter()
    report = QuestionGenerator(ds.documents(), method, offline_terms=terms).run(n)
    took = time.perf_counter() - t
    queries, qrels = {}, {}
    for q in report.accepted:
        queries[q.qid] = q.question
        qrels[q.qid] = {s: 1 for s, _ in q.evidence}
    info = {"accepted": len(queries), "acceptance": report.acceptance(), "seconds": round(took, 1)}
    return BeirDataset(ds.name, ds.path, ds.corpus, queries, qrels), info


def chunker_pairs(cands: list) -> list[tuple[str, str]]:
    """Set-ups that differ only in their chunker settings: does each set say the same chunker wins?"""
    groups: dict[str, list[str]] = {}
    for c in cands:
        rest = json.dumps({k: v for k, v in c.varied.items() if k != "chunker_params"}, sort_keys=True)
        groups.setdefault(rest, []).append(c.name)
    return [(g[0], g[1]) for g in groups.values() if len(g) == 2]


def score(ds: BeirDataset, config, embedders: dict, index_root: str) -> float:
    qset = QuestionSet(ds.name, "beir", str(ds.path), "bench", beir=ds)
    runner = BeirRunner(qset, config, embedders, index_root, text_only=True)
    for qid in runner.items(None):
        runner.step(qid)
    return float(runner.finish().metrics["ndcg@10"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", default=str(ROOT / "bench" / "sweeps" / "agreement_grid.json"))
    ap.add_argument("--index-root", default=str(ROOT / "indexes" / ".eval"))
    ap.add_argument("--scifact-n", type=int, default=300)
    ap.add_argument("--xquad-n", type=int, default=240)
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "question_agreement.json"))
    ap.add_argument(
        "--variant",
        action="append",
        default=[],
        type=lambda v: tuple(int(x) for x in v.split(",")),
        help="also an offline variant TERMS,SKIP (query words, most salient skipped); repeatable",
    )
    ap.add_argument("--write-agreement", action="store_true", help=f"also write {AGREEMENT.name} (the UI's)")
    args = ap.parse_args()
    cands, _ = Grid.load(args.grid).candidates()
    embedders: dict = {}
    out = {"machine": machine(), "grid": args.grid, "setups": [c.name for c in cands], "datasets": {}}
    for name, (ds, n) in datasets(args.scifact_n, args.xquad_n).items():
        real = {c.name: score(ds, c.config, embedders, args.index_root) for c in cands}
        entry = {"real_questions": len(ds.queries), "real": real, "methods": {}}
        # the methods that run here (no instruct LLM ships on this machine), and offline variants
        runs = [("offline", (offline.TERMS, 0))] + [(f"offline[{t},{k}]", (t, k)) for t, k in args.variant]
        for method, terms in runs:
            gen, info = generated(ds, "offline", n, terms)
            scores = {c.name: score(gen, c.config, embedders, args.index_root) for c in cands}
            names = list(real)
            tau, p = kendalltau([real[k] for k in names], [scores[k] for k in names])
            best_real, best_gen = max(real, key=real.get), max(scores, key=scores.get)
            pairs = chunker_pairs(cands)
            same = [(real[a] > real[b]) == (scores[a] > scores[b]) for a, b in pairs]
            entry["methods"][method] = {
                **info,
                "scores": scores,
                "kendall_tau": round(float(tau), 3),
                "tau_p": round(float(p), 4),
                "best_real": best_real,
                "best_generated": best_gen,
                "best_agrees": best_real == best_gen,
                "chunker_verdicts_agree": f"{sum(same)}/{len(same)}",
                "median_gap": statistics.median(scores[k] - real[k] for k in names),
            }
            print(name, method, entry["methods"][method]["kendall_tau"], best_real, best_gen, flush=True)
        out["datasets"][name] = entry
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=1))
    if args.write_agreement:
        summary = {
            m: {
                d: {
                    k: e["methods"][m][k]
                    for k in ("kendall_tau", "best_agrees", "chunker_verdicts_agree", "accepted")
                }
                | {"setups": len(out["setups"])}
                for d, e in out["datasets"].items()
                if m in e["methods"]
            }
            for m in ("offline",)
        }
        command = "python bench/question_agreement.py --write-agreement"
        AGREEMENT.write_text(json.dumps({"command": command, **summary}, indent=1) + "\n")
    print(json.dumps(out["datasets"], indent=1))


if __name__ == "__main__":
    main()
