"""A ``redis-server`` of the tests' own (Debian's), on a free loopback port."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path

SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A ``redis-server`` of the test's own: ``start``, ``kill`` (SIGKILL), ``url``."""

    def __init__(self, directory: Path, *options: str) -> None:
        self.directory = directory
        self.options = options
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        self.process = subprocess.Popen(
            [
                SERVER,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.directory),
                "--save",
                "",
                "--protected-mode",
                "no",
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.process.returncode}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(64).startswith((b"+PONG", b"-NOAUTH")):
                        return self
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer within 20 s")

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def url(self, prefix: str | None = None, scheme: str = "redis", **query: str) -> str:
        options = {"prefix": prefix or f"t{uuid.uuid4().hex[:10]}:", **query}
        rest = "&".join(f"{k}={v}" for k, v in options.items())
        return f"{scheme}://127.0.0.1:{self.port}/0?{rest}"
