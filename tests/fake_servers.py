"""Loopback HTTP servers that speak the real wire protocols of Groq, OpenAI-compatible servers and Ollama,
for driving the real SDKs.

Groq: OpenAI-compatible ``POST /openai/v1/chat/completions`` (JSON, or SSE with ``stream: true``); the
same handler answers ``POST /v1/chat/completions``, the path of the OpenAI SDK (vLLM, llama.cpp, LM Studio).
Ollama: ``GET /api/tags`` and ``POST /api/chat`` (one JSON object, or NDJSON lines when streaming).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server:
    def __init__(self, handler_cls: type[BaseHTTPRequestHandler]) -> None:
        self.requests: list[dict[str, Any]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_cls)
        self.httpd.owner = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:  # keep test output quiet
        pass

    @property
    def owner(self):
        return self.server.owner  # type: ignore[attr-defined]

    def _body(self) -> dict[str, Any]:
        n = int(self.headers.get("content-length") or 0)
        return json.loads(self.rfile.read(n) or b"{}")

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("content-type", content_type)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class FakeGroq(_Server):
    """``answer`` is returned (in ``pieces`` when streaming). ``rate_limited`` requests get a 429 first;
    a key of ``valid_key`` is required; model ``missing`` is a 404; ``delay_s`` stalls every answer."""

    def __init__(
        self,
        answer: str = "Paris is the capital [1].",
        valid_key: str | None = "gsk_test_key_123456789",  # None: any key (a local server)
        rate_limited: int = 0,
        delay_s: float = 0.0,
        echo_key_in_errors: bool = True,
    ) -> None:
        super().__init__(_GroqHandler)
        self.answer, self.valid_key = answer, valid_key
        self.rate_limited, self.delay_s, self.echo_key = rate_limited, delay_s, echo_key_in_errors
        self.replies: list[str] = []  # answered in order before ``answer`` (e.g. judge grades)
        #: the reply as a function of the request body (a scripted judge reads the prompt); wins over both
        self.responder: Callable[[dict[str, Any]], str] | None = None
        self.retry_after = "0"  # the Retry-After header of a 429

    def next_answer(self, body: dict[str, Any] | None = None) -> str:
        if self.responder is not None:
            return self.responder(body or {})
        return self.replies.pop(0) if self.replies else self.answer


class _GroqHandler(_Handler):
    def do_POST(self) -> None:
        srv: FakeGroq = self.owner
        body = self._body()
        auth = self.headers.get("authorization", "")
        srv.requests.append({"path": self.path, "body": body, "auth": auth})
        if self.path not in ("/openai/v1/chat/completions", "/v1/chat/completions"):
            return self._json(404, {"error": {"message": f"unknown path {self.path}", "type": "not_found"}})
        key = auth.removeprefix("Bearer ")
        if srv.valid_key is not None and key != srv.valid_key:
            shown = key if srv.echo_key else "***"  # real services sometimes echo what they got
            return self._json(
                401,
                {
                    "error": {
                        "message": f"Invalid API Key: {shown}",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                    }
                },
            )
        if body.get("model") == "missing":
            return self._json(
                404,
                {
                    "error": {
                        "message": "The model `missing` does not exist",
                        "type": "invalid_request_error",
                        "code": "model_not_found",
                    }
                },
            )
        if srv.rate_limited > 0:
            srv.rate_limited -= 1
            return self._json(
                429,
                {"error": {"message": "Rate limit reached", "type": "tokens", "code": "rate_limit_exceeded"}},
                {"retry-after": srv.retry_after},
            )
        time.sleep(srv.delay_s)
        answer = srv.next_answer(body)
        model, created = body.get("model", "m"), int(time.time())
        if body.get("stream"):
            self._start_stream("text/event-stream")
            words = answer.split(" ")
            for i, w in enumerate(words):
                piece = w if i == 0 else " " + w
                chunk = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "delta": {"role": "assistant", "content": piece}, "finish_reason": None}
                    ],
                }
                self._chunk(f"data: {json.dumps(chunk)}\n\n".encode())
            last = {
                "id": "chatcmpl-1",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "x_groq": {
                    "id": "req_1",
                    "usage": {
                        "prompt_tokens": 42,
                        "completion_tokens": len(words),
                        "total_tokens": 42 + len(words),
                    },
                },
            }
            self._chunk(f"data: {json.dumps(last)}\n\n".encode())
            self._chunk(b"data: [DONE]\n\n")
            return self._end_stream()
        return self._json(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": answer},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49},
            },
        )


class FakeOllama(_Server):
    """Serves ``models``; chatting with another model is the real 404 "not found, try pulling it first"."""

    def __init__(self, answer: str = "Ollama says hi [1].", models: tuple[str, ...] = ("llama3.2:latest",)):
        super().__init__(_OllamaHandler)
        self.answer, self.models = answer, models
        self.responder: Callable[[dict[str, Any]], str] | None = None  # reply from the request body

    def reply(self, body: dict[str, Any]) -> str:
        return self.responder(body) if self.responder is not None else self.answer


class _OllamaHandler(_Handler):
    def do_GET(self) -> None:
        srv: FakeOllama = self.owner
        srv.requests.append({"path": self.path})
        if self.path != "/api/tags":
            return self._json(404, {"error": "not found"})
        self._json(
            200,
            {
                "models": [
                    {
                        "name": m,
                        "model": m,
                        "modified_at": "2026-01-01T00:00:00Z",
                        "size": 1_000_000,
                        "digest": "sha256:abc",
                        "details": {
                            "format": "gguf",
                            "family": "llama",
                            "parameter_size": "3B",
                            "quantization_level": "Q4_K_M",
                        },
                    }
                    for m in srv.models
                ]
            },
        )

    def do_POST(self) -> None:
        srv: FakeOllama = self.owner
        body = self._body()
        srv.requests.append({"path": self.path, "body": body})
        if self.path != "/api/chat":
            return self._json(404, {"error": "not found"})
        model = body.get("model", "")
        names = set(srv.models) | {m.split(":")[0] for m in srv.models}
        if model not in names:
            return self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
        now = "2026-01-01T00:00:00Z"
        answer = srv.reply(body)
        if body.get("stream", True):
            self._start_stream("application/x-ndjson")
            for i, w in enumerate(answer.split(" ")):
                part = {
                    "model": model,
                    "created_at": now,
                    "message": {"role": "assistant", "content": w if i == 0 else " " + w},
                    "done": False,
                }
                self._chunk((json.dumps(part) + "\n").encode())
            final = {
                "model": model,
                "created_at": now,
                "message": {"role": "assistant", "content": ""},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 30,
                "eval_count": 6,
            }
            self._chunk((json.dumps(final) + "\n").encode())
            return self._end_stream()
        self._json(
            200,
            {
                "model": model,
                "created_at": now,
                "message": {"role": "assistant", "content": answer},
                "done": True,
                "done_reason": "stop",
                "prompt_eval_count": 30,
                "eval_count": 6,
            },
        )
