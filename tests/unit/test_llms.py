"""Groq and Ollama adapters driven through the real SDKs against loopback servers speaking their protocols."""

from __future__ import annotations

import logging
import socket

import pytest

from ragkit.core.errors import LLMAuthError, LLMConnectionError, LLMRateLimitError, ModelNotAvailableError
from ragkit.core.types import Message
from ragkit.llms import build_llm, default_llm_name, ollama_reachable
from ragkit.llms.base import GenerationRequest
from ragkit.llms.groq import GroqLLM
from ragkit.llms.ollama import OllamaLLM
from tests.fake_servers import FakeGroq, FakeOllama

KEY = "gsk_test_key_123456789"
BAD_KEY = "gsk_WRONGKEY_abcdefghijklmnop"


def request(stop=()) -> GenerationRequest:
    msgs = [Message("system", "Answer from the sources."), Message("user", "Sources: [1] x\n\nQuestion: q")]
    return GenerationRequest(msgs, "prompt", "q", (), 0.0, 64, stop)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_groq_generate_and_stream():
    with FakeGroq(answer="Paris is the capital [1].") as srv:
        llm = GroqLLM(model="llama-3.3-70b-versatile", api_key=KEY, base_url=srv.url)
        gen = llm.generate(request(stop=("\nQuestion:",)))
        assert gen.text == "Paris is the capital [1]."
        assert (gen.prompt_tokens, gen.completion_tokens) == (42, 7)
        sent = srv.requests[-1]
        assert sent["auth"] == f"Bearer {KEY}" and sent["body"]["model"] == "llama-3.3-70b-versatile"
        assert [m["role"] for m in sent["body"]["messages"]] == ["system", "user"]
        assert sent["body"]["stop"] == ["\nQuestion:"] and sent["body"]["temperature"] == 0.0
        pieces = list(llm.stream(request()))
        assert len(pieces) > 1 and "".join(pieces) == "Paris is the capital [1]."
        assert srv.requests[-1]["body"]["stream"] is True


def test_groq_bad_key_is_401_and_never_leaks(caplog):
    caplog.set_level(logging.DEBUG)  # the SDK's and httpx's debug logs too
    with FakeGroq(echo_key_in_errors=True) as srv:
        llm = GroqLLM(api_key=BAD_KEY, base_url=srv.url)
        with pytest.raises(LLMAuthError, match=r"rejected the API key \(401\)") as err:
            llm.generate(request())
        with pytest.raises(LLMAuthError):
            list(llm.stream(request()))
    assert BAD_KEY not in str(err.value) and BAD_KEY not in repr(err.value)
    assert BAD_KEY not in caplog.text
    assert BAD_KEY not in repr(llm) and "key='set'" not in repr(llm) and "set" in repr(llm)


def test_groq_missing_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    with pytest.raises(LLMAuthError, match="no Groq API key: set GROQ_API_KEY"):
        GroqLLM().generate(request())


def test_groq_key_from_environment(monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", KEY)
    with FakeGroq() as srv:
        GroqLLM(base_url=srv.url).generate(request())
        assert srv.requests[-1]["auth"] == f"Bearer {KEY}"
    assert default_llm_name() == "groq"
    monkeypatch.delenv("GROQ_API_KEY")
    assert default_llm_name() != "groq"


def test_groq_rate_limit_retries_then_succeeds_or_gives_up():
    slept: list[float] = []
    with FakeGroq(rate_limited=2) as srv:
        llm = GroqLLM(api_key=KEY, base_url=srv.url, max_retries=3, sleep=slept.append)
        assert llm.generate(request()).text
        assert len(srv.requests) == 3 and slept == [0.0, 0.0]  # Retry-After: 0 honoured
    with FakeGroq(rate_limited=10) as srv:
        llm = GroqLLM(api_key=KEY, base_url=srv.url, max_retries=2, sleep=slept.append)
        with pytest.raises(LLMRateLimitError, match=r"rate limit reached \(429\).*after 2 retries"):
            llm.generate(request())
        assert len(srv.requests) == 3


def test_groq_unknown_model_timeout_and_unreachable():
    with FakeGroq(delay_s=2.0) as srv:
        with pytest.raises(ModelNotAvailableError, match="no model 'missing'"):
            GroqLLM(model="missing", api_key=KEY, base_url=srv.url).generate(request())
        with pytest.raises(LLMConnectionError, match="did not answer within"):
            GroqLLM(api_key=KEY, base_url=srv.url, timeout=0.3).generate(request())
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(LLMConnectionError, match=f"cannot reach Groq at {url}"):
        GroqLLM(api_key=KEY, base_url=url).generate(request())


def test_ollama_generates_and_streams():
    with FakeOllama(answer="Ollama says hi [1].", models=("llama3.2:latest", "qwen2.5:0.5b")) as srv:
        llm = OllamaLLM(model="llama3.2", host=srv.url)
        gen = llm.generate(request(stop=("\n\n",)))
        assert gen.text == "Ollama says hi [1]." and (gen.prompt_tokens, gen.completion_tokens) == (30, 6)
        body = srv.requests[-1]["body"]
        assert body["options"] == {"temperature": 0.0, "num_predict": 64, "stop": ["\n\n"]}
        pieces = list(llm.stream(request()))
        assert len(pieces) > 1 and "".join(pieces) == "Ollama says hi [1]."
        assert ollama_reachable(srv.url)


def test_ollama_model_not_pulled_vs_server_unreachable():
    with FakeOllama(models=("llama3.2:latest",)) as srv:
        with pytest.raises(
            ModelNotAvailableError, match=r"model mistral is not pulled.*run `ollama pull mistral`"
        ):
            OllamaLLM(model="mistral", host=srv.url).generate(request())
        with pytest.raises(ModelNotAvailableError, match="ollama pull mistral"):
            list(OllamaLLM(model="mistral", host=srv.url).stream(request()))
    url = f"http://127.0.0.1:{free_port()}"
    for call in (
        lambda llm: llm.generate(request()),
        lambda llm: list(llm.stream(request())),
    ):
        with pytest.raises(LLMConnectionError, match=f"Ollama server not reachable at {url}"):
            call(OllamaLLM(host=url))
    assert not ollama_reachable(url)


def test_ollama_host_from_environment(monkeypatch):
    with FakeOllama() as srv:
        monkeypatch.setenv("OLLAMA_HOST", srv.url)
        monkeypatch.delenv("GROQ_API_KEY", raising=False)
        assert OllamaLLM().host == srv.url
        assert default_llm_name() == "ollama"
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{free_port()}")
    assert default_llm_name() == "extractive"


def test_build_llm_registry():
    with pytest.raises(Exception, match="extractive, groq, ollama, local"):
        build_llm("gpt")
    assert build_llm("groq", model="m", api_key=KEY).model == "m"


# ------------------------------------------------------------------ OpenAI-compatible servers (openai SDK)


def test_openai_compatible_server_generates_streams_and_needs_no_key_locally(monkeypatch):
    from ragkit.llms.openai_compat import OpenAILLM

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeGroq(answer="Use pathlib [2].", valid_key=None) as srv:  # a local server takes any key
        llm = OpenAILLM(model="qwen2.5-7b", base_url=f"{srv.url}/v1")
        gen = llm.generate(request())
        assert gen.text == "Use pathlib [2]." and (gen.prompt_tokens, gen.completion_tokens) == (42, 7)
        assert srv.requests[-1]["path"] == "/v1/chat/completions"
        assert srv.requests[-1]["body"]["model"] == "qwen2.5-7b"
        pieces = list(llm.stream(request()))
        assert len(pieces) > 1 and "".join(pieces) == "Use pathlib [2]."
    with pytest.raises(LLMAuthError, match="no API key for OpenAI: set OPENAI_API_KEY"):
        OpenAILLM().generate(request())  # no base URL and no key: OpenAI itself needs one


def test_openai_wire_errors_401_429_with_retry_after_and_timeout(caplog):
    from ragkit.llms.openai_compat import OpenAILLM

    caplog.set_level(logging.DEBUG)
    with FakeGroq(valid_key=KEY) as srv:
        bad = OpenAILLM(api_key=BAD_KEY, base_url=f"{srv.url}/v1")
        with pytest.raises(LLMAuthError, match=r"rejected the API key \(401\): check OPENAI_API_KEY") as err:
            bad.generate(request())
        assert BAD_KEY not in str(err.value) and BAD_KEY not in caplog.text
    slept: list[float] = []
    with FakeGroq(valid_key=KEY, rate_limited=2) as srv:
        srv.retry_after = "1.5"
        llm = OpenAILLM(api_key=KEY, base_url=f"{srv.url}/v1", sleep=slept.append)
        assert llm.generate(request()).text and slept == [1.5, 1.5]  # Retry-After honoured
    with FakeGroq(valid_key=KEY, rate_limited=9) as srv:
        llm = OpenAILLM(api_key=KEY, base_url=f"{srv.url}/v1", max_retries=1, sleep=slept.append)
        with pytest.raises(LLMRateLimitError, match=r"\(429\).*after 1 retries"):
            llm.generate(request())
    with FakeGroq(valid_key=KEY, delay_s=2.0) as srv:
        with pytest.raises(LLMConnectionError, match="did not answer within"):
            OpenAILLM(api_key=KEY, base_url=f"{srv.url}/v1", timeout=0.3).generate(request())
        with pytest.raises(ModelNotAvailableError, match="no model 'missing'"):
            OpenAILLM(model="missing", api_key=KEY, base_url=f"{srv.url}/v1").generate(request())
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(LLMConnectionError, match="cannot reach the OpenAI-compatible server"):
        OpenAILLM(api_key=KEY, base_url=url).generate(request())
