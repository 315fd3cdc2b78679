"""Streamable HTTP: the SDK's app at ``/mcp`` behind a gate, plus ``GET /health``.

Every request passes the gate, in this order:

1. **Host** must be an allowed name (421) and **Origin**, when sent, an allowed origin
   (403) — DNS-rebinding protection, on for every bind address. Allowed: the loopback
   names (``127.0.0.1``, ``localhost``, ``[::1]``, any port), the ``--host`` itself when
   it is a concrete address, and each ``--allowed-host``.
2. **Bearer token** (when configured): ``Authorization: Bearer <token>`` on every
   request, ``/health`` included (401 otherwise, compared in constant time).
3. **Body size**: a declared ``Content-Length`` over the limit gets 413 with a JSON
   error naming the limit; the SDK enforces the same limit on streamed bodies.

``/mcp`` is the SDK's Streamable HTTP transport, stateless with JSON responses:
no ``Mcp-Session-Id`` is needed, so any number of server processes can serve the same
skill sessions through a shared store (file on one machine, SQLite, PostgreSQL).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import socket
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_PORT",
    "HttpGate",
    "http_app",
    "mask_url",
    "run_http",
    "security_settings",
]

log = logging.getLogger("skillstate.mcp")

DEFAULT_PORT = 3211
DEFAULT_MAX_BODY = 1024 * 1024
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _bracket(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def security_settings(host: str, allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Host/Origin allow-lists: loopback names, a concrete ``host``, and ``allowed_hosts``."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    if host not in LOOPBACK and host not in ("0.0.0.0", "::", ""):
        names.append(_bracket(host))
    names.extend(_bracket(name) for name in allowed_hosts)
    hosts: list[str] = []
    origins: list[str] = []
    for name in dict.fromkeys(names):
        hosts += [name, f"{name}:*"]
        for scheme in ("http", "https"):
            origins += [f"{scheme}://{name}", f"{scheme}://{name}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def mask_url(url: str) -> str:
    """A store URL fit for display: any password replaced by ``***``."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return url.split(":", 1)[0] + ":…"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def _json(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(body, separators=(",", ":"), ensure_ascii=False),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


class HttpGate:
    """The ASGI gate in front of the SDK app: Host/Origin, token, body size, ``/health``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        security: TransportSecuritySettings,
        health: Callable[[], Awaitable[dict[str, Any]]],
        token: str | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        ui: ASGIApp | None = None,
    ) -> None:
        self.app = app
        self.ui = ui
        self.checker = TransportSecurityMiddleware(security)
        self.health = health
        self.token = token.encode("utf-8") if token else None
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if self.ui is not None and (path == "/ui" or path.startswith("/ui/")):
            await self.ui(scope, receive, send)  # the inspector has its own gate
            return
        response = await self._refusal(Request(scope))
        if response is None and scope["path"] == "/health":
            response = _json(200, await self.health())
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _refusal(self, request: Request) -> Response | None:
        refused = await self.checker.validate_request(request, is_post=False)
        if refused is not None:
            return refused
        if self.token is not None and not self._authorized(request):
            return _json(
                401,
                {"error": "missing or wrong bearer token (send Authorization: Bearer <token>)"},
                {"WWW-Authenticate": 'Bearer realm="skillstate"'},
            )
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            return _json(
                413,
                {
                    "error": f"request body is {int(declared)} bytes, over the {self.max_body}-byte "
                    "limit (skillstate mcp --max-body)"
                },
            )
        return None

    def _authorized(self, request: Request) -> bool:
        assert self.token is not None
        header = request.headers.get("authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(value.strip().encode("utf-8"), self.token)


def http_app(
    server: MCPServer[Any],
    *,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    health: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    ui: ASGIApp | None = None,
) -> HttpGate:
    """The ASGI app: ``/mcp`` (the SDK's stateless Streamable HTTP, JSON responses) and ``/health``.

    ``ui`` (``skillstate mcp --http --ui``): an app answering every path under ``/ui``
    — the run inspector (:func:`skillstate.ui.ui_app` with ``prefix="/ui"``), which
    checks Host, Origin and the token itself.
    """
    if max_body < 1:
        raise ValueError(f"max_body must be a positive number of bytes, got {max_body}")
    security = security_settings(host, allowed_hosts)
    inner = server.streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        stateless_http=True,
        max_request_body_size=max_body,
        transport_security=security,
        host=host,
    )

    async def default_health() -> dict[str, Any]:
        return {"status": "ok", "server": {"name": server.name, "version": server.version}}

    return HttpGate(
        inner,
        security=security,
        health=health or default_health,
        token=token,
        max_body=max_body,
        ui=ui,
    )


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto IPPROTO_TCP (not 0): asyncio sets TCP_NODELAY only on sockets that say they
    # are TCP; without it Nagle + delayed ACK add ~40 ms to every response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


async def _run(app: ASGIApp, host: str, port: int, banner: Callable[[int], str]) -> None:
    import uvicorn

    sock = _bind(host, port)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(banner(sock.getsockname()[1]), file=sys.stderr, flush=True)
    await task


def run_http(app: ASGIApp, host: str, port: int, banner: Callable[[int], str]) -> None:
    """Serve ``app`` with uvicorn on ``host:port`` (0 = a free port); ``banner(port)`` goes to stderr."""
    asyncio.run(_run(app, host, port, banner))
