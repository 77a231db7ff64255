"""Ollama backend over the official ``ollama`` SDK (``/api/chat`` NDJSON streaming, ``/api/tags``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from ragkit.core.errors import LLMConnectionError, LLMError, ModelNotAvailableError
from ragkit.core.optional import require
from ragkit.core.options import Component, Option
from ragkit.ingestion.netpolicy import (
    FetchRefused,
    policy_client,
    policy_client_kwargs,
    refusal,
    service_policy,
)
from ragkit.llms.base import Generation, GenerationRequest, LLMContext

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "llama3.2"


class OllamaLLM:
    """Chat with a model served by Ollama at ``host`` (default ``$OLLAMA_HOST`` or localhost:11434)."""

    component = Component(
        "llm",
        "ollama",
        "a local Ollama server through the official SDK",
        options=(
            Option("host", "str?", None, field="ollama_host", flag="--ollama-host", blank_is_none=True,
                   service_env="OLLAMA_HOST", label="Ollama host", placeholder=DEFAULT_OLLAMA_HOST,
                   help="the Ollama server (default $OLLAMA_HOST or localhost:11434)"),
        ),
        generative=True,
        default_model=DEFAULT_OLLAMA_MODEL,
        model_hint=DEFAULT_OLLAMA_MODEL,
    )  # fmt: skip
    name = "ollama"

    @classmethod
    def from_context(cls, ctx: LLMContext) -> OllamaLLM:
        return cls(model=ctx.model, host=ctx.host)

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        """Why it cannot run here (no server answers), or None."""
        return None if reachable(config.ollama_host) else "needs an Ollama server, and none answers"

    def __init__(self, model: str | None = None, host: str | None = None, timeout: float = 120.0) -> None:
        self.model = model or DEFAULT_OLLAMA_MODEL
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        if "://" not in self.host:
            self.host = f"http://{self.host}"
        self._policy = service_policy(host, os.environ.get("OLLAMA_HOST"))  # a visitor's host: checked
        self.timeout = timeout
        self._client = None

    def __repr__(self) -> str:
        return f"OllamaLLM(model={self.model!r}, host={self.host!r})"

    @property
    def client(self):
        if self._client is None:
            ollama = require("ollama", "the ollama backend")

            extra = {} if self._policy is None else policy_client_kwargs(self._policy)
            self._client = ollama.Client(host=self.host, timeout=self.timeout, **extra)
        return self._client

    def _translate(self, e: Exception) -> LLMError | ModelNotAvailableError:
        import httpx

        ollama = require("ollama", "the ollama backend")
        if isinstance(e, ollama.ResponseError):
            if e.status_code == 404 or "not found" in str(e.error).lower():
                return ModelNotAvailableError(
                    f"model {self.model} is not pulled on the Ollama server at {self.host} — "
                    f"run `ollama pull {self.model}`"
                )
            return LLMError(f"Ollama at {self.host} returned HTTP {e.status_code}: {str(e.error)[:200]}")
        if refused := refusal(e):
            return LLMConnectionError(f"Ollama at {self.host} is refused by the fetch policy: {refused}")
        if isinstance(e, httpx.TimeoutException):
            return LLMConnectionError(f"Ollama at {self.host} did not answer within {self.timeout:.0f} s")
        if isinstance(e, (ConnectionError, httpx.TransportError)):
            return LLMConnectionError(
                f"Ollama server not reachable at {self.host} — is `ollama serve` running? "
                "(set OLLAMA_HOST for another address)"
            )
        return LLMError(f"Ollama request failed: {str(e)[:200]}")

    def _options(self, request: GenerationRequest) -> dict[str, Any]:
        opts: dict[str, Any] = {"temperature": request.temperature, "num_predict": request.max_tokens}
        if request.stop:
            opts["stop"] = list(request.stop)
        return opts

    def generate(self, request: GenerationRequest) -> Generation:
        try:
            resp = self.client.chat(
                model=self.model,
                messages=[m.to_dict() for m in request.messages],
                options=self._options(request),
                stream=False,
            )
        except Exception as e:
            raise self._translate(e) from None
        return Generation(
            text=resp.message.content or "",
            model=resp.model or self.model,
            prompt_tokens=resp.prompt_eval_count,
            completion_tokens=resp.eval_count,
        )

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        try:
            for part in self.client.chat(
                model=self.model,
                messages=[m.to_dict() for m in request.messages],
                options=self._options(request),
                stream=True,
            ):
                if part.message and part.message.content:
                    yield part.message.content
        except Exception as e:
            raise self._translate(e) from None


def reachable(host: str | None = None, timeout: float = 0.5) -> bool:
    """Whether an Ollama server answers at ``host`` (a quick ``/api/tags`` probe)."""
    import httpx

    url = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
    if "://" not in url:
        url = f"http://{url}"
    policy = service_policy(host, os.environ.get("OLLAMA_HOST"))
    try:
        with policy_client(policy) if policy is not None else httpx.Client() as client:
            return client.get(f"{url.rstrip('/')}/api/tags", timeout=timeout).status_code == 200
    except (httpx.HTTPError, FetchRefused):
        return False
