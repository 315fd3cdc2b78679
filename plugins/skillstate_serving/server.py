"""The HTTP server under every local surface: uvicorn, bounded, stopped by signals cleanly.

:func:`serve` binds :class:`~skillstate_serving.options.ServeSettings`' address
(:func:`~skillstate_serving.guard.bind`) and serves an ASGI app there with uvicorn, its
connections bounded: at most ``max_connections`` open at once (more get 503), a
request's headers must arrive within ``header_timeout`` (so a silent or slow-trickling
client is dropped), and an idle keep-alive connection is closed after ``keep_alive``
seconds. A second Ctrl-C still ends the app's lifespan. An address that cannot be
bound is :class:`PortInUse`, one line without a traceback (exit 3).

Signals: Ctrl-C (SIGINT) and SIGTERM both shut the server down gracefully (the
requests in flight are finished) and :func:`serve` returns 128 + the signal's number,
130 or 143, the code a shell shows for a process the signal ended — so the command
closes its store before it exits with it. SIGINT counts even when the parent ignored
it (:func:`sigint_heard`).

uvicorn is imported only when :func:`serve` runs: it is an extra's library.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import signal
import socket
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from skillstate.plugin import SkillstateError
from skillstate_serving.guard import Receive, Scope, Send, bind

if TYPE_CHECKING:
    from skillstate_serving.options import ServeSettings

__all__ = ["PortInUse", "Terminated", "serve", "sigint_heard", "sigterm_raises"]

ASGIApp = Callable[[Scope, Receive, Send], Any]


class PortInUse(SkillstateError):
    """The HTTP address is taken (another server listens there) or cannot be bound."""


class Terminated(BaseException):
    """SIGTERM arrived while :func:`sigterm_raises` was in force.

    A ``BaseException``, as :class:`KeyboardInterrupt` is, so that no ``except
    Exception`` on the way (a web framework's error handler) swallows it.
    """


def sigterm_raises(body: Callable[[], None]) -> None:
    """Run ``body()`` with SIGTERM raising :class:`Terminated` instead of ending the process.

    uvicorn handles SIGTERM as it handles Ctrl-C (a graceful shutdown) and then raises
    the signal again with the handler that was there before it: by default that ends the
    process, so the command never closes its store (at ``durability=process``, its
    pending syncs are not flushed by it). With this handler in place uvicorn's re-raise
    becomes :class:`Terminated`, caught once the shutdown is done. The previous handler
    is back once ``body`` returns or raises, so a second SIGTERM while the store closes
    ends the process as usual. Outside the main thread (where no handler can be set)
    ``body`` just runs.
    """

    def handler(signum: int, frame: Any) -> None:
        raise Terminated

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError, AttributeError):  # not the main thread; no SIGTERM here
        body()
        return
    try:
        body()
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def sigint_heard() -> Iterator[None]:
    """Around a server (main thread only): SIGINT is a ``KeyboardInterrupt`` (exit 130)
    even when the parent ignored it (``skillstate ui &`` in a script, then ``kill -INT``).

    uvicorn stops on SIGINT whatever its handler was, then raises it again with the
    handler it found: an ignored SIGINT stopped the server and the command exited 0.
    """
    try:
        found = signal.getsignal(signal.SIGINT)
    except ValueError:  # not the main thread
        found = None
    if found is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
        header_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.arm_header_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self.disarm_header_deadline()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.arm_header_deadline()  # still reading a request's headers
            else:
                self.disarm_header_deadline()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.disarm_header_deadline()  # between requests, the keep-alive timeout applies

        def arm_header_deadline(self) -> None:
            if self.header_deadline is None:
                self.header_deadline = self.loop.call_later(
                    header_timeout, self.header_deadline_passed
                )

        def disarm_header_deadline(self) -> None:
            if self.header_deadline is not None:
                self.header_deadline.cancel()
                self.header_deadline = None

        def header_deadline_passed(self) -> None:
            self.header_deadline = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11Protocol


def _lifespan_ending_server() -> type[Any]:
    import uvicorn

    class LifespanEndingServer(uvicorn.Server):
        """uvicorn's server, whose shutdown ends the app's lifespan after a second Ctrl-C too.

        uvicorn's forced shutdown (Ctrl-C again while it shuts down) skips the lifespan's
        shutdown, leaving the app's background tasks running; ``asyncio.run`` then
        cancels them and uvicorn logs a traceback. Here the lifespan always ends (its
        tasks cancelled in order); the connections are still not waited for.
        """

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            await super().shutdown(sockets=sockets)
            ended = getattr(self.lifespan, "shutdown_event", None)
            if self.force_exit and ended is not None and not ended.is_set():
                await self.lifespan.shutdown()

    return LifespanEndingServer


async def _run(
    app: ASGIApp,
    sock: socket.socket,
    settings: ServeSettings,
    ready: Callable[[int], None] | None,
) -> None:
    import uvicorn

    config = uvicorn.Config(
        app,
        log_level="warning",
        lifespan="on",
        access_log=False,
        http=_protocol(settings.header_timeout),
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=max(1, round(settings.keep_alive)),
        h11_max_incomplete_event_size=settings.max_header_bytes,
    )
    server = _lifespan_ending_server()(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started and ready is not None:
        ready(sock.getsockname()[1])
    await task


def serve(
    app: ASGIApp, settings: ServeSettings, *, ready: Callable[[int], None] | None = None
) -> int:
    """Serve ``app`` on ``settings``' address until a signal stops it; the exit code.

    ``ready(port)`` is called once the server listens (``port`` is the bound one, for
    ``--port 0``). Returns 130 after SIGINT and 143 after SIGTERM, each once the
    server has shut down gracefully; raises :class:`PortInUse` when the address cannot
    be bound.
    """
    sock = _bind(settings.host, settings.port)
    try:
        with sigint_heard():  # 130 even when SIGINT was ignored at start
            sigterm_raises(lambda: asyncio.run(_run(app, sock, settings, ready)))
    except KeyboardInterrupt:  # uvicorn shut down first, then re-raised the SIGINT
        return 128 + signal.SIGINT
    except Terminated:  # the same for SIGTERM
        return 128 + signal.SIGTERM
    finally:
        sock.close()
    return 0
