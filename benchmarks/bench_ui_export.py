"""The inspector's memory while clients ask for a long run's export and never read it.

Run: ``.venv/bin/python -m benchmarks.bench_ui_export [--versions 100000] [--clients 40]
[--hold 20] [--store file|sqlite] [--json out.json]``

A run of ``--versions`` versions (built on the memory store through the pipeline, then
imported) is served by a real ``skillstate ui --port 0`` process. ``--clients`` sockets
each send ``GET /runs/long-run/export`` and then read nothing for ``--hold`` seconds;
then they hang up. The server's resident memory (``VmRSS`` of ``/proc/PID/status``) is
read before, every 0.2 s while they hold (the peak is reported), and 5 s after they
left; "answered" counts the sockets the server had started sending the file to by then.
Linux only (``/proc``).

What it shows: whether an export is held in memory once per client that asked (the
whole file built per request) or a page of the journal at a time (streamed, so a
client that does not read holds one page, and one that leaves frees it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

__all__ = ["main", "measure"]

SKILLSTATE = str(Path(sys.executable).with_name("skillstate"))


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid``, in MB."""
    text = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^VmRSS:\s+(\d+) kB", text, re.M)
    return int(found.group(1)) / 1024 if found else 0.0


def _has_data(sock: socket.socket) -> bool:
    """Whether the server has started sending ``sock`` its answer (nothing is consumed)."""
    try:
        return bool(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except BlockingIOError:
        return False


def _serve(url: str, tmp: str) -> tuple[subprocess.Popen[bytes], int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env["SKILLSTATE_STORE"] = url
    log = Path(tmp, f"ui-{uuid.uuid4().hex[:6]}.log")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [SKILLSTATE, "ui", "--port", "0", "--max-connections", "200"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", log.read_text())
        if found:
            return proc, int(found.group(1))
        if proc.poll() is not None:
            raise RuntimeError(log.read_text())
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the inspector did not start in time")


def measure(url: str, run_id: str, clients: int, hold: float, tmp: str) -> dict[str, Any]:
    """RSS (MB) of a ``skillstate ui`` before, at the peak while ``clients`` sockets ask
    for ``run_id``'s export without reading, and 5 s after they hung up."""
    proc, port = _serve(url, tmp)
    try:
        request = (f"GET /runs/{run_id}/export HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n").encode()
        warm = socket.create_connection(("127.0.0.1", port))  # templates, imports, store open
        warm.sendall(f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        warm.recv(65536)
        warm.close()
        time.sleep(1)
        before = rss_mb(proc.pid)
        held = []
        for _ in range(clients):
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            sock.sendall(request)
            held.append(sock)
        peak = before
        end = time.monotonic() + hold
        while time.monotonic() < end:
            peak = max(peak, rss_mb(proc.pid))
            time.sleep(0.2)
        answered = sum(1 for sock in held if _has_data(sock))
        for sock in held:
            sock.close()
        time.sleep(5)
        after = rss_mb(proc.pid)
        return {"before_mb": before, "peak_mb": peak, "after_mb": after, "answered": answered}
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def main(argv: list[str] | None = None) -> int:
    from skillstate_testing import make_host

    from benchmarks.bench_history import RUN, build

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", type=int, default=100_000)
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--hold", type=float, default=20.0)
    parser.add_argument("--store", choices=("file", "sqlite"), default="file")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    if args.versions < 1 or args.clients < 1 or args.hold <= 0:
        parser.error("--versions and --clients must be >= 1, --hold > 0")
    record, entries = build(args.versions)
    with tempfile.TemporaryDirectory(prefix="bench-ui-export-") as tmp:
        url = f"file:{tmp}/state" if args.store == "file" else f"sqlite:///{tmp}/runs.db"
        host = make_host(url)
        host.open_store().import_run(record, entries)
        host.close()
        del record, entries
        result = measure(url, RUN, args.clients, args.hold, tmp)
    result.update(versions=args.versions, clients=args.clients, store=args.store)
    print(
        f"{args.store}, a run of {args.versions:,} versions, {args.clients} clients not reading "
        f"({result['answered']} being answered after {args.hold:g} s): RSS "
        f"{result['before_mb']:.0f} MB before, {result['peak_mb']:.0f} MB at the peak, "
        f"{result['after_mb']:.0f} MB 5 s after they left"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
