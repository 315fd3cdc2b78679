"""Raw JSON-RPC over a ``skillstate mcp`` stdio subprocess (no client library)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from mcp_support import SKILLSTATE, server_env


def test_stdio_from_files_falls_back_and_survives_unparsable_lines(tmp_path: Path) -> None:
    """stdout a regular file (not a pipe): the fast transport falls back to the SDK's.

    Raw JSON-RPC (the legacy handshake): a line nested past the SDK parser's limit and a
    line that is not JSON get no answer, and the requests after them are served.
    """
    deep = '{"a":' * 400 + "1" + "}" * 400
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"},
                },
            }
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_session",'
        f'"arguments":{{"session_id":{deep}}}}}}}',
        "{not json",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "list_sessions", "arguments": {"verbose": True}},
            }
        ),
    ]
    out_path = tmp_path / "out.jsonl"
    err_path = tmp_path / "err.log"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen(
            [SKILLSTATE, "mcp"],
            stdin=subprocess.PIPE,
            stdout=out,
            stderr=err,
            cwd=tmp_path,
            env=server_env(f"file:{tmp_path / 'store'}"),
        )
        assert proc.stdin is not None
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while out_path.read_text().count("\n") < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.stdin.close()  # EOF: the server finishes and exits
        assert proc.wait(60) == 0, err_path.read_text()
    answers = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [a.get("id") for a in answers] == [0, 2]
    assert answers[0]["result"]["serverInfo"]["name"] == "skillstate"
    assert answers[1]["result"]["isError"] is True
    assert 'unknown argument "verbose"' in answers[1]["result"]["content"][0]["text"]
