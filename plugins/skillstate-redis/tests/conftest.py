"""The Redis store's tests: each session starts its own ``redis-server`` (Debian's) on a
free loopback port, with a temporary directory; none touches a Redis it did not start.

Without ``redis-server`` (or redis-py) the tests skip with the reason, and fail under
``CI=true``. The tests run against the installed package (editable under ./dev, or a wheel).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redisserver import SERVER, RedisServer
from skillstate_testing import require_service


def _require_redis() -> None:
    require_service(Path(SERVER).exists(), f"redis-server is not installed ({SERVER})")
    try:
        import redis  # noqa: F401
    except ImportError:
        require_service(False, "redis-py is not installed (pip install skillstate-redis)")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One server for the session: ``appendonly yes``, ``appendfsync always`` (``full`` works)."""
    _require_redis()
    server = RedisServer(
        tmp_path_factory.mktemp("redis"), "--appendonly", "yes", "--appendfsync", "always"
    ).start()
    yield server
    server.kill()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """A fresh, empty store: a key prefix of the test's own on the session's server."""
    return redis_server.url()


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[Callable[..., RedisServer]]:
    """``own_server(*options)``: a server of the test's own (started), killed afterwards."""
    _require_redis()
    started: list[RedisServer] = []

    def start(*options: str) -> RedisServer:
        directory = tmp_path / f"redis-{len(started)}"
        directory.mkdir()
        server = RedisServer(directory, *options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.kill()
