"""Groq backend over the official ``groq`` SDK (OpenAI-compatible chat completions, SSE streaming).

The key comes from the sidebar or ``GROQ_API_KEY`` and is held in memory only (see
:mod:`ragkit.llms.openai_compat`, which holds the shared adapter).
"""

from __future__ import annotations

from ragkit.core.options import Component
from ragkit.llms.openai_compat import ChatCompletionsLLM

DEFAULT_GROQ_MODEL = "llama-3.3-70b-versatile"


class GroqLLM(ChatCompletionsLLM):
    """Chat completions on Groq; 429s are retried with exponential backoff (honouring Retry-After)."""

    component = Component(
        "llm",
        "groq",
        "Groq's API through the official SDK",
        generative=True,
        key_env="GROQ_API_KEY",
        default_model=DEFAULT_GROQ_MODEL,
        model_hint=DEFAULT_GROQ_MODEL,
        extras={"key_label": "Groq API key"},
    )
    name = "groq"
    service = "Groq"
    sdk = "groq"
    key_env = "GROQ_API_KEY"
    base_url_env = "GROQ_BASE_URL"
    default_model = DEFAULT_GROQ_MODEL
    default_where = "api.groq.com"
