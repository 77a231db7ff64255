"""Presets: the published pipelines ragkit was built from, as configs a user picks in the sidebar or passes
to the CLI (``configs/presets/*.json``; each has a ``description`` and the ``reference`` it follows).

Some need a service or weights this machine may not have (a Groq key, an Ollama server, a FLAN-T5 or
cross-encoder checkpoint). :func:`runnable_here` returns the preset with those parts swapped for offline
ones — the ``extractive`` backend, no rerank — and a note for each swap, so the UI and the CLI can say
exactly what ran instead of failing or silently changing the pipeline.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ragkit.core.errors import RagkitError
from ragkit.llms import LLMS
from ragkit.llms.extractive import ExtractiveReader
from ragkit.llms.local import model_available
from ragkit.pipeline.config import PipelineConfig

#: what answers when the configured backend cannot run here (it needs nothing)
OFFLINE_LLM = ExtractiveReader.component.name
PRESETS_DIR = Path(__file__).resolve().parents[2] / "configs" / "presets"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def load_preset(name: str) -> PipelineConfig:
    """The preset config ``name`` (one of :func:`preset_names`)."""
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        raise RagkitError(f"no preset {name!r}; choose one of: {', '.join(preset_names())}")
    return PipelineConfig.load(path)


def llm_unavailable(cfg: PipelineConfig, api_key: str | None = None) -> str | None:
    """Why the config's LLM cannot run here (a missing key, no server, no weights), or None: each
    backend says so itself."""
    return LLMS.get(cfg.llm).unavailable(cfg, api_key)


def runnable_here(cfg: PipelineConfig, api_key: str | None = None) -> tuple[PipelineConfig, list[str]]:
    """``cfg`` with what cannot run on this machine swapped for offline parts, and a note per swap."""
    notes: list[str] = []
    why = llm_unavailable(cfg, api_key)
    if why:
        notes.append(f"{cfg.name}: the {cfg.llm} backend {why}: answers come from the extractive backend")
        cfg = replace(cfg, llm=OFFLINE_LLM, llm_model=None, no_retrieval=False)
    if cfg.rerank and not model_available(cfg.rerank_model):
        notes.append(
            f"{cfg.name}: no weights for the cross-encoder {cfg.rerank_model} here: reranking is off "
            "(point the reranker at a local copy to run it)"
        )
        cfg = replace(cfg, rerank=False)
    return cfg, notes
