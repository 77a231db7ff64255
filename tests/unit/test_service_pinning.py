"""Service URLs a visitor types (Ollama host, OpenAI-compatible base URL, SearXNG instance) reach their
service only through the fetch policy, on every connection, through the real SDKs; the administrator's
own values and the CLI's are used as given."""

from __future__ import annotations

import socket

import pytest

import ragkit.ingestion.netpolicy as netpolicy
from ragkit.core.errors import LLMConnectionError
from ragkit.llms.base import GenerationRequest, Message
from ragkit.llms.ollama import OllamaLLM
from ragkit.llms.ollama import reachable as ollama_reachable
from ragkit.llms.openai_compat import OpenAILLM
from ragkit.retrievers.web import SearxngClient, WebSearchError
from tests.fake_servers import FakeGroq, FakeOllama
from tests.web_servers import FakeSearxng

HOST = "service.rebind.test"  # resolves to the loopback fake server: where a rebinding host leads


def request() -> GenerationRequest:
    return GenerationRequest([Message("user", "Say hi")], "Say hi", "Say hi", max_tokens=16)


@pytest.fixture
def rebinding(monkeypatch):
    """``HOST`` resolves to 127.0.0.1; the loopback allow-list of the suite is closed, as on a server."""
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        if host == HOST:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)
    monkeypatch.delenv("RAGKIT_FETCH_ALLOW", raising=False)
    for env in (
        "OLLAMA_HOST",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "SEARXNG_URL",
        "QDRANT_URL",
        "QDRANT_API_KEY",
    ):
        monkeypatch.delenv(env, raising=False)


def visitor(url: str) -> str:
    return url.replace("127.0.0.1", HOST)


def test_a_visitors_ollama_host_is_refused_on_connection_the_operators_is_not(rebinding, monkeypatch):
    with FakeOllama(answer="hi [1].") as srv:
        url = visitor(srv.url)
        assert OllamaLLM(host=url).generate(request()).text == "hi [1]."  # the CLI: used as given
        netpolicy.serve_visitors()
        with pytest.raises(LLMConnectionError, match=r"refused by the fetch policy: .*loopback"):
            OllamaLLM(host=url).generate(request())
        with pytest.raises(LLMConnectionError, match="refused by the fetch policy"):
            list(OllamaLLM(host=url).stream(request()))
        assert not ollama_reachable(url)
        served = len(srv.requests)
        monkeypatch.setenv("OLLAMA_HOST", url)  # the administrator's own host
        assert OllamaLLM(host=url).generate(request()).text == "hi [1]."
        assert ollama_reachable(url)
        assert len(srv.requests) == served + 2  # the refused calls never reached it


def test_a_visitors_openai_base_url_is_refused_on_connection(rebinding, monkeypatch):
    with FakeGroq(answer="ok [1].", valid_key=None) as srv:
        url = f"{visitor(srv.url)}/v1"
        assert OpenAILLM(model="m", base_url=url).generate(request()).text == "ok [1]."
        netpolicy.serve_visitors()
        before = len(srv.requests)
        with pytest.raises(LLMConnectionError, match=r"refused by the fetch policy: .*loopback"):
            OpenAILLM(model="m", base_url=url).generate(request())
        assert len(srv.requests) == before
        monkeypatch.setenv("RAGKIT_FETCH_ALLOW", HOST)  # an intranet host the administrator opened
        assert OpenAILLM(model="m", base_url=url).generate(request()).text == "ok [1]."


def test_a_visitors_searxng_instance_must_pass_the_policy(rebinding, monkeypatch):
    with FakeSearxng({"kiln": [{"url": "https://example.org/k", "title": "kiln"}]}) as sx:
        url = visitor(sx.url)
        assert SearxngClient(url).search("kiln", 3)  # the CLI's instance is opened as a host
        netpolicy.serve_visitors()
        with pytest.raises(WebSearchError, match="refused"):
            SearxngClient(url).search("kiln", 3)
        monkeypatch.setenv("SEARXNG_URL", url)  # the administrator's instance
        assert SearxngClient(url).search("kiln", 3)


def test_a_visitors_qdrant_server_is_refused_on_connection_the_operators_is_not(rebinding, monkeypatch):
    from ragkit.core.errors import IndexStoreError
    from ragkit.index.vectorstores.qdrant_server import QdrantServerStore
    from tests.fake_qdrant import FakeQdrant

    with FakeQdrant() as srv:
        url = visitor(srv.url)
        assert QdrantServerStore(url, "papers", 4).count() == 0  # the CLI's server: used as given
        netpolicy.serve_visitors()
        calls = len(srv.calls)
        with pytest.raises(
            IndexStoreError, match=r"refused by the fetch policy .*loopback.*QDRANT_URL"
        ) as err:
            QdrantServerStore(url, "papers", 4).count()
        assert url in str(err.value) and len(srv.calls) == calls  # named, and never reached
        monkeypatch.setenv("QDRANT_URL", url)  # the administrator's own server
        assert QdrantServerStore(url, "papers", 4).count() == 0
        assert len(srv.calls) > calls
