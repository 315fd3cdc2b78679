"""Streamable HTTP: the SDK's app at ``/mcp`` behind a gate, plus ``GET /health``.

Every request passes the gate, in this order:

1. **Host** must be an allowed name (421) and **Origin**, when sent, an allowed origin
   (403) — DNS-rebinding protection, on for every bind address. Allowed: the loopback
   names (``127.0.0.1``, ``localhost``, ``[::1]``, any port), the ``--host`` itself when
   it is a concrete address, and each ``--allowed-host``.
2. **Bearer token** (when configured): ``Authorization: Bearer <token>`` on every
   request, ``/health`` included (401 otherwise, compared in constant time).
3. **Body size**: a declared ``Content-Length`` over the limit gets 413 with a JSON
   error naming the limit; a streamed body over it gets the same. A body that takes
   longer than ``body_timeout`` (30 s) to arrive gets 408.
4. **JSON-RPC framing**: a ``POST /mcp`` body the SDK cannot take (not UTF-8, a lone
   surrogate escape, ``params`` that is an array, a batch, not JSON) gets 400 with the
   JSON-RPC error(s) it is owed, carrying the request's id (:mod:`skillstate_plugins.mcp.framing`);
   a batch gets an array of them. A request whose id is not a string or an integer
   (``1.5``, ``true``, ``null``, an object), which the SDK would take for a notification
   and answer 202 with no body, gets 400 with an error whose id is ``null``; an
   integral id (``1e2``) is the integer it equals.

``GET /mcp`` (the server-initiated event stream) answers 405: the server is stateless,
so there is nothing it could push, and an event stream held open would be held
forever. ``/health`` answers 200 with the server and store status, or 503 with JSON
when the store fails or does not answer within ``health_timeout`` (5 s).

The server that runs it (:func:`skillstate_serving.serve`) bounds connections: at
most ``max_connections`` open at once, a deadline for each request's headers, idle
keep-alive connections closed.

The Host, Origin and token checks are the serving kit's
(:func:`skillstate_serving.check_request`), shared with the run inspector's gate (an app another plugin registers under ``"ui"``, mounted at
``/ui`` with ``--ui``: :mod:`.hookspecs`).

``/mcp`` is the SDK's Streamable HTTP transport (``MCPServer.streamable_http_app``),
stateless with JSON responses: no ``Mcp-Session-Id`` is needed, so any number of
server processes can serve the same skill sessions through a shared store (file on one
machine, SQLite, PostgreSQL).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from skillstate_serving import ServeSettings, check_request
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from skillstate.plugin import SkillstateError

from .framing import INVALID_REQUEST, error_message, read
from .scrub import scrub

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_PORT",
    "HttpGate",
    "http_app",
    "security_settings",
]

log = logging.getLogger("skillstate_plugins.mcp")

DEFAULT_PORT = 3211
DEFAULT_MAX_BODY = 1024 * 1024


def _bracket(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def security_settings(host: str, allowed_hosts: Sequence[str] = ()) -> TransportSecuritySettings:
    """Host/Origin allow-lists: loopback names, a concrete ``host``, and ``allowed_hosts``
    (the names the serving kit's gate accepts, in the SDK's pattern form)."""
    names = sorted(ServeSettings(host=host, allowed_hosts=allowed_hosts).allowed_names)
    hosts: list[str] = []
    origins: list[str] = []
    for name in map(_bracket, names):
        hosts += [name, f"{name}:*"]
        for scheme in ("http", "https"):
            origins += [f"{scheme}://{name}", f"{scheme}://{name}:*"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


OAUTH_DISCOVERY = (
    "/.well-known/oauth-protected-resource",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
)
"""The paths a client probes for OAuth (RFC 9728, RFC 8414, OpenID discovery)."""
NO_OAUTH = "this server does not use OAuth: send Authorization: Bearer <token> when it has one"


def _json(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(
        json.dumps(body, separators=(",", ":"), ensure_ascii=False),
        status_code=status,
        media_type="application/json",
        headers=headers,
    )


class HttpGate:
    """The ASGI gate in front of the SDK app: Host/Origin, token, body, framing, ``/health``."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        health: Callable[[], Awaitable[dict[str, Any]]],
        host: str = "127.0.0.1",
        allowed_hosts: Sequence[str] = (),
        token: str | None = None,
        max_body: int = DEFAULT_MAX_BODY,
        body_timeout: float = 30.0,
        health_timeout: float = 5.0,
        ui: ASGIApp | None = None,
    ) -> None:
        self.app = app
        self.ui = ui
        self.settings = ServeSettings(host=host, allowed_hosts=allowed_hosts, token=token)
        self.health = health
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.health_timeout = health_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if self.ui is not None and (path == "/ui" or path.startswith("/ui/")):
            await self.ui(scope, receive, send)  # the inspector has its own gate
            return
        refusal = check_request(self.settings, scope)
        response: Any = refusal or self._declared_too_large(scope)
        if path.startswith(OAUTH_DISCOVERY) and (refusal is None or refusal.status == 401):
            # no OAuth here: a 404, not a 401, so a client (MCP Inspector 2.x) asks for the
            # bearer token instead of starting an OAuth login (Host/Origin refusals stand)
            response = _json(404, {"error": NO_OAUTH})
        if response is None and scope["path"] == "/health":
            response = await self._health()
        if response is None and scope["path"] == "/mcp":
            if scope["method"] == "GET":
                response = _json(
                    405,
                    {
                        "error": "this server is stateless: there is no event stream to open; "
                        "POST requests to /mcp"
                    },
                    {"Allow": "POST, DELETE"},
                )
            elif scope["method"] == "POST":
                body, response = await self._body(receive)
                if response is None:
                    assert body is not None
                    response, fixed = _framing(body)
                    if fixed != body:  # an integral id written as an integer (1e2: 100)
                        scope = _with_length(scope, len(fixed))
                    receive = _replay(fixed, receive)
        if response is not None:
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _health(self) -> Response:
        try:
            with anyio.fail_after(self.health_timeout):
                return _json(200, await self.health())
        except TimeoutError:
            why = f"the store did not answer within {self.health_timeout:g} s"
        except SkillstateError as exc:
            why = scrub(str(exc))
        except OSError as exc:
            why = scrub(f"the store failed: {exc.strerror or type(exc).__name__}")
        except Exception as exc:  # the health check must answer whatever the store does
            log.warning("the health check failed: %s", type(exc).__name__)
            why = f"the store failed ({type(exc).__name__})"
        return _json(503, {"status": "unavailable", "error": why})

    async def _body(self, receive: Receive) -> tuple[bytes | None, Response | None]:
        """The whole request body (bounded in size and time), or the refusal."""
        chunks: list[bytes] = []
        size = 0
        try:
            with anyio.fail_after(self.body_timeout):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None, Response(status_code=400)
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.max_body:
                        return None, _too_large(size, self.max_body, "at least ")
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        return b"".join(chunks), None
        except TimeoutError:
            return None, _json(
                408,
                {"error": f"the request body did not arrive within {self.body_timeout:g} s"},
                {"Connection": "close"},
            )

    def _declared_too_large(self, scope: Scope) -> Response | None:
        declared = Request(scope).headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body:
            return _too_large(int(declared), self.max_body)
        return None


def _too_large(size: int, limit: int, prefix: str = "") -> Response:
    return _json(
        413,
        {
            "error": f"request body is {prefix}{size} bytes, over the {limit}-byte "
            "limit (skillstate mcp --max-body)"
        },
    )


def _framing(body: bytes) -> tuple[Response | None, bytes]:
    """``(None, the body for the SDK)``, or 400 with the JSON-RPC errors owed for ``body``
    when the SDK would not answer it (it cannot parse it, or reads a request with an
    unusable id as a notification: :func:`.framing.read`)."""
    message, text, replies = read(body)
    if message is not None:
        return None, text.encode("utf-8") if isinstance(text, str) else text
    if not replies:
        replies = [error_message(None, INVALID_REQUEST, "invalid notification or response")]
    is_batch = body.lstrip()[:1] == b"["
    payload = json.dumps(
        replies if is_batch else replies[0], separators=(",", ":"), ensure_ascii=True
    )
    return Response(payload, status_code=400, media_type="application/json"), body


def _with_length(scope: Scope, length: int) -> Scope:
    """``scope`` with its ``Content-Length`` header saying ``length``."""
    headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
    return {**scope, "headers": [*headers, (b"content-length", str(length).encode())]}


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands ``body`` on once, then waits on the real one (disconnects)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def http_app(
    server: MCPServer[Any],
    *,
    host: str = "127.0.0.1",
    allowed_hosts: Sequence[str] = (),
    token: str | None = None,
    max_body: int = DEFAULT_MAX_BODY,
    health: Callable[[], Awaitable[dict[str, Any]]] | None = None,
    health_timeout: float = 5.0,
    body_timeout: float = 30.0,
    ui: ASGIApp | None = None,
) -> HttpGate:
    """The ASGI app: ``/mcp`` (the SDK's stateless Streamable HTTP, JSON responses) and ``/health``.

    ``ui`` (``skillstate mcp --http --ui``): an app answering every path under ``/ui``
    — the run inspector, registered by its plugin under ``"ui"`` (:mod:`.hookspecs`) and
    built with ``prefix="/ui"``, which checks Host, Origin and the token itself.
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
        health=health or default_health,
        host=host,
        allowed_hosts=allowed_hosts,
        token=token,
        max_body=max_body,
        health_timeout=health_timeout,
        body_timeout=body_timeout,
        ui=ui,
    )
