"""Ctrl-C on a serving command exits 130 (``exits.INTERRUPT``) after a clean shutdown, as the
exit-code table says: ``skillstate ui``, ``skillstate mcp --http`` and stdio ``skillstate
mcp``; the end of stdin is a stdio server's normal end (0). Real processes, real SIGINT."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import (
    SKILLSTATE,
    TIMEOUT,
    ServerProcess,
    default_sigint,
    initialize_request,
    post_json,
    run_skillstate,
    server_env,
)

from skillstate.cli.exits import INTERRUPT

INITIALIZE = initialize_request()


def _get(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path)
    status = conn.getresponse().status
    conn.close()
    return status


def test_ctrl_c_on_the_inspector_exits_130(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'store'}"
    assert run_skillstate("--store", url, "init", "rig-task", "r1", cwd=tmp_path).returncode == 0
    server = ServerProcess(
        ["ui", "--port", "0"],
        cwd=tmp_path,
        env=server_env(url),
        log=tmp_path / "ui.log",
        pattern=r"skillstate ui: http://[^:]+:(\d+)/",
        what="the inspector",
        stdout_to_log=True,
        sigint=True,
    )
    assert _get(server.port, "/runs/r1") == 200
    code, log = server.signal_and_wait(signal.SIGINT)
    assert code == INTERRUPT, log
    assert "Traceback" not in log


def test_ctrl_c_on_the_http_server_exits_130_and_keeps_what_was_written(tmp_path: Path) -> None:
    url = f"file:{tmp_path / 'store'}?durability=process"  # syncs pending until the store closes
    server = ServerProcess(
        ["mcp", "--http", "--port", "0"],
        cwd=tmp_path,
        env=server_env(url),
        log=tmp_path / "http.log",
        pattern=r"listening on http://[^:]+:(\d+)/mcp",
        what="the HTTP server",
        stdout_to_log=False,
        sigint=True,
    )
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "initialize_skill",
            "arguments": {"session_id": "s1", "skill_specification": "count"},
        },
    }
    assert post_json(server.port, "/mcp", INITIALIZE)[0] == 200
    status, body = post_json(server.port, "/mcp", call)
    assert status == 200 and '"isError":true' not in body.decode(), body
    code, log = server.signal_and_wait(signal.SIGINT)
    assert code == INTERRUPT, log
    assert "Traceback" not in log
    shown = run_skillstate("--store", url, "get", "s1", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr


def test_a_second_ctrl_c_on_the_http_server_exits_130_without_a_traceback(tmp_path: Path) -> None:
    """Ctrl-C again while uvicorn shuts down forces it: the connections are not waited
    for, but the app's lifespan still ends (it was left to asyncio.run, and logged)."""
    server = ServerProcess(
        ["mcp", "--http", "--port", "0"],
        cwd=tmp_path,
        env=server_env(f"file:{tmp_path / 'store'}"),
        log=tmp_path / "http.log",
        pattern=r"listening on http://[^:]+:(\d+)/mcp",
        what="the HTTP server",
        stdout_to_log=False,
        sigint=True,
    )
    assert post_json(server.port, "/mcp", INITIALIZE)[0] == 200
    server.proc.send_signal(signal.SIGINT)
    time.sleep(0.05)  # uvicorn is shutting down (it waits 0.1 s for the connections)
    code, log = server.signal_and_wait(signal.SIGINT)
    assert code == INTERRUPT, log
    assert "Traceback" not in log and "ERROR" not in log, log


@pytest.mark.parametrize("command", [["ui"], ["mcp", "--http"]])
def test_sigint_stops_a_server_started_with_it_ignored_with_130(
    tmp_path: Path, command: list[str]
) -> None:
    """uvicorn stops on SIGINT even where the parent ignored it (``skillstate ui &`` in a
    script, then ``kill -INT``); the exit code is 130 then too, not 0."""
    (tmp_path / "store").mkdir()  # an empty store: ui shows a store, never makes one
    server = ServerProcess(
        [*command, "--port", "0"],
        cwd=tmp_path,
        env=server_env(f"file:{tmp_path / 'store'}"),
        log=tmp_path / "server.log",
        pattern=r"http://[^:]+:(\d+)/",
        what="the server",
        stdout_to_log=True,
        ignore_sigint=True,
    )
    code, log = server.signal_and_wait(signal.SIGINT)
    assert code == INTERRUPT, log
    assert "Traceback" not in log


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_stdio_exits_130_on_ctrl_c_and_0_at_the_end_of_stdin(
    tmp_path: Path, transport: str
) -> None:
    command = [SKILLSTATE, "mcp", "--transport", transport]
    env = server_env(f"file:{tmp_path / 'store'}")
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=default_sigint,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    proc.stdin.flush()
    assert b'"result"' in proc.stdout.readline()  # it is serving: stdin still open
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    assert proc.returncode == INTERRUPT, err
    assert b"Traceback" not in err

    started = time.monotonic()
    done = subprocess.run(command, cwd=tmp_path, env=env, input=b"", capture_output=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == b"" and time.monotonic() - started < TIMEOUT


HELD = """
import asyncio, os, signal
from skillstate_plugins.mcp.stdio import run_interruptible

async def main():
    try:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C again, in the middle of the shutdown
        await asyncio.sleep(0.05)
        print("shut down", flush=True)
        raise

try:
    run_interruptible(main())
except KeyboardInterrupt:
    raise SystemExit(130)
"""


def test_a_second_ctrl_c_waits_for_the_shutdown_the_first_started() -> None:
    """asyncio.run raised KeyboardInterrupt for it inside the shutdown (anyio's cancel
    scopes, the SDK's task groups): the stdio server then hung or died with a traceback."""
    done = subprocess.run(
        [sys.executable, "-c", HELD],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=default_sigint,
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "shut down\n", "")


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_two_quick_ctrl_c_on_stdio_end_it_without_a_traceback(
    tmp_path: Path, transport: str
) -> None:
    env = server_env(f"file:{tmp_path / 'store'}")
    for _ in range(3):  # a race: the SDK transport hung or exited 1 about one time in three
        proc = subprocess.Popen(
            [SKILLSTATE, "mcp", "--transport", transport],
            cwd=tmp_path,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=default_sigint,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        proc.stdin.flush()
        assert b'"result"' in proc.stdout.readline()
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        # 130, or killed by the second SIGINT once the server had already stopped
        assert proc.returncode in (INTERRUPT, -signal.SIGINT), err
        assert b"Traceback" not in err
