"""Chat-completions backends over an official SDK with the OpenAI API shape: Groq (``groq`` SDK) and any
OpenAI-compatible server — vLLM, llama.cpp server, LM Studio, OpenAI itself (``openai`` SDK).

The API key comes from the constructor (the UI's password field) or the service's environment variable.
It is held in memory only: never logged, never in ``repr``, and scrubbed from every error message raised.
429s are retried with exponential backoff, honouring ``Retry-After``; every other failure becomes one
typed ragkit error that says what to do.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from ragkit.core.errors import (
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    ModelNotAvailableError,
)
from ragkit.core.optional import require
from ragkit.core.options import Component, Option
from ragkit.ingestion.netpolicy import policy_client, refusal, service_policy
from ragkit.llms.base import Generation, GenerationRequest, LLMContext, redact

log = logging.getLogger(__name__)


class ChatCompletionsLLM:
    """Chat completions through an OpenAI-shaped SDK; subclasses name the service and its settings."""

    name: ClassVar[str] = ""
    service: ClassVar[str] = ""  # how errors name it
    sdk: ClassVar[str] = ""  # the module: "groq" or "openai"
    key_env: ClassVar[str] = ""
    base_url_env: ClassVar[str] = ""
    default_model: ClassVar[str] = ""
    default_where: ClassVar[str] = ""

    @classmethod
    def from_context(cls, ctx: LLMContext) -> ChatCompletionsLLM:
        return cls(model=ctx.model, api_key=ctx.api_key, base_url=ctx.base_url)

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        """Why it cannot run here (no key), or None."""
        if api_key or os.environ.get(cls.key_env):
            return None
        return f"needs a {cls.service} API key"

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
        self.model = model or self.default_model
        self.__key = api_key or os.environ.get(self.key_env) or None
        self.base_url = base_url or os.environ.get(self.base_url_env) or None
        self._policy = service_policy(base_url, os.environ.get(self.base_url_env))  # a visitor's URL
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self._sleep = sleep
        self._client = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, key={'set' if self.__key else 'missing'})"

    @property
    def has_key(self) -> bool:
        return bool(self.__key)

    def _missing_key(self) -> LLMAuthError:
        return LLMAuthError(
            f"no {self.service} API key: set {self.key_env} or enter the key in the sidebar "
            "(it is kept in memory only)"
        )

    def _key_for_client(self) -> str:
        if not self.__key:
            raise self._missing_key()
        return self.__key

    def check_key(self) -> None:
        """Raise :class:`LLMAuthError` now when no call could be authorised (no key, no keyless local
        server), so a run that depends on this backend stops before any work instead of failing each call."""
        self._key_for_client()

    def _client_(self) -> Any:
        key = self._key_for_client()
        if self._client is None:
            module = require(self.sdk, f"the {self.name} backend")
            client_cls = module.Groq if self.sdk == "groq" else module.OpenAI
            # our own retry loop handles 429s, so the user sees one clear message at the end
            extra = {} if self._policy is None else {"http_client": policy_client(self._policy)}
            self._client = client_cls(
                api_key=key, base_url=self.base_url, timeout=self.timeout, max_retries=0, **extra
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
        module = require(self.sdk, f"the {self.name} backend")
        for attempt in range(self.max_retries + 1):
            try:
                return fn()
            except module.RateLimitError as e:
                if attempt == self.max_retries:
                    raise LLMRateLimitError(
                        f"{self.service} rate limit reached (429) for model {self.model} after "
                        f"{self.max_retries} retries: wait a minute, or pick a smaller model"
                    ) from None
                delay = self._retry_after(e)
                if delay is None:
                    delay = self.backoff_s * 2**attempt
                log.warning(
                    "%s 429; retrying in %.1f s (%d/%d)", self.service, delay, attempt + 1, self.max_retries
                )
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
        m = require(self.sdk, f"the {self.name} backend")
        where = self.base_url or self.default_where
        if isinstance(e, m.AuthenticationError):
            return LLMAuthError(
                f"{self.service} rejected the API key (401): check {self.key_env} or the key you entered"
            )
        if isinstance(e, m.PermissionDeniedError):
            return LLMAuthError(f"{self.service} refused access (403) to model {self.model} with this key")
        if isinstance(e, m.NotFoundError):
            return ModelNotAvailableError(
                f"{self.service} has no model {self.model!r} (404): choose another model"
            )
        if refused := refusal(e):
            return LLMConnectionError(f"{self.service} at {where} is refused by the fetch policy: {refused}")
        if isinstance(e, m.APITimeoutError):
            return LLMConnectionError(
                f"{self.service} did not answer within {self.timeout:.0f} s ({where}); try again"
            )
        if isinstance(e, m.APIConnectionError):
            return LLMConnectionError(
                f"cannot reach {self.service} at {where}: check the address and the network"
            )
        if isinstance(e, m.APIStatusError):
            detail = redact(str(getattr(e, "message", e))[:200], self.__key)
            return LLMError(f"{self.service} returned HTTP {e.status_code}: {detail}")
        return LLMError(f"{self.service} request failed: {redact(str(e)[:200], self.__key)}")

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


class OpenAILLM(ChatCompletionsLLM):
    """Any OpenAI-compatible server through the official ``openai`` SDK: base URL from the config,
    ``OPENAI_BASE_URL`` or OpenAI's own; key from the sidebar or ``OPENAI_API_KEY``. A local server
    (vLLM, llama.cpp, LM Studio) usually wants no key: with a base URL and no key, none is sent."""

    component = Component(
        "llm",
        "openai",
        "any OpenAI-compatible server (vLLM, llama.cpp server, LM Studio, OpenAI)",
        options=(
            Option("base_url", "str?", None, field="openai_base_url", flag="--base-url", blank_is_none=True,
                   added_later=True, service_env="OPENAI_BASE_URL", label="Server base URL",
                   placeholder="http://127.0.0.1:8000/v1 (blank: OpenAI)",
                   help="openai: the server's base URL (vLLM, llama.cpp, LM Studio)"),
        ),
        generative=True,
        key_env="OPENAI_API_KEY",
        default_model="gpt-4o-mini",
        model_hint="gpt-4o-mini",
        extras={"key_label": "API key",
                "key_help": "Kept in this browser session's memory only; a local server usually needs none."},
    )  # fmt: skip
    name = "openai"
    service = "the OpenAI-compatible server"
    sdk = "openai"
    key_env = "OPENAI_API_KEY"
    base_url_env = "OPENAI_BASE_URL"
    default_model = "gpt-4o-mini"
    default_where = "api.openai.com"

    @classmethod
    def unavailable(cls, config: Any, api_key: str | None = None) -> str | None:
        if (
            api_key
            or os.environ.get(cls.key_env)
            or config.openai_base_url
            or os.environ.get(cls.base_url_env)
        ):
            return None
        return "needs an OpenAI-compatible server (a base URL) or an OpenAI key"

    def _missing_key(self) -> LLMAuthError:
        return LLMAuthError(
            "no API key for OpenAI: set OPENAI_API_KEY or enter it in the sidebar (kept in memory only), "
            "or give the base URL of a local OpenAI-compatible server"
        )

    def _key_for_client(self) -> str:
        if self.has_key:
            return super()._key_for_client()
        if self.base_url:
            return "no-key"  # local servers ignore the Authorization header
        raise self._missing_key()
