"""Local LLM (packaged Gemma 3 270M) generation time, bfloat16 vs float32, same prompt, same run.

python bench/local_llm_dtype.py [--repeat 5] [--new-tokens 32]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import machine, median_time
from ragkit.llms.base import GenerationRequest
from ragkit.llms.local import LocalLLM

PROMPT = (
    "Answer the question using only the sources. Cite sources as [n].\n\nSources:\n"
    + "\n\n".join(
        f"[{i}] notes.txt p.{i}\n" + "The typewriter was patented in 1868 by Christopher Latham Sholes. " * 6
        for i in range(1, 6)
    )
    + "\n\nQuestion: Who patented the typewriter?\nAnswer:"
)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--new-tokens", type=int, default=32)
    args = ap.parse_args()
    res: dict = {"machine": machine()}
    for dtype in ("bfloat16", "float32"):
        llm = LocalLLM(dtype=dtype)
        t = time.perf_counter()
        llm.load()
        load_s = time.perf_counter() - t
        # no stop sequences: every run generates exactly new-tokens tokens, so the dtypes do equal work
        req = GenerationRequest([], PROMPT, "q", (), 0.0, args.new_tokens, ())
        llm.generate(req)  # warm up
        secs, gen = median_time(lambda llm=llm, req=req: llm.generate(req), args.repeat)
        res[dtype] = {
            "load_s": load_s,
            "median_s": secs,
            "prompt_tokens": gen.prompt_tokens,
            "new_tokens": gen.completion_tokens,
            "tokens_per_s": gen.completion_tokens / secs,
        }
    res["bf16_speedup"] = res["float32"]["median_s"] / res["bfloat16"]["median_s"]
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
