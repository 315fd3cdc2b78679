"""The ``redis:`` store's durability levels against real servers, killed for real.

- ``SIGKILL`` of client writers mid-commit loses nothing acknowledged, at both levels
  (the durability kit's :func:`kill_writers`): the server holds each acknowledged write.
- ``SIGKILL`` of the server itself, restarted from its append-only file: at ``full``
  (``appendfsync always``) nothing acknowledged is lost and ``skillstate verify`` agrees;
  at ``process`` with ``appendfsync everysec`` the test measures the loss and prints it
  (usually 0: a killed server's writes are in the OS's page cache; but while a
  background fsync is slow Redis postpones writing its AOF buffer for up to 2 seconds
  and still replies, so a few may go; an OS crash or power loss may take about the last
  second or two, which a test cannot provoke). Either way what comes back is a whole
  committed version, and ``verify`` agrees.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from redisserver import RedisServer
from skillstate_testing import make_host, run_command, sample_skill
from skillstate_testing.durability import increment, kill_writers

from skillstate.plugin import create_run

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")


def _open(url: str) -> Any:
    return make_host(url).open_store(url)


@pytest.mark.parametrize("level", ["full", "process"])
def test_sigkill_of_a_client_loses_nothing_acknowledged(
    redis_server: RedisServer, level: str
) -> None:
    url = redis_server.url(durability=level)
    host, skill = make_host(url), sample_skill()
    store = host.open_store()
    assert store.durability == level
    create_run(host, store, skill, "k", {"counter": 0})
    opened = functools.partial(_open, url)  # each child its own connection
    kill_writers(
        host,
        skill,
        child_store=opened,
        fresh_store=opened,
        kills=6,
        acknowledged=1,
        reads=(1, 4),
        pause=0.003,
    )
    host.close()


def _writer(url: str, fd: int) -> None:  # pragma: no cover - the child
    try:
        host, skill = make_host(url), sample_skill()
        store = host.open_store()
        while True:
            os.write(fd, f"{increment(host, store, skill)}\n".encode())
    finally:
        os._exit(3)


def _kill_the_server_under_a_writer(server: RedisServer, url: str, acks: int) -> int:
    """A forked writer commits; after ``acks`` acknowledged versions the server is
    SIGKILLed and restarted from its files. Returns the highest version acknowledged."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_fd)
        _writer(url, write_fd)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        seen = [int(pipe.readline()) for _ in range(acks)]
        server.kill()  # SIGKILL, mid-commit: the writer is in its loop
        seen += [int(line) for line in pipe.read().split()]  # the writer exits on its error
    os.waitpid(pid, 0)
    server.start()  # the same port and directory: it loads its append-only file
    return max(seen)


@pytest.mark.parametrize(("level", "fsync"), [("full", "always"), ("process", "everysec")])
def test_sigkill_of_the_server_loses_nothing_acknowledged(
    own_server: Callable[..., RedisServer], tmp_path: Path, level: str, fsync: str
) -> None:
    server = own_server("--appendonly", "yes", "--appendfsync", fsync)
    url = server.url("crash:", durability=level)
    host, skill = make_host(url), sample_skill()
    store = host.open_store()
    create_run(host, store, skill, "k", {"counter": 0})
    store.close()
    lost = []
    for acks in (5, 40, 120):
        acknowledged = _kill_the_server_under_a_writer(server, url, acks)
        fresh = _open(url)
        record = fresh.get("k")
        fresh.close()
        lost.append(max(0, acknowledged - record.version))
        assert record.state["counter"] == record.version - 1  # a committed version, whole
        verified = run_command("skillstate", "--store", url, "verify", cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout + verified.stderr
    host.close()
    if level == "full":
        assert lost == [0, 0, 0]
    else:  # measured, and said: Redis may postpone an AOF write while an fsync runs
        print(f"process (appendfsync everysec), server SIGKILLed 3 times: lost {lost} acknowledged")
