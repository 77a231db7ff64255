"""Groq backend over the official ``groq`` SDK (OpenAI-compatible chat completions, SSE streaming).

The API key comes from the constructor (the UI's password field) or ``GROQ_API_KEY``. It is held in
memory only: never logged, never in ``repr``, and scrubbed from every error message we raise.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from ragkit.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    ModelNotAvailableError,
)
from ragkit.llms.base import Generation, GenerationRequest, redact

log = logging.getLogger(__name__)

DEFAULT_GROQ_MODEL = "llama-3.3-70b-versatile"


class GroqLLM:
    """Chat completions on Groq; 429s are retried with exponential backoff (honouring Retry-After)."""

    name = "groq"

    def __init__(
        self,
        model: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.model = model or DEFAULT_GROQ_MODEL
        self.__key = api_key or os.environ.get("GROQ_API_KEY") or None
        self.base_url = base_url or os.environ.get("GROQ_BASE_URL") or None
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._client = None

    def __repr__(self) -> str:
        return f"GroqLLM(model={self.model!r}, key={'set' if self.__key else 'missing'})"

    @property
    def has_key(self) -> bool:
        return bool(self.__key)

    def _client_(self):
        if not self.__key:
            raise LLMAuthError(
                "no Groq API key: set GROQ_API_KEY or enter the key in the sidebar "
                "(it is kept in memory only)"
            )
        if self._client is None:
            import groq

            # Our own retry loop handles 429s so the user sees one clear message at the end.
            self._client = groq.Groq(
                api_key=self.__key, base_url=self.base_url, timeout=self.timeout, max_retries=0
            )
        return self._client

    def _kwargs(self, request: GenerationRequest) -> dict[str, Any]:
        kw: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_dict() for m in request.messages],
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.stop:
            kw["stop"] = list(request.stop)[:4]  # the API takes at most 4
        return kw

    def _call(self, fn: Callable[[], Any]) -> Any:
        import groq

        for attempt in range(self.max_retries + 1):
            try:
                return fn()
            except groq.RateLimitError as e:
                if attempt == self.max_retries:
                    raise LLMRateLimitError(
                        f"Groq rate limit reached (429) for model {self.model} after "
                        f"{self.max_retries} retries: wait a minute, or pick a smaller model"
                    ) from None
                delay = self._retry_after(e)
                if delay is None:
                    delay = self.backoff_s * 2**attempt
                log.warning("Groq 429; retrying in %.1f s (%d/%d)", delay, attempt + 1, self.max_retries)
                self._sleep(delay)
            except Exception as e:
                raise self._translate(e) from None
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _retry_after(e: Any) -> float | None:
        try:
            value = e.response.headers.get("retry-after")
            return min(float(value), 60.0) if value is not None else None
        except (AttributeError, TypeError, ValueError):
            return None

    def _translate(self, e: Exception) -> LLMError | ModelNotAvailableError:
        import groq

        where = self.base_url or "api.groq.com"
        if isinstance(e, groq.AuthenticationError):
            return LLMAuthError("Groq rejected the API key (401): check GROQ_API_KEY or the key you entered")
        if isinstance(e, groq.PermissionDeniedError):
            return LLMAuthError(f"Groq refused access (403) to model {self.model} with this key")
        if isinstance(e, groq.NotFoundError):
            return ModelNotAvailableError(f"Groq has no model {self.model!r} (404): choose another model")
        if isinstance(e, groq.APITimeoutError):
            return LLMConnectionError(f"Groq did not answer within {self.timeout:.0f} s ({where}); try again")
        if isinstance(e, groq.APIConnectionError):
            return LLMConnectionError(f"cannot reach Groq at {where}: check the network connection")
        if isinstance(e, groq.APIStatusError):
            detail = redact(str(getattr(e, "message", e))[:200], self.__key)
            return LLMError(f"Groq returned HTTP {e.status_code}: {detail}")
        return LLMError(f"Groq request failed: {redact(str(e)[:200], self.__key)}")

    def generate(self, request: GenerationRequest) -> Generation:
        client = self._client_()
        resp = self._call(lambda: client.chat.completions.create(**self._kwargs(request)))
        usage = getattr(resp, "usage", None)
        return Generation(
            text=resp.choices[0].message.content or "",
            model=getattr(resp, "model", self.model),
            prompt_tokens=getattr(usage, "prompt_tokens", None),
            completion_tokens=getattr(usage, "completion_tokens", None),
        )

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        client = self._client_()
        chunks = self._call(lambda: client.chat.completions.create(**self._kwargs(request), stream=True))
        try:
            for chunk in chunks:
                if chunk.choices and chunk.choices[0].delta.content:
                    yield chunk.choices[0].delta.content
        except Exception as e:
            raise self._translate(e) from None
