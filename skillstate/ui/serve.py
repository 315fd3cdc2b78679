"""Serving the inspector: bind, start uvicorn, print the URL once it listens."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from starlette.types import ASGIApp

__all__ = ["DEFAULT_PORT", "bind", "serve"]

DEFAULT_PORT = 3212


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: a free port), TCP_NODELAY set."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


async def _run(app: ASGIApp, sock: socket.socket, ready: Callable[[int], None]) -> None:
    import uvicorn

    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.01)
    if server.started:
        ready(sock.getsockname()[1])
    await task


def serve(app: ASGIApp, sock: socket.socket, ready: Callable[[int], None]) -> None:
    """Serve ``app`` on ``sock`` until interrupted; ``ready(port)`` once it listens."""
    asyncio.run(_run(app, sock, ready))
