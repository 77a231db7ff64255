"""The fetch policy: every address class refused (literal, resolved name, redirect, IPv6 forms), the
allow-list opening a loopback server, and a DNS-rebinding attempt that never reaches the second address."""

from __future__ import annotations

import ipaddress
import socket

import httpcore
import pytest

import ragkit.ingestion.netpolicy as netpolicy
from ragkit.core.errors import DocumentError
from ragkit.ingestion.fetch import fetch
from ragkit.ingestion.netpolicy import Allowed, FetchPolicy, address_class
from ragkit.retrievers.web import SearxngClient, fetch_pages
from tests.web_servers import FakeSearxng, PageServer

CLOSED = FetchPolicy()  # nothing opened: what a server with no RAGKIT_FETCH_ALLOW runs


@pytest.fixture(scope="module")
def pages():
    with PageServer() as srv:
        yield srv


def _port(srv) -> int:
    return srv.httpd.server_address[1]


@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://127.8.9.10:8080/x", "loopback"),
        ("http://10.0.0.5/", "private"),
        ("http://192.168.1.1/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://100.64.0.1/", "not globally routable"),  # carrier-grade NAT
        ("http://[::1]/", "loopback"),
        ("http://[::]/", "unspecified"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fc00::1]/", "private"),
        ("http://[ff02::1]/", "multicast"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),  # IPv4-mapped IPv6
        ("http://[::ffff:a00:5]/", "private"),  # ::ffff:10.0.0.5
        ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 wrapping 127.0.0.1
    ],
)
def test_every_address_class_is_refused_as_a_literal(url, rule):
    with pytest.raises(DocumentError) as err:
        fetch(url, policy=CLOSED, timeout=2)
    assert (
        url in str(err.value) and rule in str(err.value) and "refused by the fetch policy" in str(err.value)
    )


def test_public_addresses_pass_and_other_schemes_do_not():
    assert address_class(ipaddress.ip_address("93.184.216.34")) is None
    assert address_class(ipaddress.ip_address("2606:4700::1111")) is None
    for url in ("file:///etc/passwd", "ftp://example.org/x", "gopher://example.org/"):
        with pytest.raises(DocumentError, match="only http and https"):
            fetch(url, policy=CLOSED)
    with pytest.raises(DocumentError, match="port 6379 is closed"):
        fetch("http://93.184.216.34:6379/", policy=FetchPolicy(deny_ports=frozenset({6379})))


def _resolver(monkeypatch, answers: dict[str, list[str]], calls: list[str]):
    real = socket.getaddrinfo

    def fake(host, port, *args, **kwargs):
        calls.append(host)
        if host in answers:
            seq = answers[host]
            ip = seq[min(len(calls) - 1, len(seq) - 1)]
            fam = socket.AF_INET6 if ":" in ip else socket.AF_INET
            return [(fam, socket.SOCK_STREAM, 6, "", (ip, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(netpolicy.socket, "getaddrinfo", fake)


def test_a_host_name_resolving_to_a_private_address_is_refused(monkeypatch, pages):
    calls: list[str] = []
    _resolver(monkeypatch, {"wiki.corp.example": ["10.0.0.5"], "loop.example": ["127.0.0.1"]}, calls)
    with pytest.raises(
        DocumentError, match=r"wiki\.corp\.example resolves to 10\.0\.0\.5, which is a private"
    ):
        fetch("http://wiki.corp.example/page", policy=CLOSED, timeout=2)
    before = len(pages.requests)
    with pytest.raises(DocumentError, match="loopback"):
        fetch(f"http://loop.example:{_port(pages)}/article", policy=CLOSED, timeout=2)
    assert len(pages.requests) == before  # refused before connecting
    opened = FetchPolicy((Allowed.parse("loop.example"),))  # an intranet host the administrator opened
    assert fetch(f"http://loop.example:{_port(pages)}/article", policy=opened).status == 200
    assert len(pages.requests) == before + 1


def test_the_allow_list_opens_a_loopback_server_from_the_environment(monkeypatch, pages):
    monkeypatch.setenv("RAGKIT_FETCH_ALLOW", f" wiki.lab.internal , 127.0.0.1:{_port(pages)}")
    page = fetch(f"{pages.url}/article")  # the environment's policy
    assert page.status == 200 and page.data
    monkeypatch.setenv("RAGKIT_FETCH_ALLOW", "127.0.0.1:1")  # another port of the same host stays closed
    with pytest.raises(DocumentError, match="loopback"):
        fetch(f"{pages.url}/article")
    monkeypatch.setenv("RAGKIT_FETCH_ALLOW", "127.0.0.0/8")  # a network
    assert fetch(f"{pages.url}/notes.txt").status == 200


def test_a_redirect_to_a_forbidden_address_is_refused_at_that_hop(pages):
    with PageServer() as inner:
        policy = FetchPolicy((Allowed.parse(f"127.0.0.1:{_port(pages)}"),))  # only the outer server
        for target in (f"{inner.url}/article", f"http://[::ffff:127.0.0.1]:{_port(inner)}/article"):
            with pytest.raises(DocumentError) as err:
                fetch(f"{pages.url}/go?to={target}", policy=policy, timeout=3)
            assert f"redirected to {target}" in str(err.value) and "loopback" in str(err.value)
        with pytest.raises(DocumentError, match=r"redirected to file://.*only http and https"):
            fetch(f"{pages.url}/go?to=file:///etc/passwd", policy=policy, timeout=3)
        assert inner.requests == []


def test_dns_rebinding_connects_only_to_the_address_that_was_checked(monkeypatch, pages):
    """First lookup public, every later one the loopback server: the fetch must never reach it."""
    calls: list[str] = []
    _resolver(monkeypatch, {"rebind.example": ["93.184.216.34", "127.0.0.1"]}, calls)
    dialled: list[str] = []

    def dial(self, host, port, *args, **kwargs):
        dialled.append(host)
        raise httpcore.ConnectError("no route (test)")  # this machine has no internet anyway

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", dial)
    before = len(pages.requests)
    with pytest.raises(DocumentError, match="cannot connect"):
        fetch(f"http://rebind.example:{_port(pages)}/article", policy=CLOSED, timeout=2)
    assert dialled == ["93.184.216.34"] and calls.count("rebind.example") == 1
    assert len(pages.requests) == before


def test_searxng_is_opened_as_a_host_but_not_the_pages_it_returns(monkeypatch, pages):
    monkeypatch.delenv("RAGKIT_FETCH_ALLOW")
    before = pages.requests.count("/notes.txt")
    index = {"kiln": [{"url": f"{pages.url}/notes.txt", "title": "internal notes"}]}
    with FakeSearxng(index) as sx:
        results = SearxngClient(sx.url).search("kiln temperature", 3)  # the configured instance: allowed
        assert [r.url for r in results] == [f"{pages.url}/notes.txt"]
        docs, errors = fetch_pages(results, budget_s=5, cache=None)
    assert docs == [] and "loopback" in errors[0]["error"] and errors[0]["url"] == results[0].url
    assert pages.requests.count("/notes.txt") == before


@pytest.mark.parametrize(
    "url, says",
    [
        ("http://169.254.169.254/latest/meta-data", "link-local"),
        ("http://10.0.0.5:11434", "private"),
        ("localhost:11434", "loopback"),  # a bare host:port, as Ollama hosts are written
        ("http://[::1]:8000/v1", "loopback"),
        ("http://[::ffff:127.0.0.1]:8000/v1", "loopback"),
        ("file:///etc/passwd", "only http and https"),
        ("http://no-such-host.invalid/v1", "cannot be resolved"),
    ],
)
def test_a_service_url_a_visitor_types_is_held_to_the_policy(url, says):
    from ragkit.ingestion.netpolicy import FetchRefused, check_service_url

    with pytest.raises(FetchRefused, match=says):
        check_service_url(url, None, CLOSED)


def test_the_administrators_own_service_url_and_opened_hosts_pass():
    from ragkit.ingestion.netpolicy import check_service_url

    check_service_url("http://10.0.0.5:11434/", "http://10.0.0.5:11434", CLOSED)  # the server's own value
    check_service_url("http://93.184.216.34/v1", None, CLOSED)  # a public address
    check_service_url("127.0.0.1:11434", None, FetchPolicy((Allowed.parse("127.0.0.1"),)))
