"""SIGTERM on a serving command (``skillstate ui``, ``skillstate mcp --http``) shuts it down
as Ctrl-C does, closes the store (its pending syncs flushed) and exits 143
(``exits.TERMINATED``, 128 + 15). uvicorn re-raises SIGTERM after its graceful shutdown;
left to the default action, that ended the process before the CLI closed its store.
Real processes, real SIGTERM."""

from __future__ import annotations

import http.client
import os
import signal
from pathlib import Path

from support import ServerProcess, initialize_request, post_json, run_skillstate, server_env

from skillstate.cli.exits import TERMINATED

INITIALIZE = initialize_request()

# Imported by the server's interpreter at start-up (PYTHONPATH): every sync is written to
# stderr, and the group sync's thread waits ten minutes, so only closing the store (or
# the interpreter's exit) syncs what a commit left pending.
SYNC_SPY = """
import os, sys
from skillstate_plugins.file_store import group_sync
from skillstate_plugins.file_store.syncs import observing_syncs

def seen(fd, directory):
    sys.stderr.write("synced " + os.readlink(f"/proc/self/fd/{fd}") + "\\n")
    sys.stderr.flush()

syncs = group_sync.pending_syncs()
syncs.window = syncs.delay = 600.0
observing = observing_syncs(seen)  # kept: a collected one would stop observing
observing.__enter__()
"""


def test_sigterm_on_the_inspector_exits_143(tmp_path: Path) -> None:
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
    )
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    conn.request("GET", "/runs/r1")
    assert conn.getresponse().status == 200
    conn.close()
    code, log = server.signal_and_wait(signal.SIGTERM)
    assert code == TERMINATED, log
    assert "Traceback" not in log


def test_sigterm_on_the_http_server_closes_the_store_and_exits_143(tmp_path: Path) -> None:
    if not os.path.isdir("/proc/self/fd"):
        import pytest

        pytest.skip("the sync spy reads /proc/self/fd")
    spy = tmp_path / "spy"
    spy.mkdir()
    (spy / "sitecustomize.py").write_text(SYNC_SPY, encoding="utf-8")
    root = tmp_path / "store"
    url = f"file:{root}?durability=process"  # syncs pending until the store closes
    server = ServerProcess(
        ["mcp", "--http", "--port", "0"],
        cwd=tmp_path,
        env=server_env(url, PYTHONPATH=str(spy)),
        log=tmp_path / "http.log",
        pattern=r"listening on http://[^:]+:(\d+)/mcp",
        what="the HTTP server",
        stdout_to_log=False,
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
    assert "synced" not in server.log.read_text(errors="replace")  # still pending
    code, log = server.signal_and_wait(signal.SIGTERM)
    assert code == TERMINATED, log
    assert "Traceback" not in log
    assert f"synced {root / 's1.jsonl'}\n" in log, log
    assert f"synced {root}\n" in log, log
    shown = run_skillstate("--store", url, "get", "s1", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
