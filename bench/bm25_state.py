"""Should BM25 state be persisted with the index or rebuilt from the stored chunks? Measure both.

Rebuild = analyse every chunk (tokenise, stop words, stem) + build ``BM25Okapi``.
Persist = read pre-analysed tokens from a JSON file + build ``BM25Okapi`` (rank-bm25 has no
non-pickle serialisation of its statistics, so the build step remains either way).

    python bench/bm25_state.py --index indexes/.eval/<scifact index dir>
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median_time
from ragkit.index.store import IndexStore
from ragkit.retrievers.analyzer import Analyzer


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    args = ap.parse_args()
    from rank_bm25 import BM25Okapi

    t = time.perf_counter()
    store = IndexStore.open(args.index)
    load_s = time.perf_counter() - t
    texts = [c.text for c in store.chunks]

    def analyse():
        a = Analyzer()  # a fresh analyzer each time: no warm stem cache
        return [a(x) for x in texts]

    analyse_s, tokens = median_time(analyse, 5)
    build_s, _ = median_time(lambda: BM25Okapi(tokens, k1=0.9, b=0.4), 5)
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "tokens.json"
        p.write_text(json.dumps(tokens))
        read_s, _ = median_time(lambda: json.loads(p.read_text()), 5)
        size_mb = p.stat().st_size / 1e6
    res = {
        "machine": machine(),
        "chunks": len(texts),
        "index_load_s": load_s,
        "rebuild_s": analyse_s + build_s,
        "analyse_s": analyse_s,
        "bm25okapi_build_s": build_s,
        "persisted_tokens_read_s": read_s,
        "persisted_total_s": read_s + build_s,
        "persisted_tokens_mb": size_mb,
    }
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
