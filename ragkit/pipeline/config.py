"""``PipelineConfig``: one frozen, JSON-serialisable description of a whole RAG pipeline.

The same JSON is what the sidebar exports, what ``--config`` files hold, and what stamps every result:
``cache_key()`` is the sha256 of its canonical JSON (the ``name`` label excluded).

Every field is checked for its type and a finite range when a config is built, whether from Python, a
JSON import, a CLI ``--config`` file or a saved run: a wrong value raises one :class:`ConfigError` that
names the field. Booleans must be JSON booleans (``"false"`` is not false), integers must be integers
(``5.5`` and ``"5"`` are refused), numbers must be finite.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ragkit.core.errors import ConfigError
from ragkit.core.hashing import config_key

RETRIEVER_NAMES = ("dense", "bm25", "hybrid")
LLM_NAMES = ("extractive", "groq", "ollama", "local", "openai")
HYBRID_PARTS = ("bm25", "dense")
PROMPT_STYLES = ("numbered", "plain", "context-i", "xml")
#: placeholders a prompt template may use
TEMPLATE_FIELDS = ("sources", "question", "history")
#: labels, not settings: two configs that differ only in these are the same pipeline (same hash)
LABEL_FIELDS = ("name", "description", "reference")
#: fields added after the first release: left out of the hash at their default value, so a config
#: written before they existed keeps its hash (saved runs stay comparable)
LATER_FIELDS = (
    "prompt_style",
    "prompt_template",
    "fallback_answer",
    "relevance_grader",
    "grader_threshold",
    "query_expansion",
    "context_tokens",
    "bm25_language",
    "openai_base_url",
    "web_search",
    "searxng_url",
    "web_results",
    "web_budget_s",
    "web_query_enhancement",
    "confidence_calibration",
    "bm25_engine",
    "dense_index",
    "hnsw_m",
    "hnsw_ef_search",
)

#: field -> (kind, low, high); kind is int | float | bool | str | str? (str or None)
_FIELDS: dict[str, tuple[str, float | None, float | None]] = {
    "name": ("str", None, None),
    "chunker": ("str", None, None),
    "embedding_model": ("str", None, None),
    "retriever": ("str", None, None),
    "top_k": ("int", 1, 1000),
    "bm25_k1": ("float", 0.0, 100.0),
    "bm25_b": ("float", 0.0, 1.0),
    "rrf_k": ("float", 0.0, 1e6),
    "hybrid_depth": ("int", 1, 100_000),
    "intent_routing": ("bool", None, None),
    "rerank": ("bool", None, None),
    "rerank_model": ("str", None, None),
    "rerank_candidates": ("int", 1, 100_000),
    "llm": ("str", None, None),
    "llm_model": ("str?", None, None),
    "ollama_host": ("str?", None, None),
    "temperature": ("float", 0.0, 2.0),
    "max_tokens": ("int", 1, 1_000_000),
    "confidence_threshold": ("float", 0.0, 1.0),
    "history_turns": ("int", 0, 1000),
    "no_retrieval": ("bool", None, None),
    "description": ("str", None, None),
    "reference": ("str", None, None),
    "prompt_style": ("str", None, None),
    "fallback_answer": ("str", None, None),
    "relevance_grader": ("bool", None, None),
    "grader_threshold": ("float", -1.0, 1.0),
    "query_expansion": ("int", 0, 5),
    "bm25_language": ("str", None, None),
    "openai_base_url": ("str?", None, None),
    "web_search": ("bool", None, None),
    "searxng_url": ("str?", None, None),
    "web_results": ("int", 1, 20),
    "web_budget_s": ("float", 1.0, 300.0),
    "web_query_enhancement": ("bool", None, None),
    "hnsw_m": ("int", 4, 256),
    "hnsw_ef_search": ("int", 1, 10_000),
}
_MAX_STR = 2000


def check_value(owner: str, name: str, value: Any, kind: str, low: float | None, high: float | None) -> Any:
    """``value`` if it is a valid ``kind`` within [low, high]; else a ``ConfigError`` naming ``owner.name``.

    Integers given as floats (``5.0``) are refused like ``5.5``: a config file is data, not arithmetic.
    An int for a float field is accepted and returned as a float.
    """
    where = f"{owner}: {name}"
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false (a JSON boolean), got {_short(value)}")
        return value
    if kind in ("str", "str?"):
        if value is None and kind == "str?":
            return None
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {type(value).__name__} {_short(value)}")
        if len(value) > _MAX_STR:
            raise ConfigError(f"{where} is {len(value)} characters long (at most {_MAX_STR})")
        return value
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be a whole number, got {type(value).__name__} {_short(value)}")
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where} must be a number, got {type(value).__name__} {_short(value)}")
        if not math.isfinite(value):
            raise ConfigError(f"{where} must be a finite number, got {value!r}")
        value = float(value)
    else:  # pragma: no cover - the tables are written by hand
        raise ConfigError(f"{where}: unknown kind {kind}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ConfigError(f"{where} must be between {_num(low)} and {_num(high)}, got {value!r}")
    return value


def _short(value: Any) -> str:
    """A bounded repr (a 100k-deep structure must not cost a 100k-deep repr in an error message)."""
    import reprlib

    r = reprlib.Repr()
    r.maxlevel, r.maxstring, r.maxother = 2, 40, 40
    return r.repr(value)


def _num(x: float | None) -> str:
    """``1000000`` rather than ``1e+06``: bounds read as the user would type them."""
    if x is None:
        return "?"
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class PipelineConfig:
    name: str = "default"
    # indexing
    chunker: str = "sliding"
    chunker_params: dict[str, Any] = field(default_factory=dict)
    embedding_model: str = "sentence-transformers/all-MiniLM-L6-v2"
    # retrieval
    retriever: str = "hybrid"
    top_k: int = 5
    bm25_k1: float = 0.9
    bm25_b: float = 0.4
    rrf_k: float = 60.0
    hybrid_depth: int = 50
    hybrid_weights: dict[str, float] = field(default_factory=lambda: {"bm25": 1.0, "dense": 1.0})
    intent_routing: bool = False
    rerank: bool = False
    rerank_model: str = "cross-encoder/ms-marco-MiniLM-L-6-v2"
    rerank_candidates: int = 50
    # generation
    llm: str = "extractive"
    llm_model: str | None = None
    ollama_host: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    confidence_threshold: float = 0.25
    history_turns: int = 5
    no_retrieval: bool = False
    # what the config is (labels: not part of the hash)
    description: str = ""
    reference: str = ""  # the work whose pipeline it reproduces (a title, not a person)
    # prompt and grounding
    prompt_style: str = "numbered"  # numbered | plain | context-i | xml
    prompt_template: dict[str, str] | None = None  # {"system": ..., "user": ...} with {sources} etc.
    fallback_answer: str = "I don't know based on the provided context."
    # extra retrieval stages
    relevance_grader: bool = False  # grade each retrieved chunk; if none passes, rewrite once and retry
    grader_threshold: float = 0.35  # offline grader: cosine (or cross-encoder probability) to pass
    query_expansion: int = 0  # alternative queries (LLM-written), each retrieved and fused by RRF
    context_tokens: int | None = None  # token budget for the sources given to the LLM
    bm25_language: str = "english"  # stemmer and stop words of the BM25 analyzer
    bm25_engine: str = "bm25s"  # bm25s (fast, state saved with the index) | rank_bm25 (the reference)
    dense_index: str = "flat"  # flat (exact) | hnsw (approximate) | auto (HNSW from 200k chunks)
    hnsw_m: int = 32
    hnsw_ef_search: int = 64
    openai_base_url: str | None = None  # OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenAI)
    # the web as the source: SearXNG -> fetch -> chunk -> a per-question index (ragkit.websearch)
    web_search: bool = False
    searxng_url: str | None = None  # the instance (else SEARXNG_URL); none by default
    web_results: int = 5
    web_budget_s: float = 10.0  # total time for fetching the result pages
    web_query_enhancement: bool = False  # the LLM writes 3 search queries first
    #: a fitted map raw gauge -> probability (``ragkit calibrate``; see evaluation.calibration), or None
    confidence_calibration: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        owner = f"config {self.name!r:.60}" if isinstance(self.name, str) else "config"
        for f in fields(self):
            if f.name in _FIELDS:
                kind, low, high = _FIELDS[f.name]
                value = check_value(owner, f.name, getattr(self, f.name), kind, low, high)
                object.__setattr__(self, f.name, value)  # ints in float fields become floats
        if not self.embedding_model.strip():
            raise ConfigError(f"{owner}: embedding_model must not be empty")
        if self.retriever not in RETRIEVER_NAMES:
            raise ConfigError(
                f"{owner}: retriever must be one of {', '.join(RETRIEVER_NAMES)}, got {self.retriever!r}"
            )
        if self.llm not in LLM_NAMES:
            raise ConfigError(f"{owner}: llm must be one of {', '.join(LLM_NAMES)}, got {self.llm!r}")
        if self.no_retrieval and self.llm == "extractive":
            raise ConfigError(
                f"{owner}: the no-retrieval baseline needs a language model; the extractive backend only "
                "quotes retrieved sentences (choose groq, ollama or local)"
            )
        object.__setattr__(self, "hybrid_weights", _check_weights(owner, self.hybrid_weights))
        object.__setattr__(self, "chunker_params", _check_chunker(owner, self.chunker, self.chunker_params))
        if self.prompt_style not in PROMPT_STYLES:
            raise ConfigError(
                f"{owner}: prompt_style must be one of {', '.join(PROMPT_STYLES)}, got {self.prompt_style!r}"
            )
        object.__setattr__(self, "prompt_template", check_template(owner, self.prompt_template))
        if not self.fallback_answer.strip():
            raise ConfigError(f"{owner}: fallback_answer must not be empty")
        if self.context_tokens is not None:
            check_value(owner, "context_tokens", self.context_tokens, "int", 64, 1_000_000)
        from ragkit.retrievers.bm25 import BM25_ENGINES

        if self.bm25_engine not in BM25_ENGINES:
            raise ConfigError(
                f"{owner}: bm25_engine must be one of {', '.join(BM25_ENGINES)}, got {self.bm25_engine!r}"
            )
        from ragkit.retrievers.dense import DENSE_INDEXES

        if self.dense_index not in DENSE_INDEXES:
            raise ConfigError(
                f"{owner}: dense_index must be one of {', '.join(DENSE_INDEXES)}, got {self.dense_index!r}"
            )
        if self.confidence_calibration is not None:
            from ragkit.pipeline.calibration import CalibrationMap

            try:
                cal = CalibrationMap.from_dict(self.confidence_calibration)
            except ValueError as e:
                raise ConfigError(f"{owner}: confidence_calibration: {e}") from None
            object.__setattr__(self, "confidence_calibration", cal.to_dict())
        from ragkit.retrievers.analyzer import LANGUAGES

        if self.bm25_language not in LANGUAGES:
            raise ConfigError(
                f"{owner}: bm25_language must be one of {', '.join(LANGUAGES)}, got {self.bm25_language!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        if not isinstance(data, dict):
            raise ConfigError(f"a config must be a JSON object, got {type(data).__name__}")
        valid = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in set(data) - valid)
        if unknown:
            raise ConfigError(f"unknown config keys {unknown[:10]}; valid keys: {', '.join(sorted(valid))}")
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PipelineConfig:
        try:
            data = json.loads(text)
        except RecursionError:
            raise ConfigError("config JSON is nested too deeply to be a config") from None
        except ValueError as e:
            raise ConfigError(f"config is not valid JSON: {e}") from None
        if not isinstance(data, dict):
            raise ConfigError("config JSON must be an object")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"cannot read config {path}: {getattr(e, 'strerror', None) or e}") from None
        try:
            return cls.from_json(text)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def cache_key(self) -> str:
        """sha256 of the canonical JSON, without the labels (two names, same pipeline: same key) and
        without later fields left at their default (a config from before them keeps its hash)."""
        d = self.to_dict()
        defaults = PipelineConfig.__dataclass_fields__
        for k in LABEL_FIELDS:
            d.pop(k)
        for k in LATER_FIELDS:
            f = defaults[k]
            default = f.default_factory() if callable(f.default_factory) else f.default  # type: ignore[misc]
            if d[k] == default:
                d.pop(k)
        return config_key(d)

    def chunker_spec(self) -> dict[str, Any]:
        from ragkit.ingestion.chunkers import make_chunker

        return make_chunker(self.chunker, **self.chunker_params).spec()


def check_template(owner: str, template: Any) -> dict[str, str] | None:
    """A prompt template override: ``{"system": str, "user": str}`` (either may be omitted) whose
    placeholders are among ``{sources}``, ``{question}``, ``{history}``; the user part needs
    ``{sources}`` and ``{question}``."""
    import string

    if template is None:
        return None
    if not isinstance(template, dict) or not template:
        raise ConfigError(f"{owner}: prompt_template must be an object with 'system' and/or 'user' text")
    unknown = sorted(str(k) for k in template if k not in ("system", "user"))
    if unknown:
        raise ConfigError(f"{owner}: prompt_template has unknown parts {unknown}; use 'system' and 'user'")
    for part, text in template.items():
        check_value(owner, f"prompt_template.{part}", text, "str", None, None)
        try:
            names = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        except ValueError as e:
            raise ConfigError(
                f"{owner}: prompt_template.{part}: {e} (write a literal brace as {{{{ or }}}})"
            ) from None
        bad = sorted(n for n in names if n not in TEMPLATE_FIELDS)
        if bad:
            shown = ", ".join("{" + b + "}" for b in bad)
            allowed = ", ".join("{" + f + "}" for f in TEMPLATE_FIELDS)
            raise ConfigError(
                f"{owner}: prompt_template.{part} has unknown placeholder(s) {shown}; use {allowed}"
            )
    user = template.get("user")
    if user is not None and not {"sources", "question"} <= {
        f for _, f, _, _ in string.Formatter().parse(user) if f
    }:
        raise ConfigError(f"{owner}: prompt_template.user must contain {{sources}} and {{question}}")
    return dict(template)


def _check_weights(owner: str, weights: Any) -> dict[str, float]:
    if not isinstance(weights, dict):
        raise ConfigError(
            f'{owner}: hybrid_weights must be an object like {{"bm25": 1, "dense": 1}}, got {_short(weights)}'
        )
    unknown = sorted(str(k) for k in weights if k not in HYBRID_PARTS)
    if unknown:
        raise ConfigError(f"{owner}: hybrid_weights names unknown retrievers {unknown[:5]}; use bm25, dense")
    out = {k: check_value(owner, f"hybrid_weights.{k}", v, "float", 0.0, 1e6) for k, v in weights.items()}
    if out and not any(out.values()):
        raise ConfigError(f"{owner}: hybrid_weights are all zero: nothing would be retrieved")
    return out


def _check_chunker(owner: str, chunker: str, params: Any) -> dict[str, Any]:
    from ragkit.ingestion.chunkers import CHUNKERS, make_chunker

    if chunker not in CHUNKERS:
        raise ConfigError(f"{owner}: chunker must be one of {', '.join(CHUNKERS.names())}, got {chunker!r}")
    if not isinstance(params, dict):
        raise ConfigError(f"{owner}: chunker_params must be an object, got {_short(params)}")
    try:
        make_chunker(chunker, **params)  # each chunker config checks its own fields' types and ranges
    except ConfigError as e:
        raise ConfigError(f"{owner}: chunker_params: {e}") from None
    return dict(params)
