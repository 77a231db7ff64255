"""Optional pipeline stages between retrieval and generation: a relevance grader with one query rewrite,
query expansion fused by RRF, and a token budget for the sources.

- **Grader** (``relevance_grader``): every retrieved chunk is graded. With an LLM backend the LLM answers
  yes/no per chunk (parsed robustly; a reply that does not parse counts as a failure and keeps the chunk,
  so a flaky grader never throws evidence away); offline the cross-encoder's probability (when the config
  reranks) or the query–chunk cosine must reach ``grader_threshold``. Chunks that fail are dropped. When
  none passes, the query is rewritten once (LLM, or offline keyword expansion from the retrieved text)
  and retrieval runs again — at most one retry.
- **Expansion** (``query_expansion`` = N): the LLM writes N alternative queries (a JSON list); each is
  retrieved and all lists are fused with reciprocal rank fusion. Offline there is no expansion (the trace
  says so).
- **Context budget** (``context_tokens``): the sources, most relevant first, are kept while they fit the
  budget, counted with the LLM's own tokenizer when ragkit has it (the local model), else with the
  packaged MiniLM WordPiece tokenizer (documented default; it counts within ~15 % of Llama-family
  tokenizers on English prose).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ragkit.core.optional import require
from ragkit.core.options import Option
from ragkit.core.types import Hit, Message
from ragkit.llms import capabilities
from ragkit.llms.base import GenerationRequest
from ragkit.pipeline.prompts import EXPAND, GRADE, QUERY_REWRITE
from ragkit.retrievers.fusion import reciprocal_rank_fusion

#: the config fields of the optional stages between retrieval and generation
OPTIONS = (
    Option("relevance_grader", "bool", False, field="relevance_grader", added_later=True, advanced=True,
           label="Relevance grader + one rewrite",
           help="Grade each retrieved chunk (LLM yes/no, or offline: cross-encoder / cosine); when none "
           "passes, rewrite the query once and retrieve again."),
    Option("grader_threshold", "float", 0.35, -1.0, 1.0, field="grader_threshold", added_later=True,
           advanced=True, requires="relevance_grader", widget="slider", step=0.05,
           label="Offline grader threshold (cosine)", help="the cosine (or probability) a chunk must reach"),
    Option("query_expansion", "int", 0, 0, 5, field="query_expansion", added_later=True, advanced=True,
           needs="generative",
           label="Query expansion: alternative queries (0 = off; needs an LLM)",
           help="alternative queries written by the LLM, each retrieved and fused by RRF"),
    Option("context_tokens", "int?", None, 64, 1_000_000, field="context_tokens", added_later=True,
           advanced=True, step=512, label="Context budget in tokens (0 = no budget)",
           help="token budget for the sources given to the LLM"),
)  # fmt: skip


@dataclass(frozen=True)
class Grade:
    chunk_id: str
    relevant: bool
    score: float | None  # offline: the cosine or cross-encoder probability; LLM: None
    parsed: bool = True  # an LLM reply that did not parse is kept as relevant, and counted
    reply: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "relevant": self.relevant,
            "score": self.score,
            "parsed": self.parsed,
            "reply": self.reply[:200],
        }


_YES = re.compile(r"^\W*(yes|relevant|true)\b", re.IGNORECASE)
_NO = re.compile(r"^\W*(no|not relevant|irrelevant|false)\b", re.IGNORECASE)


def parse_yes_no(reply: str) -> bool | None:
    """A grader's verdict from its reply: "yes"/"no" first (any case and punctuation), a JSON object
    with a boolean or yes/no value, or "Grade: yes"; ``None`` when it cannot be read."""
    text = reply.strip()
    if not text:
        return None
    m = re.search(r"\{[^{}]*\}", text)
    if m:
        try:
            obj = json.loads(m.group(0))
            for v in obj.values():
                if isinstance(v, bool):
                    return v
                if isinstance(v, str) and v.strip().lower() in ("yes", "no"):
                    return v.strip().lower() == "yes"
        except ValueError:
            pass
    if _NO.match(text):
        return False
    if _YES.match(text):
        return True
    m = re.search(r"\b(?:grade|answer|relevant)\s*[:=]\s*(yes|no)\b", text, re.IGNORECASE)
    if m:
        return m.group(1).lower() == "yes"
    return None


class LLMGrader:
    """Asks the pipeline's LLM whether each chunk is relevant (one short call per chunk)."""

    kind = "llm"

    def __init__(self, llm: Any) -> None:
        self.llm = llm

    def grade(self, query: str, hits: Sequence[Hit]) -> list[Grade]:
        out = []
        for h in hits:
            prompt = GRADE.format(document=h.chunk.text.strip()[:4000], question=query.strip())
            req = GenerationRequest([Message("user", prompt)], prompt, query, (), 0.0, 8, ())
            reply = self.llm.generate(req).text
            verdict = parse_yes_no(reply)
            out.append(
                Grade(h.chunk_id, True if verdict is None else verdict, None, verdict is not None, reply)
            )
        return out


class OfflineGrader:
    """Grades without an LLM: the cross-encoder probability when the hit was reranked, else the cosine."""

    kind = "offline"

    def __init__(self, threshold: float = 0.35) -> None:
        self.threshold = threshold

    def grade(self, query: str, hits: Sequence[Hit]) -> list[Grade]:
        import math

        out = []
        for h in hits:
            if "rerank" in h.scores:
                score = 1 / (1 + math.exp(-h.scores["rerank"]))
                ok = score >= 0.5
            else:
                score = h.cosine if h.cosine is not None else 0.0
                ok = score >= self.threshold
            out.append(Grade(h.chunk_id, ok, round(float(score), 4)))
        return out


def make_grader(llm: Any, threshold: float) -> LLMGrader | OfflineGrader:
    return LLMGrader(llm) if capabilities(llm).generative else OfflineGrader(threshold)


def rewrite_query(llm: Any, query: str, hits: Sequence[Hit]) -> tuple[str, str]:
    """One better query after the grader rejected everything: ``(query, how)`` with ``how`` ``"llm"`` or
    ``"keywords"`` (offline: the question plus the most distinctive words of what was retrieved)."""
    if capabilities(llm).generative:
        prompt = QUERY_REWRITE.format(question=query.strip())
        req = GenerationRequest([Message("user", prompt)], prompt, query, (), 0.0, 64, ("\n",))
        lines = [x.strip().strip('"') for x in llm.generate(req).text.strip().splitlines() if x.strip()]
        if lines and len(lines[0]) > 3:
            return lines[0], "llm"
    return keyword_expansion(query, hits), "keywords"


def keyword_expansion(query: str, hits: Sequence[Hit], n_terms: int = 3) -> str:
    """The query plus the ``n_terms`` words that are most frequent across the retrieved chunks and absent
    from the query (pseudo-relevance feedback; stop words and short words left out)."""
    from collections import Counter

    from ragkit.retrievers.analyzer import LUCENE_STOP_WORDS

    have = {w.lower() for w in re.findall(r"\w+", query)}
    counts: Counter[str] = Counter()
    for h in hits:
        for w in set(re.findall(r"[^\W\d_]{4,}", h.chunk.text.lower())):
            if w not in have and w not in LUCENE_STOP_WORDS:
                counts[w] += 1
    extra = [w for w, _ in counts.most_common(n_terms)]
    return f"{query.strip()} {' '.join(extra)}".strip()


def expand_queries(llm: Any, question: str, n: int) -> tuple[list[str], bool]:
    """``n`` alternative queries from the LLM, and whether its reply parsed (a JSON list of strings, or
    an object holding one; else one query per line)."""
    prompt = EXPAND.format(n=n, question=question.strip())
    req = GenerationRequest([Message("user", prompt)], prompt, question, (), 0.3, 256, ())
    reply = llm.generate(req).text
    queries = _json_strings(reply)
    parsed = queries is not None
    if queries is None:
        queries = [x.strip(" -*•\t\"'") for x in reply.splitlines() if len(x.strip(" -*•\t\"'")) > 3]
    seen = {question.strip().lower()}
    out = []
    for q in queries:
        if q.strip().lower() not in seen:
            seen.add(q.strip().lower())
            out.append(q.strip())
    return out[:n], parsed


def _json_strings(reply: str) -> list[str] | None:
    for pattern in (r"\[[^\[\]]*\]", r"\{.*\}"):
        m = re.search(pattern, reply, re.DOTALL)
        if not m:
            continue
        try:
            obj = json.loads(m.group(0))
        except ValueError:
            continue
        if isinstance(obj, dict):
            obj = next((v for v in obj.values() if isinstance(v, list)), None)
        if isinstance(obj, list) and all(isinstance(x, str) for x in obj):
            return obj
    return None


def fuse_hit_lists(lists: Sequence[Sequence[Hit]], top_k: int, k: float = 60.0) -> list[Hit]:
    """Reciprocal rank fusion of the hit lists of several queries (stage ``expand``): each hit keeps its
    other stage scores and ranks; ties break as :func:`reciprocal_rank_fusion` does."""
    fused = reciprocal_rank_fusion({str(i): [h.chunk_id for h in hits] for i, hits in enumerate(lists)}, k=k)
    first: dict[str, Hit] = {}
    for hits in lists:
        for h in hits:
            first.setdefault(h.chunk_id, h)
    out = []
    for rank, (cid, score) in enumerate(fused[:top_k], start=1):
        h = first[cid]
        out.append(
            Hit(
                h.chunk,
                rank,
                score,
                "expand",
                {**h.scores, "expand": score},
                {**h.ranks, "expand": rank},
                h.cosine,
            )
        )
    return out


# ------------------------------------------------------------------ context budget


@lru_cache(maxsize=4)
def _wordpiece() -> Any:
    from ragkit.index.embeddings import DEFAULT_MODEL, resolve_model_path

    AutoTokenizer = require("transformers", "counting tokens for the context budget").AutoTokenizer

    return AutoTokenizer.from_pretrained(resolve_model_path(DEFAULT_MODEL))


def token_counter(llm: Any) -> tuple[Callable[[str], int], str]:
    """A function counting tokens for the LLM, and the tokenizer's name: the local model's own tokenizer,
    else the packaged MiniLM WordPiece tokenizer (the documented default for remote models)."""
    if hasattr(llm, "tokenizer"):
        tok = llm.tokenizer()
        return (lambda text: len(tok(text, add_special_tokens=False)["input_ids"])), f"{llm.model} tokenizer"
    wp = _wordpiece()
    return (lambda text: len(wp(text, add_special_tokens=False)["input_ids"])), "MiniLM WordPiece (default)"


def fit_budget(
    hits: Sequence[Hit], budget: int, count: Callable[[str], int]
) -> tuple[list[Hit], list[Hit], list[int]]:
    """The hits (most relevant first) that fit ``budget`` tokens together, the ones dropped, and every
    hit's token count. A source that does not fit is dropped whole (never cut mid-passage)."""
    kept, dropped, sizes = [], [], []
    used = 0
    for h in hits:
        n = count(h.chunk.text)
        sizes.append(n)
        if used + n <= budget:
            kept.append(h)
            used += n
        else:
            dropped.append(h)
    return kept, dropped, sizes
