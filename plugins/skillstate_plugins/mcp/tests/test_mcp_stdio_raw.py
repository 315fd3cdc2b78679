"""Raw JSON-RPC over a ``skillstate mcp`` stdio subprocess (no client library)."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from ..stdio import DEFAULT_MAX_LINE
from .support import INITIALIZED, SKILLSTATE, raw_initialize, serve_raw, server_env


def test_stdio_from_files_falls_back_and_survives_unparsable_lines(tmp_path: Path) -> None:
    """stdout a regular file (not a pipe): the fast transport falls back to the SDK's.

    Raw JSON-RPC (the legacy handshake): a line nested past the SDK parser's limit gets
    an error with its id, a line that is not JSON an error with ``id: null`` (the SDK
    answers neither), and the requests after them are served.
    """
    deep = '{"a":' * 400 + "1" + "}" * 400
    lines = [
        raw_initialize(0).decode(),
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
        while out_path.read_text().count("\n") < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.stdin.close()  # EOF: the server finishes and exits
        assert proc.wait(60) == 0, err_path.read_text()
    answers = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [a.get("id") for a in answers] == [0, 1, None, 2]
    assert answers[0]["result"]["serverInfo"]["name"] == "skillstate"
    assert answers[1]["error"]["code"] == -32600
    assert answers[2]["error"]["code"] == -32700
    assert answers[3]["result"]["isError"] is True
    assert 'unknown argument "verbose"' in answers[3]["result"]["content"][0]["text"]


def test_fast_transport_drops_an_over_long_line_and_serves_the_rest(tmp_path: Path) -> None:
    """On pipes: blank lines are skipped, a line over the 64 MiB limit is dropped with a
    warning, an unparsable one an error with ``id: null``, and the requests around them
    are served."""
    listing = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "list_sessions", "arguments": {}},
        }
    )
    payload = b"\n".join(
        [
            raw_initialize(0),
            INITIALIZED,
            b"   ",
            b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
            + b"x" * (DEFAULT_MAX_LINE + 10)
            + b'"}}',
            b"{not json",
            listing.encode(),
            b"",
        ]
    )
    answers, stderr = serve_raw(tmp_path, payload, 3)
    assert [a["id"] for a in answers] == [0, None, 2]
    assert answers[1]["error"]["code"] == -32700
    assert answers[2]["result"]["structuredContent"]["sessions"] == []
    assert "dropped an input line longer than the stdio line limit" in stderr


def test_fast_transport_leaves_an_opening_other_than_initialize_to_the_sdk(
    tmp_path: Path,
) -> None:
    """A first request that is not the handshake goes through ``Server.run``, which
    answers it (here: a ping before initialize) and still serves the handshake after."""
    ping = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
    answers, _ = serve_raw(tmp_path, ping + b"\n" + raw_initialize(8) + b"\n", 2)
    assert [a["id"] for a in answers] == [7, 8]
    assert answers[1]["result"]["serverInfo"]["name"] == "skillstate"
