"""Why Ask's generate stage read 3× Evaluate's (BENCHMARKS "Stage timings", issue 43), in-process, without a
browser: the extractive reader (the offline default) embeds the sentences of the retrieved chunks, through
the embedding cache. The Ask chat met them first; the Evaluate run that ``bench/stage_timings.py`` made
right after found them all in the cache. And every first embedding was a commit to the SQLite cache,
which (WAL, ``synchronous=FULL``) waited for an fsync.

Over the own-documents corpus's text files (``bench/corpus/``, sliding 500/100, default config A), the
answerable questions asked the way each surface asks them (Ask: ``prepare`` then ``stream``; Evaluate:
``ask``), each measured on a cold and on a warm reader cache, with the cache committing with fsync (the
"before" setting) and without (``synchronous=NORMAL``, now). The passes alternate (each pass on a fresh
cache) so they share the machine alike.

    .venv/bin/python bench/generate_stage.py --repeat 3 --name generate_stage
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CORPUS = ROOT / "bench" / "corpus"
FILES = ["lab_handbook.docx", "orbit_release.html", "tessera_README.md", "rfc9999_kvl.txt"]


def questions() -> list[str]:
    with open(CORPUS / "questions.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    keep = {s for s in FILES}
    return [r["question"] for r in rows if r["relevant_sources"] in keep and r["type"] != "unanswerable"]


def one_pass(surface: str, sync: str, work: Path, qs: list[str], model: object) -> dict[str, float]:
    """Median generate ms of ``surface`` over ``qs``: first with a cold cache of reader sentences, then
    the same questions again (warm). A fresh embedding cache and index for every pass."""
    from ragkit.index.collections import Collection
    from ragkit.index.embeddings import Embedder, EmbeddingCache
    from ragkit.ingestion.chunkers import chunker_for
    from ragkit.pipeline.config import PipelineConfig
    from ragkit.pipeline.rag import RagPipeline

    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cache = EmbeddingCache(work / "embeddings.sqlite")
    cache._db.execute(f"PRAGMA synchronous={sync}")  # the setting under test (NORMAL is the default now)
    emb = Embedder(cache=cache)
    emb._model = model  # loaded once for every pass: only the generate stage is timed
    config = PipelineConfig()
    coll = Collection.create("own", work)
    coll.add_files([(f, (CORPUS / f).read_bytes()) for f in FILES])
    store, _ = coll.index(chunker_for(config), emb)
    pipe = RagPipeline(config, store, emb)
    pipe.warm_up()
    out = {}
    for phase in ("cold", "warm"):
        times = []
        for q in qs:
            emb.clear_query_cache()
            if surface == "ask":
                prep = pipe.prepare(q)
                text = "".join(pipe.stream(prep))
                answer = pipe.finish(prep, text)
            else:
                answer = pipe.ask(q)
            times.append(answer.timings_ms["generate"])
        out[phase] = statistics.median(times)
    cache.close()
    return out


def main() -> None:
    from bench._common import write_result

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--name", default="generate_stage")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="ragkit-gen-"))
    os.environ["RAGKIT_INDEX_ROOT"] = str(work)
    from ragkit.index.embeddings import Embedder

    model = Embedder(cache=False).model
    qs = questions()
    runs: dict[str, list[dict[str, float]]] = {}
    for i in range(args.repeat):
        for sync in ("FULL", "NORMAL"):
            for surface in ("ask", "evaluate"):
                r = one_pass(surface, sync, work / "pass", qs, model)
                runs.setdefault(f"{surface}, synchronous={sync}", []).append(r)
                print(f"#{i + 1} {surface} synchronous={sync}: cold {r['cold']:.1f}, warm {r['warm']:.1f} ms")
    shutil.rmtree(work, ignore_errors=True)
    out = {
        k: {p: round(statistics.median(r[p] for r in rs), 1) for p in ("cold", "warm")} | {"passes": rs}
        for k, rs in runs.items()
    }
    out["questions"] = len(qs)
    print(write_result(args.name, out))


if __name__ == "__main__":
    main()
