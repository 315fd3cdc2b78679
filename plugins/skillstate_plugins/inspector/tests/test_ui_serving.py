"""How the inspector is served: its connections bounded as the MCP server's are (a cap,
a deadline for each request's headers), and its app handed to another server through the
``skillstate_register_http_apps`` hook (``skillstate mcp --http --ui``)."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host

from .. import MISSING_EXTRA, skillstate_register_http_apps
from .support import UiServer, run_skillstate, seed


@pytest.fixture
def bounded(tmp_path: Path) -> Iterator[UiServer]:
    url = f"file:{tmp_path}/state"
    seed(url)
    server = UiServer(url, tmp_path, ["--header-timeout", "1", "--max-connections", "4"])
    yield server
    server.stop()


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reads until EOF)."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_silent_and_slow_trickling_connections_are_dropped(bounded: UiServer) -> None:
    """Before, a connection that sent nothing was held for ever (19,900 of them until
    accept failed with EMFILE): now its headers must be complete within --header-timeout."""
    silent = socket.create_connection(("127.0.0.1", bounded.port))
    trickle = socket.create_connection(("127.0.0.1", bounded.port))

    def drip() -> None:
        try:
            for byte in b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 40:
                trickle.send(bytes([byte]))
                time.sleep(0.2)
        except OSError:
            pass

    threading.Thread(target=drip, daemon=True).start()
    started = time.monotonic()
    assert _closed_within(silent, 15), "a connection that sent nothing was kept open"
    assert _closed_within(trickle, 15), "a connection trickling its headers was kept open"
    assert time.monotonic() - started < 8
    silent.close()
    trickle.close()
    assert bounded.get("/")[0] == 200


def test_open_connections_are_capped(bounded: UiServer) -> None:
    """--max-connections 4: while 4 are open, one more request gets 503, not a fifth slot."""
    held = [socket.create_connection(("127.0.0.1", bounded.port)) for _ in range(4)]
    try:
        time.sleep(0.2)
        assert bounded.get("/")[0] == 503
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 10
    status = 0
    while time.monotonic() < deadline and status != 200:
        status = bounded.get("/")[0]
        time.sleep(0.1)
    assert status == 200


def _call(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> tuple[int, bytes]:
    """One GET through an ASGI app, in this process; the status and the body."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1:1"), *headers],
        "server": ("127.0.0.1", 1),
        "client": ("127.0.0.1", 2),
    }
    asyncio.run(app(scope, receive, send))
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], body


def test_the_hook_hands_the_app_to_a_server_that_mounts_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"file:{tmp_path}/state"
    seed(url)
    apps: dict[str, Any] = {}
    skillstate_register_http_apps(lambda name, factory: apps.setdefault(name, factory))
    assert set(apps) == {"ui"}
    host = make_host(url)
    try:
        app = apps["ui"](
            host,
            host.open_store(),
            bind="127.0.0.1",
            allowed_hosts=["proxy.test"],
            token="mount-token",
            prefix="/ui",
        )
        status, body = _call(app, "/ui/runs/abc-18", [])
        assert status == 401 and b"mount-token" not in body
        auth = [(b"authorization", b"Bearer mount-token")]
        status, body = _call(app, "/ui/runs/abc-18", auth)
        assert status == 200 and b'href="/ui/static/ui.css"' in body
        assert _call(app, "/runs/abc-18", auth)[0] == 404  # only under its prefix
        from skillstate.plugin import SkillstateError

        from .. import __name__ as package

        monkeypatch.setattr(f"{package}.extra_installed", lambda: False)
        with pytest.raises(SkillstateError) as missing:  # the mounting server says it, exit 3
            apps["ui"](
                host,
                host.open_store(),
                bind="127.0.0.1",
                allowed_hosts=(),
                token=None,
                prefix="/ui",
            )
        assert str(missing.value) == MISSING_EXTRA and missing.value.kind == "error"
    finally:
        host.close()


@pytest.mark.parametrize("kind", ["file", "sqlite"])
def test_health_names_the_store_without_its_path(tmp_path: Path, kind: str) -> None:
    """``GET /health``: the store as ``file:<store>`` / ``sqlite:<store>`` (errors already
    hid the path), its options kept, and how many runs it lists; the token applies."""
    url = (
        f"file:{tmp_path}/state?durability=process"
        if kind == "file"
        else f"sqlite:///{tmp_path}/runs.db?durability=process"
    )
    seed(url)
    server = UiServer(url, tmp_path, ["--token", "health-token"])
    try:
        assert server.get("/health")[0] == 401
        auth = {"Authorization": "Bearer health-token"}
        status, headers, body = server.get("/health", headers=auth)
    finally:
        server.stop()
    assert status == 200 and headers["content-type"] == "application/json", body
    health = json.loads(body)
    assert health["status"] == "ok"
    assert health["store"] == f"{kind}:<store>?durability=process"
    assert health["runs"] == 3 and health["unreadable_runs"] == 0
    assert str(tmp_path) not in body


def _open_fds(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_many_idle_sockets_are_shed_and_the_server_keeps_serving(tmp_path: Path) -> None:
    """60 idle sockets against ``--max-connections 20 --header-timeout 1`` (at
    02f8891 the inspector held 19,900 until accept failed with EMFILE): beyond the cap a
    request is refused with 503, every idle socket is closed by the server, and then it
    serves again holding no more descriptors than before; a keep-alive connection left
    idle after its answer is closed too (after 5 s)."""
    url = f"file:{tmp_path}/state"
    seed(url)
    server = UiServer(url, tmp_path, ["--max-connections", "20", "--header-timeout", "1"])
    try:
        assert server.get("/")[0] == 200
        before = _open_fds(server.proc.pid)
        idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(60)]
        try:
            time.sleep(0.3)
            assert server.get("/")[0] == 503  # the cap, not a 61st slot
            closed = [_closed_within(sock, 15) for sock in idle]
            assert all(closed), f"{closed.count(False)} of 60 idle sockets kept open"
        finally:
            for sock in idle:
                sock.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and server.get("/")[0] != 200:
            time.sleep(0.1)
        assert server.get("/runs/abc-18")[0] == 200
        kept = socket.create_connection(("127.0.0.1", server.port))
        kept.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
        kept.settimeout(10)
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        started = time.monotonic()
        assert _closed_within(kept, 15), "an idle keep-alive connection was kept open"
        assert time.monotonic() - started < 12
        kept.close()
        time.sleep(0.3)
        assert _open_fds(server.proc.pid) <= before + 2
    finally:
        server.stop()


@pytest.mark.parametrize("kind", ["file", "sqlite"])
def test_a_streamed_export_is_byte_for_byte_skillstate_export(tmp_path: Path, kind: str) -> None:
    """``/runs/RUN/export`` is now streamed from the journal a page at a time (it built
    the whole file in memory per request); a run of 600 versions, three pages, comes
    out byte for byte as ``skillstate export`` writes it (but the time of the export),
    and ``skillstate import`` takes it back."""
    url = f"file:{tmp_path}/state" if kind == "file" else f"sqlite:///{tmp_path}/runs.db"
    facts = seed(url, versions=600)
    server = UiServer(url, tmp_path)
    try:
        status, headers, body = server.get(f"/runs/{facts['rig']}/export")
    finally:
        server.stop()
    assert status == 200 and headers.get("transfer-encoding") == "chunked"
    cli = run_skillstate("--store", url, "export", facts["rig"], cwd=tmp_path)
    assert cli.returncode == 0, cli.stderr

    def timeless(text: str) -> str:
        return re.sub(r'"exported":"[^"]*"', '"exported":"T"', text, count=1)

    assert timeless(body) == timeless(cli.stdout)
    assert json.loads(body)["journal"][-1]["version"] == facts["rig_head"]
    (tmp_path / "streamed.json").write_text(body, encoding="utf-8")
    back = run_skillstate(
        "--store", f"file:{tmp_path}/again", "import", "streamed.json", cwd=tmp_path
    )
    assert back.returncode == 0, back.stderr
