"""One POST, one answer: a single exchange for stateless 2025-era Streamable HTTP requests.

In stateless mode the SDK serves every POST as a whole MCP connection of its own: a
new transport, a server task in the session manager's task group, two pairs of memory
streams, a message router, a JSON-RPC dispatcher and a runner, torn down again after
the answer — and it parses the body a second time, after the gate
(:mod:`skillstate_plugins.mcp.http`) has parsed it once for framing. For a 2025-era POST that
carries one JSON-RPC request none of that can change the answer: the dispatcher hands
the request to the runner and writes back what it returns (or the error its exception
maps to), and the transport puts that one message in a JSON body.

:class:`StatelessExchange` does exactly that in the request's own task, with the SDK's
pieces (:class:`skillstate_plugins.mcp.sdk.HttpExchangeKit`): the same born-ready
``Connection`` seeded from ``MCP-Protocol-Version`` (or the spec's default), the same
request metadata (the Starlette request; no back-channel), the runner's own
single-request driver ``serve_one`` — so the middleware chain, the ``tools/call`` fast
path, ``initialize`` and the per-method validation are the SDK's —, the dispatcher's
mapping of exceptions to errors, and the transport's encoding of the answer (status
200, ``Content-Type: application/json``, no ``Mcp-Session-Id``; a reply that cannot be
encoded is the transport's 500 with a JSON-RPC error, never an exception out of the app). The SDK's 2026-era
entry does the same for its protocol (``mcp.server._streamable_http_modern``).

It takes a POST only when every check the SDK's path makes in front of the handler
passes: the SDK's own Host/Origin/Content-Type check (``TransportSecurityMiddleware``),
an ``Accept`` with ``application/json``, a JSON ``Content-Type`` as the transport reads
it, an ``MCP-Protocol-Version`` that is absent or a handshake-era version, and a body
that is one JSON-RPC request (the gate's parse, the SDK's message model). Anything else —
a notification, a response, a 2026-era header, a refused header — goes to the SDK's
path, which answers it as before. The gate (Host/Origin, token, body size and time,
framing) stays in front of both, and tool calls still run on worker threads
(:mod:`skillstate_plugins.mcp.offload`): the exchange awaits the same handler.

``SKILLSTATE_MCP_HTTP_EXCHANGE=off`` (or ``SKILLSTATE_MCP_SDK_INTERNALS=off``, or an SDK
version skillstate does not know) sends every POST the SDK's way;
tests/mcp/test_mcp_http_exchange.py sends one seeded series of requests to a server
with the exchange and one without and compares the answers.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Any

import anyio
from mcp.server.streamable_http import check_accept_headers
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCRequest, JSONRPCResponse
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope

from skillstate_plugins.mcp import sdk

__all__ = ["EXCHANGE_ENV", "StatelessExchange", "exchange_enabled", "stateless_exchange"]

log = logging.getLogger("skillstate_plugins.mcp")

EXCHANGE_ENV = "SKILLSTATE_MCP_HTTP_EXCHANGE"
"""Set to ``off`` to serve every POST through the SDK's stateless path."""

_PROTOCOL_HEADER = b"mcp-protocol-version"
_JSON = "application/json"


def exchange_enabled() -> bool:
    """Whether :data:`EXCHANGE_ENV` leaves the single exchange on (the default)."""
    return os.environ.get(EXCHANGE_ENV, "").strip().lower() not in ("off", "0", "false", "no")


class _ExchangeContext:
    """The dispatch context of one stateless POST: no back-channel, notifications dropped.

    As on the SDK's path in JSON-response mode: a request the server sends raises
    ``NoBackChannelError`` (``can_send_request`` is false), and a notification tied to
    the request (progress, log messages) has no wire in a JSON body, so the transport's
    router drops it.
    """

    __slots__ = (
        "_no_back_channel",
        "cancel_requested",
        "message_metadata",
        "request_id",
        "transport",
    )

    can_send_request = False

    def __init__(self, kit: sdk.HttpExchangeKit, request_id: Any, metadata: Any) -> None:
        self.transport = kit.transport
        self.request_id = request_id
        self.message_metadata = metadata
        self.cancel_requested = anyio.Event()
        self._no_back_channel = kit.no_back_channel

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> dict[str, Any]:
        raise self._no_back_channel(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        log.debug("dropped %s: a JSON response carries only the answer", method)

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        return None


def _json_content_type(value: str) -> bool:
    """The transport's Content-Type check: ``application/json`` among the media types."""
    return any(part.strip() == _JSON for part in value.split(";")[0].split(","))


class StatelessExchange:
    """Answers a stateless 2025-era POST of one JSON-RPC request as the SDK's path would."""

    def __init__(self, kit: sdk.HttpExchangeKit, security: TransportSecuritySettings) -> None:
        self.kit = kit
        self.security = TransportSecurityMiddleware(security)
        self._in_flight: set[anyio.CancelScope] = set()
        self._closing = False

    async def close(self) -> None:
        """End the answers still running, as the session manager's shutdown ends the SDK's
        path's handlers: each is cancelled (a call on a worker thread still finishes
        first) and answered with the transport's 500; returns once none is left."""
        self._closing = True
        while self._in_flight:
            for scope in list(self._in_flight):
                scope.cancel()
            await anyio.sleep(0.01)

    async def answer(self, scope: Scope, receive: Receive, message: Any) -> Response | None:
        """The response for this POST (body already read: ``receive`` replays it), or
        ``None`` when the SDK's path must answer it."""
        kit = self.kit
        if type(message) is not JSONRPCRequest or not kit.running():
            return None
        version = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k == _PROTOCOL_HEADER), None
        )
        if version is not None and version not in kit.handshake_versions:
            return None  # the 2026 era: the SDK's own single-exchange entry
        request = Request(scope, receive)
        if await self.security.validate_request(request, is_post=True) is not None:
            return None
        if not check_accept_headers(request)[0]:
            return None
        if not _json_content_type(request.headers.get("content-type", "")):
            return None
        connection = kit.from_envelope(version or kit.default_version, None, None)
        metadata = kit.metadata(request_context=request, can_send_request=False)
        context = _ExchangeContext(kit, message.id, metadata)
        reply: JSONRPCResponse | JSONRPCError | None = None
        ended = anyio.CancelScope()
        self._in_flight.add(ended)
        if self._closing:
            ended.cancel()
        try:
            with ended:
                try:
                    result = await kit.serve_one(
                        kit.lowlevel,
                        context,
                        message.method,
                        message.params,
                        connection=connection,
                        lifespan_state=kit.lifespan_state(),
                    )
                    reply = JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)
                except Exception as exc:  # the dispatcher's boundary: a failure is an error
                    error = kit.error_data(exc)
                    if error is None:
                        kit.dispatcher_log.exception("handler for %r raised", message.method)
                        error = ErrorData(code=0, message=str(exc))
                    reply = JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
        finally:
            self._in_flight.discard(ended)
        if reply is None:  # ended by close(): the server shuts down
            log.debug("request %r ended by the shutdown", message.id)
            return _transport_error("Session terminated before the request completed")
        try:
            body = reply.model_dump_json(by_alias=True, exclude_unset=True)
        except Exception:  # the transport's boundary: a reply it cannot encode is a 500
            kit.transport_log.exception("Error handling POST request")
            return _transport_error("Error handling POST request")
        return Response(body, status_code=200, headers={"Content-Type": _JSON})


def _transport_error(text: str) -> Response:
    """The SDK transport's 500: a JSON-RPC error without an id (``_create_error_response``)."""
    failed = JSONRPCError(
        jsonrpc="2.0", id=None, error=ErrorData(code=INTERNAL_ERROR, message=text)
    )
    return Response(
        failed.model_dump_json(by_alias=True, exclude_unset=True),
        status_code=500,
        headers={"Content-Type": _JSON},
    )


def stateless_exchange(
    server: Any, security: TransportSecuritySettings
) -> StatelessExchange | None:
    """The single exchange for ``server``'s stateless JSON app, or ``None`` when it is off
    (:data:`EXCHANGE_ENV`, the SDK internals off or unknown, or an app it does not fit)."""
    if not exchange_enabled():
        return None
    kit = sdk.http_exchange_kit(server)
    return None if kit is None else StatelessExchange(kit, security)
