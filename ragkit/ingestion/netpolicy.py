"""The fetch policy: which addresses an outbound request may reach (no server-side request forgery).

Every fetch of a user- or page-supplied URL (URL ingestion, web search and its result pages) goes through
:func:`policy_client`. Its network backend resolves the host once, refuses the connection when any
address is loopback, private, link-local, multicast, reserved, unspecified or otherwise not globally
routable (IPv4, IPv6, IPv4-mapped IPv6), and connects to the very address it checked — no second lookup
that DNS rebinding could change. Redirects open new connections, so every hop is checked the same way.

An allow-list opens named hosts or networks: ``RAGKIT_FETCH_ALLOW`` (comma-separated ``host``,
``host:port``, ``IP``, ``CIDR``; e.g. ``wiki.lab.internal,127.0.0.1:8888,10.20.0.0/16``) or the CLI's
``--allow-host``. The app reads only the environment: on a shared server the administrator, not a
visitor, decides what is reachable. ``RAGKIT_FETCH_DENY_PORTS`` closes ports (e.g. ``25,6379``).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

ALLOW_ENV = "RAGKIT_FETCH_ALLOW"
DENY_PORTS_ENV = "RAGKIT_FETCH_DENY_PORTS"
SCHEMES = ("http", "https")


class FetchRefused(Exception):
    """The fetch policy refused a URL or a connection; ``str()`` names the rule."""


def address_class(ip: Address) -> str | None:
    """The rule that forbids ``ip`` ("loopback", "private", …), or None for a public address."""
    if isinstance(ip, ipaddress.IPv6Address):
        inner = ip.ipv4_mapped or ip.sixtofour or (ip.teredo[1] if ip.teredo else None)
        if inner is not None:
            return address_class(inner)
    for rule in ("unspecified", "loopback", "link_local", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{rule}"):
            return rule.replace("_", "-")
    if not ip.is_global:
        return "not globally routable"
    return None


@dataclass(frozen=True)
class Allowed:
    """One allow-list entry: a host name (with an optional port) or a network."""

    host: str | None = None
    port: int | None = None
    network: Network | None = None

    @classmethod
    def parse(cls, entry: str) -> Allowed:
        text = entry.strip()
        try:
            return cls(network=ipaddress.ip_network(text.strip("[]"), strict=False))
        except ValueError:
            pass
        host, port = text, None
        if text.startswith("["):  # [v6]:port
            host, _, rest = text[1:].partition("]")
            port = int(rest[1:]) if rest.startswith(":") and rest[1:].isdigit() else None
        elif text.count(":") == 1:
            name, _, p = text.partition(":")
            if not p.isdigit():
                raise ValueError(f"fetch allow-list entry {entry!r}: the port must be a number")
            host, port = name, int(p)
        if not host:
            raise ValueError(f"fetch allow-list entry {entry!r} names no host")
        return cls(host=host.lower().strip("[]"), port=port)

    def opens(self, host: str, port: int, ip: Address | None = None) -> bool:
        if self.network is not None:
            return ip is not None and ip.version == self.network.version and ip in self.network
        return self.host == host.lower().strip("[]") and self.port in (None, port)


@dataclass(frozen=True)
class FetchPolicy:
    """What outbound fetches may reach: public addresses, plus what ``allow`` opens."""

    allow: tuple[Allowed, ...] = ()
    deny_ports: frozenset[int] = field(default_factory=frozenset)

    @classmethod
    def from_env(cls, extra: Iterable[str] = ()) -> FetchPolicy:
        """The administrator's policy (``RAGKIT_FETCH_ALLOW``, ``RAGKIT_FETCH_DENY_PORTS``) plus ``extra``."""
        entries = [e for e in os.environ.get(ALLOW_ENV, "").split(",") if e.strip()]
        ports = [p for p in os.environ.get(DENY_PORTS_ENV, "").split(",") if p.strip()]
        try:
            deny = frozenset(int(p) for p in ports)
        except ValueError:
            raise ValueError(f"{DENY_PORTS_ENV} must list port numbers, got {ports}") from None
        return cls(tuple(Allowed.parse(e) for e in [*entries, *extra] if e.strip()), deny)

    def with_hosts(self, *urls: str) -> FetchPolicy:
        """This policy with the hosts of ``urls`` opened (e.g. the SearXNG instance the user configured)."""
        more = []
        for url in urls:
            parts = urlsplit(url)
            if parts.hostname:
                more.append(Allowed(host=parts.hostname.lower(), port=_port(parts)))
        return FetchPolicy((*self.allow, *more), self.deny_ports)

    def check_url(self, url: str) -> tuple[str, int]:
        """Scheme, port and (when the host is an address literal) the address; the URL's host and port."""
        parts = urlsplit(url)
        if parts.scheme.lower() not in SCHEMES:
            raise FetchRefused(f"only http and https URLs are fetched, not {parts.scheme or 'no scheme'!r}")
        host = parts.hostname
        if not host:
            raise FetchRefused("the URL names no host")
        port = _port(parts)
        if port in self.deny_ports:
            raise FetchRefused(f"port {port} is closed by {DENY_PORTS_ENV}")
        try:
            literal = ipaddress.ip_address(host)
        except ValueError:
            return host, port
        self.check_address(host, port, literal)
        return host, port

    def check_address(self, host: str, port: int, ip: Address) -> None:
        """Raise :class:`FetchRefused` unless ``ip`` (an address of ``host``) may be reached."""
        if any(a.opens(host, port, ip) for a in self.allow):
            return
        rule = address_class(ip)
        if rule is not None:
            shown = host if host.strip("[]") == str(ip) else f"{host} resolves to {ip}, which"
            article = "an" if rule[0] in "aeiou" else "a"
            what = f"is {rule}" if " " in rule else f"is {article} {rule} address"
            raise FetchRefused(f"{shown} {what}: refused by the fetch policy (open it with {ALLOW_ENV})")

    def resolve(self, host: str, port: int) -> list[tuple[Any, ...]]:
        """``getaddrinfo`` once; every address checked (one forbidden address refuses the host)."""
        if port in self.deny_ports:
            raise FetchRefused(f"port {port} is closed by {DENY_PORTS_ENV}")
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        for info in infos:
            self.check_address(host, port, ipaddress.ip_address(info[4][0].split("%")[0]))
        return infos


_VISITORS = {"on": False}


def serve_visitors(on: bool = True) -> None:
    """Mark this process as a server for visitors (the app): a service URL that is not the
    administrator's own is then reached only through the fetch policy (:func:`service_policy`). The
    CLI's operator is not a visitor: a service URL it is given is used as given."""
    _VISITORS["on"] = on


def serving_visitors() -> bool:
    """Whether this process serves visitors (the app) rather than one user (the CLI, a script)."""
    return _VISITORS["on"]


def _same_service(url: str, admin_value: str | None) -> bool:
    return bool(admin_value) and url.strip().rstrip("/") == str(admin_value).strip().rstrip("/")


def service_policy(url: str | None, admin_value: str | None) -> FetchPolicy | None:
    """The policy every connection to a visitor's service URL must pass, or None (no URL, the
    administrator's own value, or not serving visitors). The SDK clients of Ollama and OpenAI-compatible
    servers and the SearXNG client connect through it, to the very addresses it checked, so a host whose
    DNS changes after the sidebar's :func:`check_service_url` cannot lead the server inside."""
    if not _VISITORS["on"] or not url or _same_service(url, admin_value):
        return None
    return FetchPolicy.from_env()


def refusal(e: BaseException | None) -> str | None:
    """The fetch policy's reason when ``e`` is, or was caused by, a :class:`FetchRefused` (SDKs wrap
    what their HTTP client raised), else None."""
    seen = 0
    while e is not None and seen < 10:
        if isinstance(e, FetchRefused):
            return str(e)
        e, seen = e.__cause__ or e.__context__, seen + 1
    return None


def check_service_url(url: str, admin_value: str | None = None, policy: FetchPolicy | None = None) -> None:
    """Raise :class:`FetchRefused` for the URL (or ``host:port``) of a service that a visitor typed,
    unless it is the administrator's own (``admin_value``, from the environment) or every address its
    host resolves to passes the policy. The check a config gets when it arrives; the connections
    themselves are checked again (:func:`service_policy`)."""
    if _same_service(url, admin_value):
        return
    policy = policy or FetchPolicy.from_env()
    host, port = policy.check_url(url if "://" in url else f"http://{url}")
    try:
        policy.resolve(host.strip("[]"), port)
    except OSError as e:
        raise FetchRefused(f"{host} cannot be resolved ({e.strerror or e})") from None


def _port(parts: Any) -> int:
    try:
        port = parts.port
    except ValueError:
        raise FetchRefused("the URL's port is not a number in 0–65535") from None
    return port or (443 if parts.scheme.lower() == "https" else 80)


def pinned_backend(policy: FetchPolicy) -> Any:
    """An httpcore network backend that connects only to addresses the policy checked, by address."""
    import httpcore

    class PinnedBackend(httpcore.SyncBackend):
        def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):  # type: ignore[override]
            try:
                infos = policy.resolve(host, port)
            except socket.gaierror as e:
                raise httpcore.ConnectError(f"{e} (name or service not known)") from e
            last: Exception | None = None
            for info in infos:  # the checked addresses, connected to by address: no second lookup
                try:
                    return super().connect_tcp(info[4][0], port, timeout, local_address, socket_options)
                except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                    last = e
            raise last or httpcore.ConnectError(f"{host} has no address")

    return PinnedBackend()


def policy_client(policy: FetchPolicy | None = None, hops: list[str] | None = None, **kwargs: Any) -> Any:
    """An ``httpx.Client`` whose every request and connection (redirects too) obeys ``policy`` (default:
    from the environment); each request's URL is appended to ``hops`` when given (to name a refused hop).

    Environment proxies are not used: a proxy would resolve and reach hosts beyond the policy's view."""
    import httpx

    policy = policy or FetchPolicy.from_env()
    return httpx.Client(**policy_client_kwargs(policy, hops), **kwargs)


def policy_client_kwargs(policy: FetchPolicy, hops: list[str] | None = None) -> dict[str, Any]:
    """The ``httpx.Client`` arguments that make it obey ``policy`` (what :func:`policy_client` builds
    with; SDKs that build their own client, as Ollama's does, take them as they are)."""
    import httpcore
    import httpx

    def check(request: Any) -> None:
        if hops is not None:
            hops.append(str(request.url))
        policy.check_url(str(request.url))

    transport = httpx.HTTPTransport(trust_env=False)
    ssl_context = transport._pool._ssl_context  # the verified default context httpx built
    transport._pool = httpcore.ConnectionPool(ssl_context=ssl_context, network_backend=pinned_backend(policy))
    return {"transport": transport, "trust_env": False, "event_hooks": {"request": [check]}}
