"""Outages and wrong servers, through the ``skillstate`` command: one line naming the
URL with its password masked, exit 3, never a traceback or a hang."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redisserver import RedisServer, free_port
from skillstate_testing import clean_env, make_host, run_command

from skillstate.plugin import StoreError


def _fails_in_one_line(url: str, *args: str, cwd: Path) -> str:
    result = run_command("skillstate", "--store", url, *args, cwd=cwd, timeout=60)
    assert result.returncode == 3, (result.returncode, result.stdout, result.stderr)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("skillstate: "), result.stderr
    assert "secret" not in result.stderr and "Traceback" not in result.stderr
    return lines[0]


def test_a_server_that_is_down_is_one_line_with_the_password_masked(tmp_path: Path) -> None:
    url = f"redis://u:secret@127.0.0.1:{free_port()}/0"
    for args in (("list",), ("init", "rig-task", "t1"), ("get", "t1")):
        line = _fails_in_one_line(url, *args, cwd=tmp_path)
        assert f"cannot connect to Redis at redis://u:***@127.0.0.1:{url.split(':')[3]}" in line
        assert "Connection refused" in line


def test_a_server_that_went_away_is_one_line(
    own_server: Callable[..., RedisServer], tmp_path: Path
) -> None:
    server = own_server()
    plain = server.url("gone:", durability="process")
    store = make_host(plain).open_store(plain)
    assert store.list() == []
    server.kill()
    with pytest.raises(
        StoreError, match=r"^cannot list runs: the connection to Redis at redis://"
    ) as info:
        store.list()
    assert "\n" not in str(info.value)


def test_a_wrong_password_is_one_line(
    own_server: Callable[..., RedisServer], tmp_path: Path
) -> None:
    server = own_server("--requirepass", "right-one")
    base = f"127.0.0.1:{server.port}/0?durability=process"
    line = _fails_in_one_line(f"redis://:secret@{base}", "list", cwd=tmp_path)
    assert "redis://:***@" in line and "invalid username-password pair" in line
    line = _fails_in_one_line(f"redis://{base}", "list", cwd=tmp_path)
    assert "the server asks for a password and the URL gives none" in line
    ok = run_command("skillstate", "--store", f"redis://:right-one@{base}", "list", cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr


@pytest.fixture
def not_redis() -> Iterator[int]:
    """A loopback port answering like a web server (another protocol than Redis)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.1)  # so the thread sees ``stop`` soon
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(10)
            with conn:
                conn.recv(1024)
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(listener.getsockname()[1])
    stop.set()
    thread.join(5)
    listener.close()


def test_the_wrong_protocol_is_one_line(
    redis_server: RedisServer, not_redis: int, tmp_path: Path
) -> None:
    line = _fails_in_one_line(f"redis://:secret@127.0.0.1:{not_redis}/0", "list", cwd=tmp_path)
    assert f"cannot connect to Redis at redis://:***@127.0.0.1:{not_redis}/0" in line
    # TLS against a server that speaks plain Redis
    tls = f"rediss://:secret@127.0.0.1:{redis_server.port}/0?socket_timeout=3"
    line = _fails_in_one_line(tls, "list", cwd=tmp_path)
    assert "cannot connect to Redis at rediss://:***@" in line


def test_full_is_refused_where_the_server_does_not_fsync_each_write(
    own_server: Callable[..., RedisServer], tmp_path: Path
) -> None:
    server = own_server("--appendonly", "yes", "--appendfsync", "everysec")
    url = server.url("full:", durability="full")
    line = _fails_in_one_line(url, "init", "rig-task", "t1", cwd=tmp_path)
    assert "durability=full needs the server to run appendonly yes with appendfsync always" in line
    assert "(it has appendonly yes, appendfsync everysec)" in line
    ok = run_command(
        "skillstate",
        "--store",
        url.replace("full", "process"),
        "init",
        "rig-task",
        "t1",
        cwd=tmp_path,
    )
    assert ok.returncode == 0, ok.stderr


def test_health_answers_503_json_when_the_server_went_away(
    own_server: Callable[..., RedisServer], tmp_path: Path
) -> None:
    pytest.importorskip("uvicorn", reason="the MCP server needs the 'mcp' extra")
    server = own_server()
    url = server.url("health:", durability="process")
    mcp = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "skillstate"),
            "--store",
            url,
            "mcp",
            "--http",
            "--port",
            "0",
        ],
        cwd=tmp_path,
        env=clean_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert mcp.stdout is not None
        banner = mcp.stdout.readline()
        address = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", banner)
        assert address, banner
        health = f"http://127.0.0.1:{address.group(1)}/health"
        with urllib.request.urlopen(health, timeout=30) as answer:
            assert json.loads(answer.read())["status"] == "ok"
        server.kill()
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(health, timeout=30)
        assert info.value.code == 503
        body = json.loads(info.value.read())
        assert body["status"] == "unavailable" and "Redis" in body["error"]
    finally:
        mcp.terminate()
        mcp.wait(30)


def test_full_on_a_server_refusing_config_needs_check_aof_no(
    own_server: Callable[..., RedisServer], tmp_path: Path
) -> None:
    """A managed server may refuse ``CONFIG``: ``full`` is refused, unless the URL says
    ``check_aof=no`` (the operator vouches that the server fsyncs each write)."""
    server = own_server(
        "--appendonly", "yes", "--appendfsync", "always", "--rename-command", "CONFIG", ""
    )
    url = server.url("noconfig:", durability="full")
    line = _fails_in_one_line(url, "init", "rig-task", "t1", cwd=tmp_path)
    assert "durability=full needs CONFIG GET to check the server's append-only file" in line
    assert "check_aof=no if the server fsyncs each write" in line
    ok = run_command(
        "skillstate", "--store", f"{url}&check_aof=no", "init", "rig-task", "t1", cwd=tmp_path
    )
    assert ok.returncode == 0, ok.stderr
