"""Helpers for the MCP server's tests: real server processes (stdio and HTTP) and the SDK's ``Client``.

Every server runs this environment's ``skillstate mcp`` as a subprocess, in a temporary
working directory, with its own store (``SKILLSTATE_STORE``) and the plugin selection of
the test run (``SKILLSTATE_DISABLE_PLUGINS``/``SKILLSTATE_LOAD_PLUGINS``: a copy of this
package installed under another name runs these tests with the bundled one blocked).
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import subprocess
import sys
import textwrap
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
from skillstate_testing import clean_env
from skillstate_testing.helpers import PLUGIN_SELECTION

SKILLSTATE = str(Path(sys.executable).parent / "skillstate")
TIMEOUT = 60.0
"""How long a test waits on a server subprocess (to start, to answer)."""

__all__ = [
    "INITIALIZED",
    "SKILLSTATE",
    "TIMEOUT",
    "HttpServer",
    "ServerProcess",
    "default_sigint",
    "http_client",
    "ignored_sigint",
    "initialize_request",
    "make_distribution",
    "post_json",
    "raw_initialize",
    "run_without",
    "serve_raw",
    "server_env",
    "start_http",
    "stdio_client_for",
    "text_of",
]


def server_env(store_url: str, **extra: str) -> dict[str, str]:
    """The environment of a ``skillstate`` server under test: the store, PATH, the plugin
    selection of this run, ``extra``."""
    env = {
        "SKILLSTATE_STORE": store_url,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": os.environ.get("PATH", ""),
    }
    env.update({k: os.environ[k] for k in PLUGIN_SELECTION if k in os.environ})
    env.update(extra)
    return env


def initialize_request(request_id: int = 0) -> dict[str, Any]:
    """A JSON-RPC ``initialize`` request, as a raw client sends it (no client library)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }


def post_json(port: int, path: str, message: dict[str, Any]) -> tuple[int, bytes]:
    """POST ``message`` to 127.0.0.1:``port`` as an MCP client does; status and body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", path, json.dumps(message).encode(), headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def ignored_sigint() -> None:
    """A ``preexec_fn``: SIGINT ignored, as in a script's ``cmd &`` background job."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_sigint() -> None:
    """A ``preexec_fn``: Ctrl-C (SIGINT) handled as on a terminal, not ignored."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_without(
    libraries: Sequence[str], *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` in a real subprocess whose import hook hides ``libraries`` (and
    their submodules), as if they were not installed."""
    code = (
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {tuple(libraries)!r}:\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import runpy\n"
        "sys.argv[0] = sys.argv[1]; del sys.argv[1]\n"
        "runpy.run_path(sys.argv[0], run_name='__main__')\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, SKILLSTATE, *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=cwd,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def make_distribution(
    root: Path, name: str, module: str, source: str, entry_points: dict[str, str]
) -> None:
    """A real (unpacked) installed distribution: a module plus a .dist-info, in ``root``
    (put it on ``PYTHONPATH``)."""
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    lines = "".join(f"{ep} = {value}\n" for ep, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[skillstate]\n{lines}", encoding="utf-8")


class ServerProcess:
    """A ``skillstate`` server subprocess logging to ``log``; ``port`` once a line of the
    log matches ``pattern`` (its group 1 is the port). ``what`` names it in failures."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        log: Path,
        pattern: str,
        what: str,
        stdout_to_log: bool,
        timeout: float = TIMEOUT,
        sigint: bool = False,
        ignore_sigint: bool = False,
    ) -> None:
        """``sigint``: the server gets SIGINT's default handling even when the tests run
        as a shell's background job (whose children inherit "ignore SIGINT");
        ``ignore_sigint``: it starts with SIGINT ignored, as such a job."""
        self.log = log
        self._log = open(log, "wb")
        self.proc = subprocess.Popen(
            [SKILLSTATE, *command],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log if stdout_to_log else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if stdout_to_log else self._log,
            preexec_fn=ignored_sigint if ignore_sigint else default_sigint if sigint else None,
        )
        self.port = self._wait(pattern, what, timeout)

    def _wait(self, pattern: str, what: str, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_text(errors="replace")
            found = re.search(pattern, text)
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError(f"{what} exited ({self.proc.returncode}):\n{text}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{what} did not start listening in time")

    def signal_and_wait(self, signum: int) -> tuple[int, str]:
        """Send ``signum``, wait for the exit; the exit code and the whole log."""
        self.proc.send_signal(signum)
        try:
            code = self.proc.wait(TIMEOUT)
        finally:
            self.stop()
        return code, self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


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
    lines: queue.Queue[bytes] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True)
    reader.start()
    got = []
    for _ in range(answers):
        try:  # a missing answer fails the test instead of hanging it
            got.append(json.loads(lines.get(timeout=TIMEOUT)))
        except queue.Empty:
            proc.kill()
            proc.wait()
            raise AssertionError(
                f"{len(got)} answers of {answers} within {TIMEOUT:g} s: {got}"
            ) from None
    writer.join(60)
    proc.stdin.close()
    assert proc.wait(60) == 0
    return got, proc.stderr.read().decode(errors="replace")


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
