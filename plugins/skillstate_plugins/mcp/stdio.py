"""Serving over stdio: the SDK's stdio transport, or the same protocol fed by asyncio pipes.

Both serve the server's low-level ``Server`` (the SDK's public ``Server.run(read, write,
options)``; an ``MCPServer`` hands it out as ``server.session_manager.app`` once its
``streamable_http_app()`` is built, which is how it is reached here). Message parsing
(the SDK's ``jsonrpc_message_adapter``), dispatch and serialisation
(``model_dump_json``) are the SDK's in both.

- ``sdk`` — the SDK's ``stdio_server()`` given the standard streams: it reads and
  writes them through ``anyio.wrap_file``, i.e. a worker-thread hand-off per line read
  and two per response written (write, flush), plus a reader task and a writer task
  joined to the server by memory streams.
- ``fast`` (default) — the server's read and write streams are the pipes themselves:
  non-blocking asyncio pipe readers and writers, each line parsed and each response
  serialised by the same SDK calls ``stdio_server`` makes, with no thread hand-off, no
  extra task and no memory stream in between. When stdin or stdout is not a pipe,
  socket or terminal (a regular file), it falls back to ``sdk``.

In both, fd 0 points at the null device and fd 1 at stderr while serving (the wire is
a private duplicate of each), so a stray ``print`` cannot corrupt the wire, and a line
the SDK cannot parse, or a request whose id it cannot use (``1.5``, ``true``, ``null``),
is answered here (:mod:`.framing`): the SDK would drop it, leaving the client waiting;
an integral id such as ``1e2`` is the integer it equals. Both pass the same client tests.

A line longer than ``max_line`` bytes is dropped (logged), the rest of the stream
is served; the SDK answers nothing for it, as for any unparsable line.

Ctrl-C cancels the server once (:func:`run_interruptible`); a second one while it shuts
down waits for that shutdown instead of interrupting it, a third ends the process at
once (exit 130).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import stat
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager, suppress
from typing import Any, Self

import anyio
from mcp.server import MCPServer
from mcp.shared.message import SessionMessage

from .framing import encode, read

__all__ = ["DEFAULT_MAX_LINE", "TRANSPORTS", "run_interruptible", "serve_stdio"]

log = logging.getLogger("skillstate_plugins.mcp")

TRANSPORTS = ("fast", "sdk")
DEFAULT_MAX_LINE = 64 * 1024 * 1024


class _Closable:
    """``aclose`` and the async context manager the SDK's stream protocols ask for."""

    _closed = False

    async def aclose(self) -> None:
        self._closed = True

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _LineReadStream(_Closable):
    """The SDK's read side over a pipe: each line parsed by the SDK's own message adapter.

    What ``stdio_server``'s reader task does per line (``jsonrpc_message_adapter
    .validate_json``), without the task and the memory stream between; a line the SDK
    would drop (it cannot parse it, or reads a request with an unusable id as a
    notification) is answered here instead (:func:`.framing.read`).
    Blank lines are skipped; a line longer than the reader's limit is dropped (logged).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        answer: Callable[[list[dict[str, Any]]], Awaitable[None]],
    ) -> None:
        self._reader = reader
        self._answer = answer

    async def receive(self) -> SessionMessage | Exception:
        if self._closed:
            raise anyio.ClosedResourceError
        while True:
            message, _, errors = read(await self._line())
            if message is not None:
                return SessionMessage(message)
            await self._answer(errors)  # the SDK would drop it: answered here

    async def _line(self) -> bytes:
        while True:
            try:
                line = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # end of input
                line = exc.partial
                if not line:
                    raise anyio.EndOfStream from None
            except asyncio.LimitOverrunError as exc:  # longer than the reader's limit
                log.warning("dropped an input line longer than the stdio line limit")
                await self._skip_rest(exc.consumed)
                continue
            if line.strip():
                return line

    async def _skip_rest(self, consumed: int) -> None:
        """Discard the over-long line, up to and including its newline, and no further.

        (``StreamReader.readline`` cannot be used here: after its limit error it has
        either consumed the newline or not, and the caller cannot tell which, so the
        line after a long one could be swallowed with it.)
        """
        while True:
            await self._reader.readexactly(consumed)
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                consumed = exc.consumed
            except asyncio.IncompleteReadError:
                return

    def __aiter__(self) -> _LineReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _WireProtocol(asyncio.Protocol):
    """The write pipe's protocol: asyncio's flow control (``pause_writing`` /
    ``resume_writing``) as an event a writer waits on, and the pipe's loss."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.lost = False

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.writable.set()


class _LineWriteStream(_Closable):
    """The SDK's write side onto a pipe: each message serialised as ``stdio_server`` does it.

    ``model_dump_json(by_alias=True, exclude_unset=True)`` plus a newline, written in one
    call to the pipe transport (so concurrent responses never interleave), then the
    transport's flow control is honoured.
    """

    def __init__(self, transport: asyncio.WriteTransport, protocol: _WireProtocol) -> None:
        self._transport = transport
        self._protocol = protocol

    async def _write(self, data: bytes) -> None:
        if self._protocol.lost:
            raise anyio.BrokenResourceError
        self._transport.write(data)
        await self._protocol.writable.wait()

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        text = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        await self._write(text.encode("utf-8") + b"\n")

    async def answer(self, replies: list[dict[str, Any]]) -> None:
        """Write the JSON-RPC errors owed for a line the SDK would drop."""
        if replies and not self._closed:
            await self._write(b"".join(encode(reply) + b"\n" for reply in replies))


def _is_streamable(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


@contextmanager
def _wire() -> Iterator[tuple[int, int]]:
    """Private duplicates of fd 0 and 1 (the wire), with fd 0 pointed at the null device
    and fd 1 at stderr meanwhile; both restored on exit. Yields (wire in, wire out)."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    saved_in, saved_out = os.dup(0), os.dup(1)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    os.close(devnull)
    try:
        yield wire_in, wire_out
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


@asynccontextmanager
async def _pipe_streams(max_line: int) -> AsyncIterator[tuple[_LineReadStream, _LineWriteStream]]:
    loop = asyncio.get_running_loop()
    read_transport: Any = None
    write_transport: Any = None
    with _wire() as (wire_in, wire_out):
        try:
            reader = asyncio.StreamReader(limit=max_line)
            read_transport, _ = await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", buffering=0)
            )
            write_transport, protocol = await loop.connect_write_pipe(
                _WireProtocol, os.fdopen(wire_out, "wb", buffering=0)
            )
            writer = _LineWriteStream(write_transport, protocol)
            yield _LineReadStream(reader, writer.answer), writer
        finally:
            for transport in (read_transport, write_transport):
                if transport is not None:
                    with suppress(Exception):
                        transport.close()


class _GuardedOut:
    """The SDK transport's stdout: its writes, and the answers to refused lines, in turn."""

    def __init__(self, file: Any) -> None:
        self._file = file
        self._lock = anyio.Lock()

    async def write(self, text: str) -> None:
        async with self._lock:
            await self._file.write(text.encode("utf-8"))

    async def flush(self) -> None:
        async with self._lock:
            await self._file.flush()

    async def answer(self, replies: list[dict[str, Any]]) -> None:
        if replies:
            async with self._lock:
                await self._file.write(b"".join(encode(reply) + b"\n" for reply in replies))
                await self._file.flush()


class _GuardedIn:
    """The SDK transport's stdin: the lines it can parse; the others are answered here."""

    def __init__(self, file: Any, out: _GuardedOut) -> None:
        self._file = file
        self._out = out

    def __aiter__(self) -> _GuardedIn:
        return self

    async def __anext__(self) -> str:
        while True:
            line: bytes = await self._file.readline()
            if not line:
                raise StopAsyncIteration
            if not line.strip():
                continue
            message, text, errors = read(line)
            if message is None:  # the SDK would drop it: answered here
                await self._out.answer(errors)
                continue
            return text.decode("utf-8") if isinstance(text, bytes) else text


@asynccontextmanager
async def _sdk_streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` (its reader and writer tasks) over guarded duplicates of fd 0/1."""
    from mcp.server.stdio import stdio_server

    with _wire() as (wire_in, wire_out):
        with os.fdopen(wire_in, "rb") as raw_in, os.fdopen(wire_out, "wb") as raw_out:
            out = _GuardedOut(anyio.wrap_file(raw_out))
            guarded_in: Any = _GuardedIn(anyio.wrap_file(raw_in), out)
            guarded_out: Any = out
            async with stdio_server(stdin=guarded_in, stdout=guarded_out) as streams:
                yield streams


def lowlevel_server(server: MCPServer[Any]) -> Any:
    """``server``'s low-level ``Server``, through the SDK's public ``session_manager``.

    ``MCPServer`` runs its low-level server on stdio only over the process's own
    standard streams (``run_stdio_async``); to serve it over streams of our own (the
    guarded or the pipe streams here) we need that server, which the SDK hands out as
    the session manager's ``app`` once ``streamable_http_app()`` has built it.
    """
    server.streamable_http_app()
    return server.session_manager.app


async def _serve(server: MCPServer[Any], transport: str, max_line: int) -> None:
    lowlevel = lowlevel_server(server)
    options = lowlevel.create_initialization_options()
    if transport == "fast" and not (_is_streamable(0) and _is_streamable(1)):
        log.info("stdin/stdout are not pipes; using the SDK's stdio transport")
        transport = "sdk"
    if transport == "sdk":
        async with _sdk_streams() as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, options)
        return
    async with _pipe_streams(max_line) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, options)


def serve_stdio(
    server: MCPServer[Any], transport: str = "fast", *, max_line: int = DEFAULT_MAX_LINE
) -> None:
    """Serve ``server`` on this process's stdin/stdout until stdin closes."""
    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    run_interruptible(_serve(server, transport, max_line))


def run_interruptible(main: Coroutine[Any, Any, None]) -> None:
    """``asyncio.run(main)``; Ctrl-C cancels ``main`` once, then :class:`KeyboardInterrupt`.

    ``asyncio.run`` raises :class:`KeyboardInterrupt` for a second Ctrl-C wherever the
    shutdown it started has got to — inside anyio's cancel scopes or the SDK's task
    groups — which can leave a task that never ends (the process hangs) or end in an
    exception group (a traceback, exit 1). Here a second Ctrl-C is held until the
    shutdown is done; a third ends the process at once with exit 130.
    """
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        asyncio.run(main)  # not ours to handle (a thread, or SIGINT handled elsewhere)
        return
    interrupts = 0
    running: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[None]]] = []

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupts
        interrupts += 1
        if not running:
            raise KeyboardInterrupt  # not serving yet: nothing to shut down in order
        if interrupts == 1:
            loop, task = running[0]
            loop.call_soon_threadsafe(task.cancel)
        elif interrupts >= 3:
            os._exit(130)  # ExitCode.INTERRUPT; asked three times

    async def serve() -> None:
        task = asyncio.current_task()
        assert task is not None
        running.append((asyncio.get_running_loop(), task))
        await main

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with asyncio.Runner() as runner:
            try:
                runner.run(serve())
            except asyncio.CancelledError:
                if not interrupts:
                    raise
        if interrupts:
            raise KeyboardInterrupt
    finally:
        signal.signal(signal.SIGINT, previous)
