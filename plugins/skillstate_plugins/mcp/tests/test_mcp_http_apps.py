"""``skillstate mcp --http --ui``: the app a plugin registers as ``"ui"`` through the MCP
plugin's own hook, ``skillstate_register_http_apps`` (hookspecs.py).

In process, a plugin registered on the host implements the hook and the command's
collector finds its factory; for real, a distribution installed beside skillstate (on
``PYTHONPATH``) registers an app, with the inspector blocked, and ``skillstate mcp``
serves it at ``/ui`` beside ``/mcp``; with no plugin registering one, ``--ui`` is one
line and exit 3.
"""

from __future__ import annotations

import http.client
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate.plugin import hookimpl

from ..command import NO_UI, http_apps
from .support import (
    SKILLSTATE,
    HttpServer,
    initialize_request,
    make_distribution as install,
    post_json,
    server_env,
)

FAKE_UI = """
import pytest

from skillstate.plugin import hookimpl
from skillstate_testing import make_host


@hookimpl(optionalhook=True)
def skillstate_register_http_apps(register):
    def factory(host, store, *, bind, allowed_hosts, token, prefix):
        text = f"fake ui at {prefix} for {bind} token={token} hosts={allowed_hosts}"

        async def app(scope, receive, send):
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body",
                        "body": f"{text} path={scope['path']}".encode()})

        return app

    register("ui", factory)
"""


class _Collector:
    """What ``http_apps`` needs of a command context: the host and an error line."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self.errors: list[str] = []

    def error(self, message: str) -> None:
        self.errors.append(message)


@pytest.fixture
def host() -> Iterator[Any]:
    """A host with the installed plugins as this run selects them (a lifted copy of this
    package with the bundled one blocked), for in-test plugins to join."""
    made = make_host()
    yield made
    made.close()


def test_hook_register_http_apps(host: Any) -> None:
    made: list[dict[str, Any]] = []

    class FakeUi:
        @hookimpl(optionalhook=True)
        def skillstate_register_http_apps(self, register: Any) -> None:
            register("fake-ui", lambda host, store, **options: made.append(options) or "app")

    host.pm.register_local(FakeUi(), "fake-ui")
    ctx = _Collector(host)
    apps = http_apps(ctx)  # type: ignore[arg-type]
    assert "fake-ui" in apps and ctx.errors == []
    assert apps["fake-ui"](host, None, bind="127.0.0.1", prefix="/ui") == "app"
    assert made == [{"bind": "127.0.0.1", "prefix": "/ui"}]


def test_a_failing_implementation_is_one_warning_and_the_others_register(host: Any) -> None:
    class Broken:
        @hookimpl(optionalhook=True)
        def skillstate_register_http_apps(self, register: Any) -> None:
            raise RuntimeError("boom")

    class Fine:
        @hookimpl(optionalhook=True)
        def skillstate_register_http_apps(self, register: Any) -> None:
            register("fine", object())

    host.pm.register_local(Broken(), "broken-ui")
    host.pm.register_local(Fine(), "fine-ui")
    ctx = _Collector(host)
    apps = http_apps(ctx)  # type: ignore[arg-type]
    assert "fine" in apps
    assert ctx.errors == ["warning: plugin 'broken-ui' failed to register its web apps (boom)"]


def _ui_plugins() -> list[str]:
    """The installed plugins that serve a UI: the bundled inspector, or a copy of it under
    another name (tests/core/test_liftable.py installs one)."""
    import json

    done = subprocess.run(
        [SKILLSTATE, "plugins", "--json", "--hook", "register_http_apps"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return [row["name"] for row in json.loads(done.stdout)]


def _env(tmp_path: Path, with_fake: bool) -> dict[str, str]:
    blocked = [b for b in os.environ.get("SKILLSTATE_DISABLE_PLUGINS", "").split(",") if b]
    extra = {"SKILLSTATE_DISABLE_PLUGINS": ",".join([*blocked, *_ui_plugins()])}
    if with_fake:
        site = tmp_path / "site"
        site.mkdir()
        install(site, "fake-ui", "fake_ui", FAKE_UI, {"fake-ui": "fake_ui"})
        extra["PYTHONPATH"] = str(site)
    return server_env(f"file:{tmp_path / 'store'}", **extra)


def test_mcp_http_ui_serves_the_registered_app_beside_mcp(tmp_path: Path) -> None:
    server = HttpServer(
        f"file:{tmp_path / 'store'}",
        tmp_path,
        ["--ui", "--token", "tok-1", "--allowed-host", "box.test"],
        env=_env(tmp_path, with_fake=True),
    )
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/ui/runs")
        response = conn.getresponse()
        body = response.read().decode()
        conn.close()
        assert response.status == 200, body
        assert body == ("fake ui at /ui for 127.0.0.1 token=tok-1 hosts=['box.test'] path=/ui/runs")
        banner = server.stderr_path.read_text()
        assert f"inspector at http://127.0.0.1:{server.port}/ui/" in banner
        assert post_json(server.port, "/mcp", initialize_request())[0] == 401  # the MCP gate
    finally:
        server.stop()


def test_ui_without_a_plugin_registering_it_is_one_line_and_exit_3(tmp_path: Path) -> None:
    done = subprocess.run(
        [SKILLSTATE, "mcp", "--http", "--ui", "--port", "0"],
        cwd=tmp_path,
        env=_env(tmp_path, with_fake=False),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert (done.returncode, done.stdout) == (3, ""), done.stderr
    assert done.stderr == f"skillstate: {NO_UI}\n"
