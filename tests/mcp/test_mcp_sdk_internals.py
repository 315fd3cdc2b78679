"""The SDK internals skillstate uses (plugins/skillstate_plugins/mcp/sdk.py): known versions only.

- The installed SDK must be one :data:`KNOWN_SDK_VERSIONS` lists: a new SDK version
  fails here until sdk.py has been checked against it and the version added.
- On a version it does not know, skillstate refuses its internals with one clear
  warning and serves through the public API: the SDK's stdio transport, no fast result
  path, and ``add_tools`` saying how to build the server instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from mcp_support import initialize_request

from skillstate_plugins.mcp import sdk


def test_the_installed_sdk_is_a_version_sdk_py_knows() -> None:
    found = sdk.sdk_version()
    assert found in sdk.KNOWN_SDK_VERSIONS, (
        f"MCP SDK {found} is installed but plugins/skillstate_plugins/mcp/sdk.py knows only "
        f"{sdk.KNOWN_SDK_VERSIONS}: check every internal it uses against {found} "
        "(the differential tests run both paths), then add it to KNOWN_SDK_VERSIONS"
    )
    assert sdk.internals_refusal() is None


def test_the_http_exchange_kit_fits_only_a_stateless_json_app() -> None:
    from mcp.server import MCPServer

    for stateless, json_response in ((True, True), (True, False), (False, True)):
        server: MCPServer = MCPServer("kit")
        assert sdk.http_exchange_kit(server) is None  # no Streamable HTTP app yet
        server.streamable_http_app(stateless_http=stateless, json_response=json_response)
        kit = sdk.http_exchange_kit(server)
        assert (kit is not None) == (stateless and json_response)
        if kit is not None:
            assert not kit.running()  # until the app's lifespan runs the session manager
            assert "2025-06-18" in kit.handshake_versions
            assert "2026-07-28" not in kit.handshake_versions


PATCHED = textwrap.dedent(
    """
    import importlib.metadata as md
    real = md.version
    md.version = lambda name: "9.9.9" if name == "mcp" else real(name)
    """
)


def _run(code: str, tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    script = tmp_path / "probe.py"
    script.write_text(PATCHED + textwrap.dedent(code))
    return subprocess.run(
        [sys.executable, str(script)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={"SKILLSTATE_STORE": f"file:{tmp_path / 'state'}", "PATH": "/usr/bin:/bin"},
    )


def test_an_unknown_sdk_version_is_refused_for_the_public_path(tmp_path: Path) -> None:
    done = _run(
        """
        import json
        from mcp.server import MCPServer
        from mcp.server.runner import ServerRunner
        from skillstate_plugins.mcp import sdk
        from skillstate_plugins.mcp.http import http_app
        from skillstate_plugins.mcp.server import add_tools, build_server
        from skillstate.runtime import Runtime

        runtime = Runtime("memory:")
        server = build_server(runtime)
        exchange = http_app(server).exchange
        try:
            add_tools(MCPServer("other"), runtime)
            refused = None
        except RuntimeError as exc:
            refused = str(exc)
        print(json.dumps({
            "refusal": sdk.internals_refusal(),
            "allowed": sdk.internals_allowed(),
            "lowlevel": sdk.lowlevel_server(server) is None,
            "fast_path": hasattr(ServerRunner._serialize, "__wrapped__"),
            "call_fast_path": hasattr(ServerRunner._on_request, "__wrapped__"),
            "add_tools": refused,
            "exchange": exchange is None,
        }))
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["refusal"].startswith("MCP SDK 9.9.9 is not one skillstate knows (2.3.0")
    assert report["allowed"] is False
    assert report["lowlevel"] is True
    assert report["fast_path"] is False
    assert report["call_fast_path"] is False
    assert report["exchange"] is True  # every POST takes the SDK's stateless path
    assert "build the server with" in report["add_tools"]
    assert done.stderr.count("MCP SDK 9.9.9 is not one skillstate knows") == 1


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_an_unknown_sdk_version_still_serves_stdio(tmp_path: Path, transport: str) -> None:
    lines = [
        initialize_request(1),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "initialize_skill",
                "arguments": {"session_id": "s1", "skill_specification": "P"},
            },
        },
    ]
    script = tmp_path / "serve.py"
    script.write_text(
        PATCHED
        + "import sys\nfrom skillstate.cli.main import main\n"
        + f"sys.argv = ['skillstate', 'mcp', '--transport', '{transport}']\nmain()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={"SKILLSTATE_STORE": f"file:{tmp_path / 'state'}", "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    answers = []
    for line in lines:
        proc.stdin.write(json.dumps(line) + "\n")
        proc.stdin.flush()
        if "id" in line:
            answers.append(json.loads(proc.stdout.readline()))
    _, stderr = proc.communicate(timeout=60)
    assert [a["id"] for a in answers] == [1, 2], stderr
    payload = answers[1]["result"]["structuredContent"]
    assert payload["session_id"] == "s1"
    assert json.loads(answers[1]["result"]["content"][0]["text"]) == payload
    assert "MCP SDK 9.9.9 is not one skillstate knows" in stderr
