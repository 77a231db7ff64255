"""A sweep's grid: a base config and, per config field, the values to try; expanded into candidate
configs, each checked by :class:`PipelineConfig` like any other config.

Saved and loaded as JSON ``{"base": {…config…}, "vary": {"field": [values…]}}``. Set-ups that differ only
in options no part of them reads are one candidate: the components' declarations say which retriever,
reranker or LLM owns a field (:data:`ragkit.pipeline.fields.OWNERS`), so BM25's ``bm25_k1`` does not
multiply the dense retriever's candidates, and a reranker's model does not matter with rerank off.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.hashing import config_key
from ragkit.evaluation.metrics.judge import JUDGE_CALLS
from ragkit.llms import LLMS
from ragkit.pipeline.config import PipelineConfig
from ragkit.pipeline.fields import FIELDS, LABELS, OWNERS
from ragkit.retrievers import RETRIEVERS

#: more candidates than this is a grid to narrow first (each one is an index search per question)
MAX_CANDIDATES = 200
#: an answer's prompt, without the chunks (instructions and question), in tokens: for the estimate
PROMPT_OVERHEAD_TOKENS = 200
#: characters per token of English text, roughly (chunk sizes are in characters)
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Candidate:
    """One set-up of the grid: its config, what the grid set in it, and its key."""

    config: PipelineConfig
    varied: dict[str, Any]
    key: str  # the config's cache key: what results, resumes and "load into A" refer to

    @property
    def name(self) -> str:
        return self.config.name


@dataclass
class Grid:
    base: dict[str, Any] = field(default_factory=dict)
    vary: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> Grid:
        """A grid from its JSON form; a wrong shape or an unknown field is an error naming it."""
        if not isinstance(data, dict) or set(data) - {"base", "vary"}:
            raise ConfigError('a grid is a JSON object {"base": {…config…}, "vary": {"field": [values…]}}')
        base, vary = data.get("base") or {}, data.get("vary") or {}
        if not isinstance(base, dict) or not isinstance(vary, dict):
            raise ConfigError('a grid\'s "base" and "vary" must be JSON objects')
        PipelineConfig.from_dict(base)  # the base alone must be a valid config
        labels = {o.field for o in LABELS}
        for name, values in vary.items():
            if name not in FIELDS or name in labels:
                valid = ", ".join(f for f in FIELDS if f not in labels)
                raise ConfigError(f"grid: cannot vary {name!r}; config fields: {valid}")
            if not isinstance(values, list) or not values:
                raise ConfigError(f"grid: vary.{name} must be a non-empty list of values")
        return cls(dict(base), {k: list(v) for k, v in vary.items()})

    @classmethod
    def load(cls, path: str | Path) -> Grid:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read grid {path}: {getattr(e, 'strerror', None) or e}") from None
        try:
            return cls.from_dict(json.loads(text))
        except ValueError as e:
            raise ConfigError(f"{path}: grid is not valid JSON: {e}") from None
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        return {"base": self.base, "vary": self.vary}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    def key(self) -> str:
        return config_key(self.to_dict())

    def size(self) -> int:
        """The number of combinations before duplicates are merged."""
        n = 1
        for values in self.vary.values():
            n *= len(values)
        return n

    def candidates(self) -> tuple[list[Candidate], list[dict[str, str]]]:
        """The distinct candidates, in grid order, and the merged duplicates (``name``, ``same_as``, why).
        A combination that is not a valid config is an error naming its values."""
        if self.size() > MAX_CANDIDATES * 4:
            raise ConfigError(f"grid has {self.size()} combinations; narrow it (at most {MAX_CANDIDATES})")
        out: list[Candidate] = []
        merged: list[dict[str, str]] = []
        seen: dict[str, Candidate] = {}
        names = list(self.vary)
        for values in itertools.product(*self.vary.values()):
            varied = dict(zip(names, values, strict=True))
            try:
                config = PipelineConfig.from_dict({**self.base, **varied, "name": "candidate"})
            except ConfigError as e:
                raise ConfigError(f"grid combination {describe(varied)}: {e}") from None
            label = describe({k: v for k, v in varied.items() if _reads(config, k)}) or "base"
            config = PipelineConfig.from_dict({**config.to_dict(), "name": label})
            effective = effective_config(config)
            key = effective.cache_key()
            if key in seen:
                merged.append(
                    {"name": describe(varied), "same_as": seen[key].name, "why": unread(config, varied)}
                )
                continue
            cand = Candidate(effective, varied, key)
            seen[key] = cand
            out.append(cand)
        if len(out) > MAX_CANDIDATES:
            raise ConfigError(f"grid has {len(out)} distinct set-ups; narrow it (at most {MAX_CANDIDATES})")
        return _unique_names(out), merged

    def estimate(
        self, questions: int, retrieval_only: bool, judge_metric: str | None = None
    ) -> dict[str, Any]:
        """What the full grid costs before racing saves any of it: question evaluations, for sets
        answered by an LLM the calls and a rough token count (prompt: top-k chunks plus instructions),
        and with ``judge_metric`` (the judge's name for it) the judge's calls."""
        cands, merged = self.candidates()
        out: dict[str, Any] = {
            "candidates": len(cands),
            "merged_duplicates": len(merged),
            "questions": questions,
            "evaluations_full": len(cands) * questions,
            "llm_calls_max": 0,
            "tokens_max_estimate": 0,
            "judge_calls_max": 0,
        }
        if retrieval_only:
            return out
        for c in cands:
            cfg = c.config
            if judge_metric is not None:
                per_answer = JUDGE_CALLS.get(judge_metric, 1)
                out["judge_calls_max"] += questions * (cfg.top_k if per_answer is None else per_answer)
            if not LLMS.component(cfg.llm).generative:
                continue
            chars = cfg.chunker_params.get("size") or cfg.chunker_params.get("max_chars") or 500
            chunk_tokens = int(chars) // CHARS_PER_TOKEN
            per_call = PROMPT_OVERHEAD_TOKENS + cfg.top_k * chunk_tokens + cfg.max_tokens
            out["llm_calls_max"] += questions
            out["tokens_max_estimate"] += questions * per_call
        return out


def _used_retrievers(name: str) -> set[str]:
    comp = RETRIEVERS.component(name)
    out = {name}
    for part in comp.parts:
        out |= _used_retrievers(part)
    return out


def _reads(config: PipelineConfig, name: str) -> bool:
    """Whether some part of ``config`` reads field ``name`` (fields no component owns: always)."""
    owner = OWNERS.get(name)
    if owner is None:
        return True
    if owner.kind == "retriever":
        return owner.name in _used_retrievers(config.retriever)
    if owner.kind == "reranker":
        return name == "rerank" or bool(config.rerank)
    if owner.kind == "llm":
        return owner.name == config.llm
    return True


def effective_config(config: PipelineConfig) -> PipelineConfig:
    """``config`` with every field no part of it reads set to its default: equal for set-ups that run
    the same way."""
    data = config.to_dict()
    for name in data:
        if not _reads(config, name):
            data[name] = FIELDS[name].default_value()
    return PipelineConfig.from_dict(data)


def unread(config: PipelineConfig, varied: dict[str, Any]) -> str:
    """Why a merged combination is a duplicate: the varied fields its parts do not read."""
    fields_ = [n for n in varied if not _reads(config, n)]
    return f"{config.retriever} does not read {', '.join(fields_)}" if fields_ else "same set-up"


def describe(varied: dict[str, Any]) -> str:
    """A short name from the varied values: ``bm25 · size=300 · overlap=50 · rerank``."""
    parts = []
    for name, value in varied.items():
        if isinstance(value, bool):
            parts.append(name if value else f"no {name}")
        elif isinstance(value, dict):
            what = "chunks" if name == "chunker_params" else name
            parts.append(
                f"{what} " + " ".join(f"{k}={v}" for k, v in value.items()) if value else f"{what}: defaults"
            )
        elif name in ("retriever", "chunker", "llm", "pdf_parser"):
            parts.append(str(value))
        else:
            parts.append(f"{name}={value}")
    return " · ".join(parts)


def _unique_names(cands: list[Candidate]) -> list[Candidate]:
    seen: dict[str, int] = {}
    out = []
    for c in cands:
        n = seen.get(c.name, 0)
        seen[c.name] = n + 1
        if n:
            config = PipelineConfig.from_dict({**c.config.to_dict(), "name": f"{c.name} ({n + 1})"})
            c = Candidate(config, c.varied, c.key)
        out.append(c)
    return out
