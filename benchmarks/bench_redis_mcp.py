"""MCP HTTP ``execute_step`` rate with concurrent clients: the Redis store against PostgreSQL.

For each store, one ``skillstate mcp --http`` server on loopback and ``--clients``
(default 8) MCP clients at once (the official SDK's ``mcp.Client``, one session each,
one request in flight per client), each calling ``execute_step`` ``--n`` times on the
mock environment (patch ``{"counter": i}``, action ``noop``). The rate is all the
clients' calls over the wall time from the first call to the last answer. Redis is the
benchmark's own ``redis-server`` (``appendfsync always``: ``durability=full``);
PostgreSQL is ``SKILLSTATE_BENCH_POSTGRES`` in a fresh schema (dropped afterwards).

Run: ``.venv/bin/python -m benchmarks.bench_redis_mcp [--clients 8] [--n 200] [--repeat 3]``
(needs the ``mcp`` extra and ``skillstate-redis``: ``./dev setup``). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import anyio
from mcp import Client

from benchmarks.bench_redis import redis_server
from benchmarks.bench_stores import PG_URL, drop_schema
from benchmarks.mcp_client import SPEC, _observation

__all__ = ["main"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def _client(url: str, session: str, n: int, errors: list[int]) -> None:
    async with Client(url) as client:
        started = await client.call_tool(
            "initialize_skill",
            {"session_id": session, "skill_specification": SPEC, "initial_state": {},
             "environment": "mock"},
        )  # fmt: skip
        observation = _observation(started, "")
        for i in range(n):
            result = await client.call_tool(
                "execute_step",
                {"session_id": session, "reasoning_trace": f"step {i}",
                 "state_update": {"counter": i}, "action": "noop",
                 "environment_observation": observation},
            )  # fmt: skip
            errors[0] += bool(result.is_error)
            observation = _observation(result, observation)


async def _rate(url: str, clients: int, n: int) -> tuple[float, int]:
    errors = [0]
    tag = uuid.uuid4().hex[:6]
    began = time.perf_counter()
    async with anyio.create_task_group() as group:
        for c in range(clients):
            group.start_soon(_client, url, f"b-{tag}-{c}", n, errors)
    return clients * n / (time.perf_counter() - began), errors[0]


def _serve(store: str, cwd: str) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    command = [str(Path(sys.executable).parent / "skillstate"), "--store", store, "mcp"]
    server = subprocess.Popen(
        [*command, "--http", "--port", str(port)],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).close()
            return server, url
        except urllib.error.HTTPError:
            return server, url
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise SystemExit(f"bench_redis_mcp: the server on {store} did not start") from None
            time.sleep(0.1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--n", type=int, default=200, help="execute_step calls per client")
    parser.add_argument("--repeat", type=int, default=3, help="trials per store, interleaved")
    args = parser.parse_args(argv)
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    rates: dict[str, list[float]] = {"redis": [], "postgresql": []}
    errors = 0
    with tempfile.TemporaryDirectory(prefix="ss-bench-mcp-") as tmp:
        directory = os.path.join(tmp, "redis")
        os.mkdir(directory)
        with redis_server(directory, "always") as port:
            stores = {
                "redis": f"redis://127.0.0.1:{port}/0?prefix=mcp:&durability=full",
                "postgresql": f"{PG_URL}?schema={schema}&durability=full",
            }
            servers = {name: _serve(store, tmp) for name, store in stores.items()}
            try:
                for _ in range(args.repeat):
                    for name, (_, url) in servers.items():
                        rate, failed = anyio.run(_rate, url, args.clients, args.n)
                        rates[name].append(rate)
                        errors += failed
                        print(f"{name}: {rate:,.0f} calls/s", file=sys.stderr, flush=True)
            finally:
                for server, _ in servers.values():
                    server.terminate()
                    server.wait(30)
                drop_schema(schema)
    print(f"| store | execute_step calls/s, {args.clients} clients (median of {args.repeat}) |")
    print("|---|---|")
    for name, found in rates.items():
        print(f"| {name} | {statistics.median(found):,.0f} |")
    print(f"\n{os.cpu_count()} CPUs; {args.n} calls per client; errors: {errors}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
