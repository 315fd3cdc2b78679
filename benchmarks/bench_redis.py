"""Commits per second on the Redis store against PostgreSQL and the file store.

For each durability level (``full``, ``process``) and each store (``file``,
``postgresql``, ``redis``), the committed transitions per second with 1, 4 and 16
client processes, each on a run of its own (``bench_stores``'s distinct-runs
throughput: the whole pipeline, ~2 KB state, every update counted, a lost one fatal).
The Redis servers are the benchmark's own (``redis-server`` on a free loopback port, a
temporary directory): at ``full`` one with ``appendonly yes`` / ``appendfsync
always`` (what the store requires), at ``process`` one with ``appendfsync everysec``.
PostgreSQL is ``SKILLSTATE_BENCH_POSTGRES`` (a fresh schema, dropped afterwards).

Run: ``.venv/bin/python -m benchmarks.bench_redis [--seconds 3] [--repeat 3]
[--clients 1,4,16] [--stores file,postgresql,redis]`` (needs ``skillstate-redis`` installed: ``./dev setup``).
Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from benchmarks.bench_stores import PG_URL, _throughput, drop_schema

__all__ = ["main"]

LEVELS = ("full", "process")
FSYNC = {"full": "always", "process": "everysec"}


@contextmanager
def redis_server(directory: str, fsync: str) -> Iterator[int]:
    """A ``redis-server`` of the benchmark's own; yields its port."""
    server = shutil.which("redis-server")
    if server is None:
        raise SystemExit(
            "bench_redis: redis-server is not installed (apt-get install redis-server)"
        )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--dir",
            directory,
            "--save",
            "",
            "--appendonly",
            "yes",
            "--appendfsync",
            fsync,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.05)
        yield port
    finally:
        process.kill()
        process.wait()


def _url(name: str, level: str, tmp: str, port: int, schema: str) -> str:
    if name == "file":
        return f"file:{tmp}/file-{level}?durability={level}"
    if name == "postgresql":
        return f"{PG_URL}?schema={schema}_{level}&pool_min=1&pool_max=2&durability={level}"
    return f"redis://127.0.0.1:{port}/0?prefix=bench:&durability={level}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    parser.add_argument("--clients", default="1,4,16", help="client processes per measurement")
    parser.add_argument("--stores", default="file,postgresql,redis")
    parser.add_argument(
        "--repeat", type=int, default=1, help="trials per cell, interleaved (median kept)"
    )
    args = parser.parse_args(argv)
    clients = [int(c) for c in args.clients.split(",")]
    stores = args.stores.split(",")
    schema = f"ss_bench_{uuid.uuid4().hex[:8]}"
    rates: dict[tuple[str, str, int], list[float]] = {}
    lost = 0
    with tempfile.TemporaryDirectory(prefix="ss-bench-redis-") as tmp, ExitStack() as servers:
        ports = {}
        for level in LEVELS:
            directory = os.path.join(tmp, f"redis-{level}")
            os.mkdir(directory)
            ports[level] = servers.enter_context(redis_server(directory, FSYNC[level]))
        try:
            for _ in range(args.repeat):  # interleaved, so a noisy minute hits every cell
                for level in LEVELS:
                    for name in stores:
                        url = _url(name, level, tmp, ports[level], schema)
                        for count in clients:
                            rate, _, missing = _throughput(url, count, False, args.seconds)
                            rates.setdefault((name, level, count), []).append(rate)
                            lost += missing
                            print(f"{name} {level} x{count}: {rate:,.0f}/s", file=sys.stderr)
        finally:
            if "postgresql" in stores:
                for level in LEVELS:
                    drop_schema(f"{schema}_{level}")
    header = ["store", "durability", *(f"x{c} commits/s" for c in clients)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for level in LEVELS:
        for name in stores:
            cells = [f"{statistics.median(rates[name, level, c]):,.0f}" for c in clients]
            print("| " + " | ".join([name, level, *cells]) + " |")
    print(
        f"\n{os.cpu_count()} CPUs; committed transitions/s over {args.seconds:g} s (median of"
        f" {args.repeat}), one run per client process; redis at full: appendfsync always,"
        " at process: everysec"
    )
    if lost:
        print(f"{lost} LOST UPDATES", file=sys.stderr)
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
