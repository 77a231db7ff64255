"""``PipelineConfig``: one frozen, JSON-serialisable description of a whole RAG pipeline.

The same JSON is what the sidebar exports, what ``--config`` files hold, and what stamps every result:
``cache_key()`` is the sha256 of its canonical JSON (the ``name`` label excluded).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ragkit.errors import ConfigError
from ragkit.hashing import config_key

RETRIEVER_NAMES = ("dense", "bm25", "hybrid")
LLM_NAMES = ("extractive", "groq", "ollama", "local")


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

    def __post_init__(self) -> None:
        if self.retriever not in RETRIEVER_NAMES:
            raise ConfigError(
                f"retriever must be one of {', '.join(RETRIEVER_NAMES)}, got {self.retriever!r}"
            )
        if self.llm not in LLM_NAMES:
            raise ConfigError(f"llm must be one of {', '.join(LLM_NAMES)}, got {self.llm!r}")
        from ragkit.chunkers import CHUNKERS

        if self.chunker not in CHUNKERS:
            raise ConfigError(f"chunker must be one of {', '.join(CHUNKERS.names())}, got {self.chunker!r}")
        checks = [
            (self.top_k >= 1, "top_k must be >= 1"),
            (self.hybrid_depth >= 1, "hybrid_depth must be >= 1"),
            (self.rerank_candidates >= 1, "rerank_candidates must be >= 1"),
            (self.max_tokens >= 1, "max_tokens must be >= 1"),
            (0 <= self.confidence_threshold <= 1, "confidence_threshold must be in [0, 1]"),
            (self.history_turns >= 0, "history_turns must be >= 0"),
            (0 <= self.temperature <= 2, "temperature must be in [0, 2]"),
            (self.rrf_k >= 0, "rrf_k must be >= 0"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(f"config {self.name!r}: {message}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PipelineConfig:
        valid = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - valid)
        if unknown:
            raise ConfigError(f"unknown config keys {unknown}; valid keys: {', '.join(sorted(valid))}")
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> PipelineConfig:
        try:
            data = json.loads(text)
        except ValueError as e:
            raise ConfigError(f"config is not valid JSON: {e}") from None
        if not isinstance(data, dict):
            raise ConfigError("config JSON must be an object")
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> PipelineConfig:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"cannot read config {path}: {e.strerror or e}") from None
        try:
            return cls.from_json(text)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def cache_key(self) -> str:
        """sha256 of the canonical JSON, without the ``name`` label (two names, same pipeline: same key)."""
        d = self.to_dict()
        d.pop("name")
        return config_key(d)

    def chunker_spec(self) -> dict[str, Any]:
        from ragkit.chunkers import make_chunker

        return make_chunker(self.chunker, **self.chunker_params).spec()
