"""The result of an evaluation run as typed objects that round-trip through JSON, like an ``Answer``:
``EvalRun`` (what was run on what, with which code) holding one ``ConfigResult`` per config and the
paired comparisons. Saved runs, exports and the pages read and write their ``to_dict`` form."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ragkit.pipeline.config import PipelineConfig


@dataclass
class ConfigResult:
    """One config's scores: metrics (means over the questions each is defined on) and their counts,
    latency, tokens, calibration, judge agreement, and every question's row."""

    name: str
    hash: str
    config: PipelineConfig
    models: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    latency_ms: dict[str, float] = field(default_factory=dict)
    stage_latency_ms: dict[str, dict[str, float]] = field(default_factory=dict)
    tokens: dict[str, Any] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    judge_agreement: dict[str, Any] = field(default_factory=dict)
    per_question: dict[str, dict[str, Any]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "hash": self.hash,
            "config": self.config.to_dict(),
            "models": self.models,
            "metrics": self.metrics,
            "counts": self.counts,
            "latency_ms": self.latency_ms,
            "stage_latency_ms": self.stage_latency_ms,
            "tokens": self.tokens,
            "calibration": self.calibration,
            "judge_agreement": self.judge_agreement,
            "per_question": self.per_question,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConfigResult:
        return cls(
            d["name"],
            d["hash"],
            PipelineConfig.from_dict(d["config"]),
            dict(d.get("models") or {}),
            dict(d.get("metrics") or {}),
            dict(d.get("counts") or {}),
            dict(d.get("latency_ms") or {}),
            dict(d.get("stage_latency_ms") or {}),
            dict(d.get("tokens") or {}),
            d.get("calibration"),
            dict(d.get("judge_agreement") or {}),
            dict(d.get("per_question") or {}),
        )


@dataclass
class EvalRun:
    """One evaluation run: the question set (its source, hash, level and parameters), the code that ran
    it, the per-question metric names in table order, every config's result and every comparison."""

    run_id: str
    created_at: str
    dataset: str
    dataset_name: str
    dataset_kind: str
    dataset_hash: str
    level: str
    params: dict[str, Any]
    ragkit_version: str
    questions: int
    question_set: list[Any] | None
    metric_names: list[str]
    lower_is_better: list[str]
    configs: list[ConfigResult]
    comparisons: list[dict[str, Any]]
    #: the metric declared before the run to decide it (its pairs are the confirmatory family)
    primary_metric: str = ""
    #: configs that failed (``config``, ``when``, ``error``): the others finished and are reported
    failures: list[dict[str, str]] = field(default_factory=list)

    def config(self, name: str) -> ConfigResult:
        """The result of the config named ``name``."""
        for c in self.configs:
            if c.name == name:
                return c
        raise KeyError(f"the run has no config {name!r} (it has: {', '.join(c.name for c in self.configs)})")

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "created_at": self.created_at,
            "dataset": self.dataset,
            "dataset_name": self.dataset_name,
            "dataset_kind": self.dataset_kind,
            "dataset_hash": self.dataset_hash,
            "level": self.level,
            "params": self.params,
            "ragkit_version": self.ragkit_version,
            "questions": self.questions,
            "question_set": self.question_set,
            "metric_names": self.metric_names,
            "lower_is_better": self.lower_is_better,
            "configs": [c.to_dict() for c in self.configs],
            "comparisons": self.comparisons,
            "primary_metric": self.primary_metric,
            "failures": self.failures,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EvalRun:
        return cls(
            d["run_id"],
            d["created_at"],
            d["dataset"],
            d.get("dataset_name", ""),
            d.get("dataset_kind", ""),
            d.get("dataset_hash", ""),
            d.get("level", "document"),
            dict(d.get("params") or {}),
            d.get("ragkit_version", ""),
            int(d.get("questions", 0)),
            d.get("question_set"),
            list(d.get("metric_names") or []),
            list(d.get("lower_is_better") or []),
            [ConfigResult.from_dict(c) for c in d.get("configs") or []],
            list(d.get("comparisons") or []),
            d.get("primary_metric", ""),
            list(d.get("failures") or []),
        )
