"""Serving the inspector: bind, start uvicorn, print the URL once it listens."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from skillstate.netguard import bind

if TYPE_CHECKING:
    from starlette.types import ASGIApp

__all__ = ["DEFAULT_PORT", "bind", "serve"]

DEFAULT_PORT = 3212


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
