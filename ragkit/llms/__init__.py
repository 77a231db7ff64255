"""LLM backends: ``extractive`` (no model), ``groq``, ``ollama``, ``openai`` (any OpenAI-compatible server)
and ``local`` (transformers, causal or seq2seq)."""

from __future__ import annotations

import os
from typing import Any

from ragkit.core.registry import Registry
from ragkit.llms.base import LLM, Generation, GenerationRequest

LLMS: Registry[Any] = Registry("LLM backend")
LLMS.register("extractive", "ragkit.llms.extractive:ExtractiveLLM")
LLMS.register("groq", "ragkit.llms.groq:GroqLLM")
LLMS.register("ollama", "ragkit.llms.ollama:OllamaLLM")
LLMS.register("local", "ragkit.llms.local:LocalLLM")
LLMS.register("openai", "ragkit.llms.openai_compat:OpenAILLM")


def build_llm(
    name: str,
    *,
    model: str | None = None,
    embedder: Any | None = None,
    api_key: str | None = None,
    host: str | None = None,
    store: Any | None = None,
    base_url: str | None = None,
    fallback: str | None = None,
) -> LLM:
    """Build a backend by registry name with the settings that apply to it."""
    cls = LLMS.get(name)
    if name == "extractive":
        if embedder is None:
            from ragkit.core.errors import ConfigError

            raise ConfigError("the extractive backend needs the index's embedder")
        return cls(embedder, store=store, **({"fallback": fallback} if fallback else {}))
    if name == "groq":
        return cls(model=model, api_key=api_key)
    if name == "openai":
        return cls(model=model, api_key=api_key, base_url=base_url)
    if name == "ollama":
        return cls(model=model, host=host)
    return cls(model=model)


def ollama_reachable(host: str | None = None, timeout: float = 0.5) -> bool:
    """Whether an Ollama server answers at ``host`` (a quick ``/api/tags`` probe)."""
    import httpx

    from ragkit.llms.ollama import DEFAULT_OLLAMA_HOST

    url = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
    if "://" not in url:
        url = f"http://{url}"
    try:
        return httpx.get(f"{url.rstrip('/')}/api/tags", timeout=timeout).status_code == 200
    except httpx.HTTPError:
        return False


def default_llm_name(api_key: str | None = None, host: str | None = None) -> str:
    """``groq`` with a key, else ``ollama`` if a server answers, else ``extractive`` (always works)."""
    if api_key or os.environ.get("GROQ_API_KEY"):
        return "groq"
    if ollama_reachable(host):
        return "ollama"
    return "extractive"


__all__ = [
    "LLM",
    "LLMS",
    "Generation",
    "GenerationRequest",
    "build_llm",
    "default_llm_name",
    "ollama_reachable",
]
