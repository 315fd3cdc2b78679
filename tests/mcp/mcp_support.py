"""Helpers for the MCP tests: real server processes (stdio and HTTP) and the SDK's ``Client``.

Every server runs ``.venv/bin/skillstate mcp`` as a subprocess, in a temporary working
directory, with its own store (``SKILLSTATE_STORE``).
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from support import SKILLSTATE, TIMEOUT, ServerProcess, initialize_request, server_env

__all__ = [
    "INITIALIZED",
    "SKILLSTATE",
    "HttpServer",
    "http_client",
    "initialize_request",
    "raw_initialize",
    "serve_raw",
    "server_env",
    "start_http",
    "stdio_client_for",
    "text_of",
]


@asynccontextmanager
async def stdio_client_for(
    store_url: str,
    cwd: Path,
    transport: str = "fast",
    args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    mode: str = "auto",
) -> AsyncIterator[Client]:
    """A connected ``Client`` over a fresh ``skillstate mcp`` stdio subprocess."""
    params = StdioServerParameters(
        command=SKILLSTATE,
        args=["mcp", "--transport", transport, *args],
        env=server_env(store_url, **(env or {})),
        cwd=str(cwd),
    )
    with open(cwd / f"server-stderr-{transport}.log", "a") as errlog:
        client = Client(
            stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=TIMEOUT
        )
        async with client as connected:
            yield connected


class HttpServer(ServerProcess):
    """A ``skillstate mcp --http --port 0`` process; ``url`` once it listens."""

    def __init__(
        self,
        store_url: str,
        cwd: Path,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
    ) -> None:
        self.stderr_path = cwd / f"http-{time.monotonic_ns()}.log"
        super().__init__(
            ["mcp", "--http", "--port", "0", *args],
            cwd=cwd,
            env=server_env(store_url, **(env or {})),
            log=self.stderr_path,
            pattern=r"listening on http://[^:]+:(\d+)/mcp",
            what="the HTTP server",
            stdout_to_log=False,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.base}/mcp"


def start_http(
    store_url: str, cwd: Path, args: Sequence[str] = (), env: dict[str, str] | None = None
) -> HttpServer:
    return HttpServer(store_url, cwd, args, env)


@asynccontextmanager
async def http_client(
    url: str, token: str | None = None, mode: str = "auto"
) -> AsyncIterator[Client]:
    """A connected ``Client`` over Streamable HTTP (with a bearer token when given)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=TIMEOUT) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=TIMEOUT) as connected:
            yield connected


INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'
"""The raw ``notifications/initialized`` line that follows an ``initialize``."""


def raw_initialize(request_id: int = 0) -> bytes:
    """:func:`initialize_request` as one line."""
    return json.dumps(initialize_request(request_id)).encode()


def serve_raw(
    tmp_path: Path, payload: bytes, answers: int, transport: str | None = None
) -> tuple[list[Any], str]:
    """Run ``skillstate mcp`` (with ``--transport`` when given) on real pipes, write
    ``payload``, read ``answers`` answer lines; (the answers, its stderr)."""
    command = ["mcp"] if transport is None else ["mcp", "--transport", transport]
    proc = subprocess.Popen(
        [SKILLSTATE, *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=server_env(f"file:{tmp_path / 'store'}"),
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    writer = threading.Thread(target=lambda: (proc.stdin.write(payload), proc.stdin.flush()))
    writer.start()
    got = [json.loads(proc.stdout.readline()) for _ in range(answers)]
    writer.join(60)
    proc.stdin.close()
    assert proc.wait(60) == 0
    return got, proc.stderr.read().decode(errors="replace")


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
