"""Presets: the published pipelines ragkit was built from, as configs a user picks in the sidebar or passes
to the CLI (``configs/presets/*.json``; each has a ``description`` and the ``reference`` it follows).

Some need a service or weights this machine may not have (a Groq key, an Ollama server, a FLAN-T5 or
cross-encoder checkpoint). :func:`runnable_here` returns the preset with those parts swapped for offline
ones — the ``extractive`` backend, no rerank — and a note for each swap, so the UI and the CLI can say
exactly what ran instead of failing or silently changing the pipeline.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from ragkit.core.errors import RagkitError
from ragkit.pipeline.config import PipelineConfig

PRESETS_DIR = Path(__file__).resolve().parents[2] / "configs" / "presets"


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESETS_DIR.glob("*.json"))


def load_preset(name: str) -> PipelineConfig:
    """The preset config ``name`` (one of :func:`preset_names`)."""
    path = PRESETS_DIR / f"{name}.json"
    if not path.is_file():
        raise RagkitError(f"no preset {name!r}; choose one of: {', '.join(preset_names())}")
    return PipelineConfig.load(path)


def _in_hf_cache(repo: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        return isinstance(try_to_load_from_cache(repo, "config.json"), str)
    except Exception:
        return False


def _model_available(name: str) -> bool:
    path = os.path.expanduser(name)
    return os.path.isdir(path) or _in_hf_cache(name)


def llm_unavailable(cfg: PipelineConfig, api_key: str | None = None) -> str | None:
    """Why the config's LLM cannot run here (a missing key, no server, no weights), or None."""
    if cfg.llm == "groq" and not (api_key or os.environ.get("GROQ_API_KEY")):
        return "needs a Groq API key"
    if cfg.llm == "openai" and not (
        api_key
        or os.environ.get("OPENAI_API_KEY")
        or cfg.openai_base_url
        or os.environ.get("OPENAI_BASE_URL")
    ):
        return "needs an OpenAI-compatible server (a base URL) or an OpenAI key"
    if cfg.llm == "ollama":
        from ragkit.llms import ollama_reachable

        if not ollama_reachable(cfg.ollama_host):
            return "needs an Ollama server, and none answers"
    if cfg.llm == "local" and cfg.llm_model and not _model_available(cfg.llm_model):
        return f"needs the model {cfg.llm_model}, whose weights are not on this machine"
    return None


def runnable_here(cfg: PipelineConfig, api_key: str | None = None) -> tuple[PipelineConfig, list[str]]:
    """``cfg`` with what cannot run on this machine swapped for offline parts, and a note per swap."""
    notes: list[str] = []
    why = llm_unavailable(cfg, api_key)
    if why:
        notes.append(f"{cfg.name}: the {cfg.llm} backend {why}: answers come from the extractive backend")
        cfg = replace(cfg, llm="extractive", llm_model=None, no_retrieval=False)
    if cfg.rerank and not _model_available(cfg.rerank_model):
        notes.append(
            f"{cfg.name}: no weights for the cross-encoder {cfg.rerank_model} here: reranking is off "
            "(point the reranker at a local copy to run it)"
        )
        cfg = replace(cfg, rerank=False)
    return cfg, notes
