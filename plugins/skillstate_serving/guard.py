"""The checks every local HTTP surface makes, one implementation (``skillstate_serving``).

Every surface (the MCP server's gate, the run inspector's) checks the ``Host`` header
(DNS rebinding), the ``Origin`` header (cross-site reads) and a bearer token the same
way (:func:`check_request`, whose :class:`Refusal` answers itself), and listens on a
socket bound the same way:

- :func:`allowed_names`: the loopback names, the bind address when it is a concrete
  one, and each ``--allowed-host`` (no port, lower case, IPv6 without brackets);
- :func:`host_allowed` / :func:`origin_allowed`: a ``Host`` (``name``, ``name:port``,
  ``[v6]:port``) or an ``Origin`` (``http(s)://name[:port]``) naming one of them;
- :func:`token_matches` / :func:`bearer_matches`: a token, or an ``Authorization:
  Bearer`` header, compared in constant time;
- :func:`bind`: a listening TCP socket with ``TCP_NODELAY``.

No third-party import.
"""

from __future__ import annotations

import hmac
import json
import socket
import urllib.parse
from collections.abc import Awaitable, Callable, Collection, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from skillstate_serving.options import ServeSettings

__all__ = [
    "ANY_ADDRESS",
    "LOOPBACK",
    "Refusal",
    "allowed_names",
    "bearer_matches",
    "bind",
    "check_request",
    "host_allowed",
    "host_name",
    "origin_allowed",
    "origin_name",
    "token_matches",
]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
ANY_ADDRESS = ("0.0.0.0", "::", "")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
"""ASGI's types, spelled out (the web libraries are the extras', not the core's)."""


def allowed_names(bind: str, allowed_hosts: Sequence[str] = ()) -> frozenset[str]:
    """Host names (no port, lower case, IPv6 without brackets) a gate accepts."""
    names = set(LOOPBACK)
    if bind not in ANY_ADDRESS:
        names.add(_bare(bind))
    names.update(_bare(name) for name in allowed_hosts if name.strip())
    return frozenset(names)


def _bare(name: str) -> str:
    """``name``, ``name:port``, ``v6``, ``[v6]`` or ``[v6]:port`` as a bare lower-case name
    (a port given with ``--allowed-host`` is not part of what a Host header is matched on)."""
    name = name.strip().lower()
    if name.count(":") > 1 and not name.startswith("["):
        return name  # an IPv6 address without brackets
    return host_name(name) or name.strip("[]")


def host_name(value: str) -> str | None:
    """The name in a Host header (``name``, ``name:port``, ``[v6]:port``), lower case."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        rest = value[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit()):
            return None
        return value[1:end]
    name, sep, port = value.partition(":")
    if sep and not (port.isascii() and port.isdigit()):
        return None
    return name


def origin_name(origin: str) -> str | None:
    """The host name of an ``http``/``https`` Origin, lower case; ``None`` for anything else."""
    try:
        parts = urllib.parse.urlsplit(origin)
        hostname = parts.hostname
        parts.port  # noqa: B018 - raises for a bad port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not hostname:
        return None
    return hostname.lower()


def host_allowed(value: str | None, names: Collection[str]) -> bool:
    """Whether a Host header names an allowed host (a missing one never does)."""
    return value is not None and host_name(value) in names


def origin_allowed(value: str | None, names: Collection[str]) -> bool:
    """Whether an Origin header is absent (not a browser's cross-site request) or allowed."""
    return value is None or origin_name(value) in names


def token_matches(given: str, token: bytes) -> bool:
    """``given`` (surrounding blanks ignored) equals ``token``, compared in constant time."""
    return hmac.compare_digest(given.strip().encode("utf-8"), token)


def bearer_matches(authorization: str | None, token: bytes) -> bool:
    """An ``Authorization: Bearer <token>`` header (the scheme in any case) with ``token``."""
    scheme, _, value = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and bool(value.strip()) and token_matches(value, token)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: a free port), ``TCP_NODELAY`` set."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP (not 0): asyncio sets TCP_NODELAY only on sockets that say they
    # are TCP; without it Nagle + delayed ACK add ~40 ms to every response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


@attrs.frozen
class Refusal:
    """Why a request is refused: an HTTP ``status``, a one-line ``message`` and extra
    ``headers``; itself an ASGI app answering ``{"error": message}`` as JSON."""

    status: int
    message: str
    headers: tuple[tuple[bytes, bytes], ...] = ()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = json.dumps({"error": self.message}, separators=(",", ":")).encode("utf-8")
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store"),
            *self.headers,
        ]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def header(scope: Scope, name: bytes) -> str | None:
    """The first ``name`` header (lower case) of an ASGI ``scope``, latin-1 decoded."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def check_request(settings: ServeSettings, scope: Scope) -> Refusal | None:
    """``None`` when an HTTP request may go on, else the :class:`Refusal` it gets.

    In this order: a ``Host`` naming none of ``settings.allowed_names`` is 421; an
    ``Origin``, when sent, naming none of them 403; without ``Authorization: Bearer
    <settings.token>`` (when a token is set) 401. Only the 401 is a caller's to
    override with a credential of its own (the inspector's login cookie).
    """
    names = settings.allowed_names
    if not host_allowed(header(scope, b"host"), names):
        return Refusal(421, "this Host is not allowed (use --allowed-host NAME)")
    if not origin_allowed(header(scope, b"origin"), names):
        return Refusal(403, "this Origin is not allowed")
    if settings.token is not None and not bearer_matches(
        header(scope, b"authorization"), settings.token.encode("utf-8")
    ):
        return Refusal(
            401,
            "missing or wrong bearer token (send Authorization: Bearer <token>)",
            ((b"www-authenticate", b'Bearer realm="skillstate"'),),
        )
    return None
