"""``skillstate_serving.serve``, through the plugin its docstring's tutorial writes: the
example installed as a real plugin, its command run for real, real signals.

Ctrl-C (SIGINT) and SIGTERM shut the server down and ``serve`` returns 130 and 143 (the
command exits with them after closing its store); an ignored SIGINT still counts; a
public address without a token is refused (exit 2) and a taken port is one line (exit 3).
"""

from __future__ import annotations

import http.client
import json
import re
import signal
import textwrap
from pathlib import Path

import pytest
import skillstate_serving
from support import ServerProcess, clean_env, make_distribution, run_skillstate


def _tutorial() -> str:
    """The ``hello/__init__.py`` block of the module's docstring, as a module's source."""
    doc = skillstate_serving.__doc__ or ""
    found = re.search(r"``hello/__init__.py``::\n\n((?:    .*\n|\n)+)", doc)
    assert found, "the tutorial's code block is gone from skillstate_serving"
    return textwrap.dedent(found.group(1))


@pytest.fixture
def plugin_path(tmp_path: Path) -> str:
    root = tmp_path / "site"
    root.mkdir()
    make_distribution(root, "hello-plugin", "hello", _tutorial(), {"hello": "hello"})
    return str(root)


def _start(tmp_path: Path, plugin_path: str, *args: str, **how: bool) -> ServerProcess:
    return ServerProcess(
        ["hello", "--port", "0", *args],
        cwd=tmp_path,
        env=clean_env(PYTHONPATH=plugin_path, SKILLSTATE_STORE=f"file:{tmp_path}/store"),
        log=tmp_path / f"hello-{len(list(tmp_path.glob('hello-*')))}.log",
        pattern=r"http://127\.0\.0\.1:(\d+)/",
        what="the tutorial's server",
        stdout_to_log=True,
        **how,
    )


def _get(port: int, host: str | None = None, token: str | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Host": host or f"127.0.0.1:{port}"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request("GET", "/", headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, body


def test_the_tutorial_serves_checks_and_ends_with_143_on_sigterm(
    tmp_path: Path, plugin_path: str
) -> None:
    server = _start(tmp_path, plugin_path, "--token", "tut-token")
    assert _get(server.port, token="tut-token") == (200, b"hello")
    status, body = _get(server.port)
    assert status == 401 and "bearer token" in json.loads(body)["error"]
    status, body = _get(server.port, host="evil.test", token="tut-token")
    assert status == 421 and json.loads(body) == {
        "error": "this Host is not allowed (use --allowed-host NAME)"
    }
    code, log = server.signal_and_wait(signal.SIGTERM)
    assert code == 143 and "Traceback" not in log, log


@pytest.mark.parametrize("ignored", [False, True], ids=["sigint", "sigint-ignored-at-start"])
def test_ctrl_c_ends_it_with_130(tmp_path: Path, plugin_path: str, ignored: bool) -> None:
    how = {"ignore_sigint": True} if ignored else {"sigint": True}
    server = _start(tmp_path, plugin_path, **how)
    assert _get(server.port) == (200, b"hello")
    code, log = server.signal_and_wait(signal.SIGINT)
    assert code == 130 and "Traceback" not in log, log


def test_refusals_are_one_line(tmp_path: Path, plugin_path: str) -> None:
    env = {"PYTHONPATH": plugin_path}
    done = run_skillstate("hello", "--host", "0.0.0.0", cwd=tmp_path, **env)
    assert done.returncode == 2 and done.stderr == (
        "skillstate: refusing to serve on 0.0.0.0 without a token: anyone who can reach it "
        "could read the page; set $HELLO_TOKEN or --token-file FILE, or pass --allow-no-token "
        "to serve it open\n"
    )
    server = _start(tmp_path, plugin_path)
    try:
        done = run_skillstate("hello", "--port", str(server.port), cwd=tmp_path, **env)
    finally:
        server.stop()
    assert done.returncode == 3 and done.stderr == (
        f"skillstate: cannot listen on 127.0.0.1:{server.port}: the address is already in "
        "use (another server is there; choose another --port, or 0 for any free port)\n"
    )
