"""LLM backends: ``extractive`` (no model), ``groq``, ``ollama``, ``openai`` (any OpenAI-compatible server)
and ``local`` (transformers, causal or seq2seq). Each declares its settings and capabilities (generative or
not, the key it needs, its default model) and builds itself from an :class:`LLMContext`; a new backend is
its module plus one registration line below.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from ragkit.core.options import Component, Option
from ragkit.core.registry import Registry
from ragkit.llms.base import FALLBACK_ANSWER, LLM, Generation, GenerationRequest, LLMContext
from ragkit.llms.extractive import ExtractiveReader
from ragkit.llms.groq import GroqLLM
from ragkit.llms.local import LocalLLM
from ragkit.llms.ollama import OllamaLLM, reachable
from ragkit.llms.openai_compat import OpenAILLM

LLMS: Registry[Any] = Registry("llm", ExtractiveReader, GroqLLM, OllamaLLM, LocalLLM, OpenAILLM)

#: the config fields every generative backend reads (each backend declares its own besides)
OPTIONS = (
    Option("llm", "choice", "extractive", choices=LLMS.names, field="llm", label="LLM backend",
           help="default: groq with GROQ_API_KEY, else ollama if a server answers, else extractive"),
    Option("llm_model", "str?", None, field="llm_model", flag="--model", blank_is_none=True, label="Model",
           needs="generative", placeholder="{model_hint}", help="the LLM's model name (or local path)"),
    Option("temperature", "float", 0.0, 0.0, 2.0, field="temperature", widget="none",
           help="sampling temperature"),
    Option("max_tokens", "int", 512, 1, 1_000_000, field="max_tokens", widget="none",
           help="the longest answer, in tokens"),
)  # fmt: skip


def capabilities(llm: Any) -> Component:
    """What a backend instance can do: its declared component (a test double is looked up by name)."""
    return getattr(llm, "component", None) or LLMS.component(llm.name)


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
    """Build a backend by registry name; it takes from the context what applies to it."""
    ctx = LLMContext(model, api_key, host, base_url, embedder, store, fallback)
    return LLMS.get(name).from_context(ctx)


def llm_from_config(
    config: Any, *, embedder: Any = None, store: Any = None, api_key: str | None = None
) -> LLM:
    """The backend a pipeline config names, with its settings."""
    return build_llm(
        config.llm,
        model=config.llm_model,
        embedder=embedder,
        api_key=api_key,
        host=config.ollama_host,
        store=store,
        base_url=config.openai_base_url,
        fallback=config.fallback_answer,
    )


def key_for(keys: str | Mapping[str, str] | None, backend: str) -> str | None:
    """The API key for ``backend`` from one key or a map backend -> key (a session holding keys for two
    services never sends one service's key to the other)."""
    if keys is None or isinstance(keys, str):
        return keys
    return keys.get(backend) or None


def ollama_reachable(host: str | None = None, timeout: float = 0.5) -> bool:
    """Whether an Ollama server answers at ``host`` (a quick ``/api/tags`` probe)."""
    return reachable(host, timeout)


def default_llm_name(api_key: str | None = None, host: str | None = None) -> str:
    """``groq`` with a key, else ``ollama`` if a server answers, else ``extractive`` (always works)."""
    if api_key or os.environ.get(GroqLLM.component.key_env or ""):
        return GroqLLM.component.name
    if ollama_reachable(host):
        return OllamaLLM.component.name
    return ExtractiveReader.component.name


__all__ = [
    "FALLBACK_ANSWER",
    "LLM",
    "LLMS",
    "OPTIONS",
    "Generation",
    "GenerationRequest",
    "LLMContext",
    "build_llm",
    "capabilities",
    "default_llm_name",
    "key_for",
    "llm_from_config",
    "ollama_reachable",
]
