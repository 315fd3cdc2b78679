"""The HTTP server under the MCP app (:mod:`skillstate_plugins.mcp.http`): uvicorn, bounded.

:func:`run_http` serves an ASGI app on a socket :func:`skillstate.netguard.bind` opened
and bounds its connections (:class:`ServerLimits`): at most ``max_connections`` open at
once (more get 503), a request's headers must arrive within ``header_timeout`` (10 s,
so a slow-trickling or silent client is dropped), and an idle keep-alive connection is
closed after 5 s. A second Ctrl-C still ends the app's lifespan. An address that cannot
be bound is :class:`PortInUse`, one line without a traceback.
"""

from __future__ import annotations

import asyncio
import errno
import socket
import sys
from collections.abc import Callable
from typing import Any

import attrs
from starlette.types import ASGIApp

from skillstate.errors import SkillstateError
from skillstate.netguard import bind

__all__ = ["DEFAULT_MAX_CONNECTIONS", "PortInUse", "ServerLimits", "run_http"]

DEFAULT_MAX_CONNECTIONS = 64


class PortInUse(SkillstateError):
    """The HTTP address is taken (another server listens there)."""


@attrs.frozen
class ServerLimits:
    """How the HTTP server bounds connections (see the module docs)."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout: float = 10.0
    keep_alive: float = 5.0
    max_header_bytes: int = 64 * 1024


def _bind(host: str, port: int) -> socket.socket:
    try:
        return bind(host, port)
    except OSError as exc:
        shown = f"[{host}]" if ":" in host else host
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(
                f"cannot listen on {shown}:{port}: the address is already in use "
                "(another server is there; choose another --port, or 0 for any free port)"
            ) from None
        raise PortInUse(
            f"cannot listen on {shown}:{port}: {exc.strerror or type(exc).__name__}"
        ) from None


def _protocol(header_timeout: float) -> type:
    """uvicorn's h11 protocol with a deadline for each request's headers.

    uvicorn times out only idle keep-alive connections; a client that connects and
    sends nothing, or trickles its headers a byte at a time, would hold its
    connection for ever. Here the headers of every request must be complete
    ``header_timeout`` seconds after its first byte (or after the connection opened).
    """
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self._arm()  # still reading a request's headers
            else:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._disarm()  # between requests, uvicorn's keep-alive timeout applies

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._expired)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _expired(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol


def _lifespan_ending_server() -> type[Any]:
    import uvicorn

    class LifespanEndingServer(uvicorn.Server):
        """uvicorn's server, whose shutdown ends the app's lifespan after a second Ctrl-C too.

        uvicorn's forced shutdown (Ctrl-C again while it shuts down) skips the lifespan's
        shutdown, leaving the MCP session manager's task running; ``asyncio.run`` then
        cancels it and uvicorn logs a traceback. Here the lifespan always ends (its tasks
        cancelled in order); the connections are still not waited for.
        """

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await super().shutdown(sockets=sockets)
            ended = getattr(self.lifespan, "shutdown_event", None)
            if self.force_exit and ended is not None and not ended.is_set():
                await self.lifespan.shutdown()

    return LifespanEndingServer


async def _run(
    app: ASGIApp, sock: socket.socket, banner: Callable[[int], str], limits: ServerLimits
) -> None:
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        access_log=False,
        http=_protocol(limits.header_timeout),
        limit_concurrency=limits.max_connections,
        timeout_keep_alive=max(1, round(limits.keep_alive)),
        h11_max_incomplete_event_size=limits.max_header_bytes,
    )
    server = _lifespan_ending_server()(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        print(banner(sock.getsockname()[1]), file=sys.stderr, flush=True)
    await task


def run_http(
    app: ASGIApp,
    host: str,
    port: int,
    banner: Callable[[int], str],
    limits: ServerLimits | None = None,
) -> None:
    """Serve ``app`` with uvicorn on ``host:port`` (0 = a free port); ``banner(port)`` goes to stderr.

    Raises :class:`PortInUse` (one line, no traceback) when the address cannot be bound.
    """
    sock = _bind(host, port)
    asyncio.run(_run(app, sock, banner, limits or ServerLimits()))
