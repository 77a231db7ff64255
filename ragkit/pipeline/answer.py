"""An answer with everything needed to verify it (citations, hits with every stage score, confidence,
timings, trace), as a typed object that round-trips through JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragkit.core.types import Hit
from ragkit.llms.base import GenerationRequest
from ragkit.pipeline.answerability import Answerability
from ragkit.pipeline.confidence import Confidence


@dataclass(frozen=True)
class Citation:
    n: int
    chunk_id: str
    source: str
    page: int

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "chunk_id": self.chunk_id, "source": self.source, "page": self.page}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Citation:
        return cls(int(d["n"]), d["chunk_id"], d["source"], int(d["page"]))


@dataclass
class Answer:
    """An answer with everything needed to verify it."""

    question: str
    query: str  # what retrieval searched for (the standalone rewrite of a follow-up)
    text: str
    abstained: bool
    abstain_reason: str | None
    citations: list[Citation]
    invalid_citations: list[int]
    uncited: bool
    hits: list[Hit]
    confidence: Confidence | None
    llm: str
    model: str
    mode: str  # "rag" or "no_retrieval"
    config_hash: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    #: stages served from a cache (``embed_query``: the query vector was already computed); an answer
    #: with cached stages is not a fair latency sample
    cached_stages: list[str] = field(default_factory=list)
    #: the optional stages' record: grades, rewrite and retry, alternative queries, context budget
    trace: dict[str, Any] = field(default_factory=dict)
    prompt_style: str = "numbered"
    #: does the evidence hold the answer (the reader's measure, or a model's "I don't know"), or None
    answerability: Answerability | None = None
    #: the retrieval stage's whole ranking (to ``RANKING_DEPTH``), which retrieval metrics score; ``hits``
    #: are its head as the reader read them (not saved with a chat: the hits are)
    ranking: list[Hit] = field(default_factory=list)

    @property
    def latency_ms(self) -> float:
        """The time this answer took, model loading excluded (``timings_ms["total"]``)."""
        return self.timings_ms.get("total", 0.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "query": self.query,
            "answer": self.text,
            "abstained": self.abstained,
            "abstain_reason": self.abstain_reason,
            "confidence": self.confidence.to_dict() if self.confidence else None,
            "citations": [c.to_dict() for c in self.citations],
            "invalid_citations": self.invalid_citations,
            "uncited": self.uncited,
            "hits": [h.to_dict() for h in self.hits],
            "llm": self.llm,
            "model": self.model,
            "mode": self.mode,
            "config_hash": self.config_hash,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens},
            "timings_ms": self.timings_ms,
            "cached_stages": list(self.cached_stages),
            "trace": self.trace,
            "prompt_style": self.prompt_style,
            "answerability": self.answerability.to_dict() if self.answerability else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Answer:
        """An answer back from :meth:`to_dict` (a restored chat, a saved comparison)."""
        tokens = d.get("tokens") or {}
        return cls(
            question=d["question"],
            query=d.get("query", d["question"]),
            text=d["answer"],
            abstained=bool(d["abstained"]),
            abstain_reason=d.get("abstain_reason"),
            citations=[Citation.from_dict(c) for c in d.get("citations", [])],
            invalid_citations=list(d.get("invalid_citations", [])),
            uncited=bool(d.get("uncited", False)),
            hits=[Hit.from_dict(h) for h in d.get("hits", [])],
            confidence=Confidence.from_dict(d["confidence"]) if d.get("confidence") else None,
            llm=d.get("llm", ""),
            model=d.get("model", ""),
            mode=d.get("mode", "rag"),
            config_hash=d.get("config_hash", ""),
            prompt_tokens=tokens.get("prompt"),
            completion_tokens=tokens.get("completion"),
            timings_ms=dict(d.get("timings_ms", {})),
            cached_stages=list(d.get("cached_stages", [])),
            trace=dict(d.get("trace") or {}),
            prompt_style=d.get("prompt_style", "numbered"),
            answerability=Answerability.from_dict(d["answerability"]) if d.get("answerability") else None,
        )


@dataclass
class Prepared:
    """Everything up to generation; ``request`` is None when the pipeline abstains before the LLM."""

    question: str
    query: str
    hits: list[Hit]
    confidence: Confidence | None
    request: GenerationRequest | None
    abstain_reason: str | None
    mode: str
    timings_ms: dict[str, float]
    started: float
    cached_stages: list[str] = field(default_factory=list)
    trace: dict[str, Any] = field(default_factory=dict)
    #: the retrieval gauge's reason to abstain, when the reader still runs (its answerability decides)
    gate: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)  # what the backend reported with its text
    #: the retrieval stage's ranking to its full depth; ``hits`` is read from its head
    ranking: list[Hit] = field(default_factory=list)
    #: milliseconds of work in :meth:`~ragkit.pipeline.rag.RagPipeline.prepare` (model loading excluded)
    work_ms: float = 0.0
