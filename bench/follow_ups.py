"""Follow-up questions on the researcher's own documents (the corpus of ``bench/own_corpus.py``): each
case is a two-turn chat — a first question, then a follow-up that says "it" or "its" — through the
default offline pipeline, as the Ask page runs it (the follow-up is rewritten with the first question's
terms). Reports how many follow-ups are answered with the gold answer in the text, and how many whose
answer is in no document are refused.

    RAGKIT_CACHE_DIR=/tmp/owncache .venv/bin/python bench/follow_ups.py [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from own_corpus import CORPUS, FILES, PAPER

#: (first question, follow-up, gold text in the answer; None: no document holds the answer)
CASES = [
    ("How many contributors sent patches for Orbit 2.0?", "What changed in it?", "legacy-fairshare"),
    ("How many contributors sent patches for Orbit 2.0?", "What is its median scheduling latency?", "95 ms"),
    ("How many contributors sent patches for Orbit 2.0?", "Why was its queue rewritten?", "interpreter lock"),
    ("How many contributors sent patches for Orbit 2.0?", "Which license is it released under?", None),
    ("Who founded the Vision Lab?", "When was it founded?", "2011"),
    ("Who founded the Vision Lab?", "Who is its lab manager?", "Jonas Weber"),
    ("Who founded the Vision Lab?", "What is its annual budget?", None),
    ("What is the default tile size of tessera?", "How do I stitch them back?", "tessera stitch"),
    ("What is the default tile size of tessera?", "Which environment variable moves its cache?",
     "TESSERA_CACHE"),
    ("What is the default tile size of tessera?", "Which GPU does it need?", None),
    ("What media type does KVL register?", "What is the maximum length of its keys?", "64 octets"),
    ("What media type does KVL register?", "Which document is it based on?", "RFC 4180"),
    ("What media type does KVL register?", "What port does it use?", None),
    ("How many English-language academic papers does S2ORC contain?", "Why is its LaTeX metadata worse?",
     "diversity of ways"),
    ("How many English-language academic papers does S2ORC contain?",
     "For how many of them does it provide full text from PDFs?", "8.1M"),
]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=None, help="write the per-case results here")
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="ragkit-followups-"))
    os.environ["RAGKIT_INDEX_ROOT"] = str(root)
    from ragkit.core.types import Message
    from ragkit.evaluation.metrics.answers import contains_gold
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.rag import RagPipeline

    rows = []
    try:
        files = [str(PAPER), *(str(CORPUS / f) for f in FILES)]
        cmd = [sys.executable, "-m", "ragkit", "ingest", "--index", str(root / "idx"), *files]
        subprocess.run(cmd, check=True, capture_output=True)
        pipe = RagPipeline.from_index(root / "idx", PipelineConfig(name="default"))
        for first, follow, gold in CASES:
            earlier = pipe.ask(first)
            history = [Message("user", first), Message("assistant", earlier.text)]
            a = pipe.ask(follow, history)
            ok = a.abstained if gold is None else (not a.abstained and bool(contains_gold(a.text, [gold])))
            rows.append({"first": first, "follow_up": follow, "gold": gold, "ok": ok,
                         "abstained": a.abstained, "query": a.query, "answer": a.text[:300]})  # fmt: skip
    finally:
        shutil.rmtree(root, ignore_errors=True)
    answerable = [r for r in rows if r["gold"] is not None]
    absent = [r for r in rows if r["gold"] is None]
    summary = {
        "answered_with_gold": f"{sum(r['ok'] for r in answerable)}/{len(answerable)}",
        "abstained_without_answer": f"{sum(r['ok'] for r in absent)}/{len(absent)}",
        "false_abstentions": sum(r["abstained"] for r in answerable),
    }
    print(json.dumps(summary, indent=2))
    for r in rows:
        print(f"{'ok ' if r['ok'] else '-- '}{r['follow_up']}\n      {r['answer'][:140]!r}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"summary": summary, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
