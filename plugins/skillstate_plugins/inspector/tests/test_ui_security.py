"""The inspector's gate (Host 421, Origin 403, token 401, GET/HEAD only), escaping of every
agent-written string, no reasoning, no leaked paths or credentials, and the command's
usage errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import run_skillstate, run_without
from ui_support import HOSTILE_SKILL, IMG, REASONING, SCRIPT, UiServer, fetch, seed

from skillstate_plugins.inspector.app import public_message


@pytest.fixture
def file_url(tmp_path: Path) -> str:
    return f"file:{tmp_path}/state"


@pytest.fixture
def served(file_url: str, tmp_path: Path):
    facts = seed(file_url)
    server = UiServer(file_url, tmp_path)
    try:
        yield server, facts
    finally:
        server.stop()


def _pages(facts: dict[str, object]) -> list[str]:
    rig, head = facts["rig"], facts["rig_head"]
    return [
        "/",
        "/?skill=" + HOSTILE_SKILL.replace("<", "%3C").replace(">", "%3E").replace(" ", "%20"),
        f"/runs/{rig}",
        f"/runs/{rig}/at/{head}",
        f"/runs/{rig}/diff/{head}",
        f"/runs/{rig}/diff?from=1&to={head}",
        "/runs/sess-1",
        "/runs/sess-1/at/1",
        "/runs/sess-1/at/2",
        "/runs/sess-1/diff/2",
        "/runs/sess-1/diff?from=1&to=4",
        "/runs/odd-skill",
    ]


def test_every_agent_written_string_is_escaped(served) -> None:
    server, facts = served
    seen_escaped = 0
    for path in _pages(facts):
        status, _, body = server.get(path)
        assert status == 200, (path, body[:300])
        # No markup an agent wrote survives as markup: no script but ours, no img at all,
        # no event-handler attribute.
        scripts = re.findall(r"<script[^>]*>", body)
        assert all(s.startswith('<script src="/static/live.js"') for s in scripts), (path, scripts)
        assert "<img" not in body, path
        assert not re.search(r"<[^>]+\sonerror\s*=", body), path
        assert SCRIPT not in body and IMG not in body and HOSTILE_SKILL not in body, path
        seen_escaped += body.count("&lt;script&gt;") + body.count("&lt;img")
    assert seen_escaped > 10  # the canaries are there, as text
    _, _, listing = server.get("/")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;skill" in listing  # the skill name
    _, _, session = server.get("/runs/sess-1")
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in session  # a state key, P, Σ
    assert "observed &lt;script&gt;" in session  # the injected observation
    _, _, rig = server.get(f"/runs/{facts['rig']}")
    assert "&#34;&gt;&lt;img src=x onerror=&#34;window.__pwned = 1&#34;&gt;" in rig  # a label


def test_no_reasoning_anywhere(served) -> None:
    server, facts = served
    paths = [*_pages(facts), "/runs/sess-1/export", "/api/runs/sess-1/versions?after=0"]
    for path in paths:
        status, _, body = server.get(path)
        assert status == 200 and REASONING not in body, path


def test_the_gate_checks_host_origin_and_method(served) -> None:
    server, _ = served
    port = server.port
    assert fetch(port, "/", host="evil.example")[0] == 421
    assert fetch(port, "/", host="evil.example:80")[0] == 421
    assert fetch(port, "/", host="")[0] == 421
    assert fetch(port, "/", host=f"localhost:{port}")[0] == 200
    assert fetch(port, "/", host=f"[::1]:{port}")[0] == 200
    status, _, body = fetch(port, "/", headers={"Origin": "http://evil.example"})
    assert status == 403 and "Origin" in body
    assert fetch(port, "/", headers={"Origin": "null"})[0] == 403
    assert fetch(port, "/", headers={"Origin": f"http://127.0.0.1:{port}"})[0] == 200
    assert fetch(port, "/api/runs/abc-18/versions", headers={"Origin": "https://x.test"})[0] == 403
    assert fetch(port, "/", method="POST", host="evil.example")[0] == 405


def test_a_token_is_required_when_configured(file_url: str, tmp_path: Path) -> None:
    seed(file_url)
    server = UiServer(file_url, tmp_path, ["--token", "s3cret-token-123"])
    try:
        port = server.port
        assert "token required" in server.output() and "s3cret-token-123" not in server.output()
        for path in ("/", "/runs/abc-18", "/api/runs/abc-18/versions", "/static/ui.css"):
            status, headers, body = fetch(port, path)
            assert status == 401 and headers["www-authenticate"].startswith("Bearer"), path
            assert "s3cret" not in body
        assert fetch(port, "/", headers={"Authorization": "Bearer wrong"})[0] == 401
        assert fetch(port, "/", headers={"Authorization": "Basic s3cret-token-123"})[0] == 401
        assert fetch(port, "/", headers={"Authorization": "Bearer s3cret-token-123"})[0] == 200
        assert fetch(port, "/?token=wrong")[0] == 401
        status, headers, _ = fetch(port, "/runs/abc-18?token=s3cret-token-123&page=1")
        assert status == 303 and headers["location"] == "/runs/abc-18?page=1"
        cookie = headers["set-cookie"].split(";", 1)[0]
        assert "HttpOnly" in headers["set-cookie"] and "SameSite=Strict" in headers["set-cookie"]
        assert "s3cret" not in cookie  # the cookie holds a digest, not the token
        assert fetch(port, "/runs/abc-18", headers={"Cookie": cookie})[0] == 200
        status, headers, _ = fetch(port, "//evil.example/x?token=s3cret-token-123")
        assert status == 303 and headers["location"] == "/evil.example/x"  # never off-site
        name = cookie.split("=", 1)[0]
        assert fetch(port, "/", headers={"Cookie": f"{name}=0000"})[0] == 401
        assert fetch(port, "/", headers={"Cookie": "garbage;;=\x7f"})[0] == 401
        # Host and Origin are checked before the token
        assert fetch(port, "/", host="evil.example")[0] == 421
    finally:
        server.stop()


def test_token_from_a_file_and_from_the_environment(file_url: str, tmp_path: Path) -> None:
    seed(file_url)
    (tmp_path / "token.txt").write_text("  from-the-file\n\n", encoding="utf-8")
    server = UiServer(file_url, tmp_path, ["--token-file", str(tmp_path / "token.txt")])
    try:
        assert fetch(server.port, "/")[0] == 401
        auth = {"Authorization": "Bearer from-the-file"}
        assert fetch(server.port, "/", headers=auth)[0] == 200
    finally:
        server.stop()
    server = UiServer(file_url, tmp_path, env={"SKILLSTATE_UI_TOKEN": "from-env"})
    try:
        assert fetch(server.port, "/")[0] == 401
        assert fetch(server.port, "/", headers={"Authorization": "Bearer from-env"})[0] == 200
    finally:
        server.stop()


def test_usage_errors_are_one_line(file_url: str, tmp_path: Path) -> None:
    cases = [
        (["ui", "--token", ""], "--token must not be empty"),
        (["ui", "--token", "   "], "--token must not be empty"),
        (["ui", "--token-file", str(tmp_path / "missing.txt")], "missing.txt: cannot read it"),
        (["ui", "--host", "0.0.0.0"], "refusing to serve 0.0.0.0 without a token"),
        (["ui", "--port", "70000"], "a port is 0-65535"),
        (["ui", "--token", "a", "--token-file", "b"], "not allowed with argument"),
        (["mcp", "--ui"], "--ui applies to --http only"),
        (["mcp", "--http", "--transport", "sdk"], "--transport applies to stdio only"),
        (["mcp", "--max-body", "5"], "--header-timeout apply to --http only"),
        (["mcp", "--header-timeout", "2"], "--header-timeout apply to --http only"),
    ]
    (tmp_path / "empty.txt").write_text("\n", encoding="utf-8")
    cases.append((["ui", "--token-file", str(tmp_path / "empty.txt")], "empty.txt is empty"))
    for args, message in cases:
        done = run_skillstate("--store", file_url, *args, cwd=tmp_path, timeout=30)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
        assert str(tmp_path) not in done.stderr and "Traceback" not in done.stderr
    done = run_skillstate("--store", file_url, "ui", "--token", "", cwd=tmp_path)
    assert done.stderr.count("\n") == 1


def test_a_port_in_use_is_one_line(file_url: str, tmp_path: Path) -> None:
    server = UiServer(file_url, tmp_path)
    try:
        done = run_skillstate("--store", file_url, "ui", "--port", str(server.port), cwd=tmp_path)
        assert done.returncode == 3
        assert done.stderr == (
            f"skillstate: cannot listen on 127.0.0.1:{server.port}: the address is already in "
            "use (another server is there; choose another --port, or 0 for any free port)\n"
        )
    finally:
        server.stop()


def test_without_the_ui_extra_the_command_says_what_to_install(tmp_path: Path) -> None:
    for args in (["ui"], ["mcp", "--http", "--ui"]):
        done = run_without(["jinja2"], "--store", f"file:{tmp_path}/s", *args, cwd=tmp_path)
        assert (done.returncode, done.stdout) == (3, ""), (args, done.stderr)
        assert done.stderr == (
            "skillstate: the run inspector needs the 'ui' extra, which is not installed: "
            "pip install 'skillstate[ui]'\n"
        )


def test_errors_leak_no_server_path(file_url: str, tmp_path: Path) -> None:
    seed(file_url)
    state = tmp_path / "state"
    for damaged in state.rglob("abc-18*"):  # the record and its journal
        damaged.write_text("{not json\n", encoding="utf-8")
    server = UiServer(file_url, tmp_path)
    try:
        for path in ("/", "/runs/abc-18", "/runs/abc-18/at/1", "/runs/abc-18/export"):
            status, _, body = server.get(path)
            assert str(tmp_path) not in body and "Traceback" not in body, (path, body)
            assert status in (200, 503), (path, status)
        status, _, body = server.get("/runs/abc-18")
        assert status == 503 and "the store could not be read" in body, body
        assert "&lt;path&gt;" in body or "abc-18" in body
        _, _, listing = server.get("/")
        assert "could not be read" in listing  # the damaged run is counted, not listed
    finally:
        server.stop()


def test_public_messages_mask_paths_and_credentials() -> None:
    secret = "postgresql://app:pa55word-xyz@db.example/app"
    from skillstate.masking import url_secrets

    text = public_message(
        "cannot read /srv/skillstate/state/abc.json (password pa55word-xyz) at C:/x/y/z",
        url_secrets(secret),
    )
    assert "/srv" not in text and "pa55word" not in text and "C:/x" not in text
    assert "<path>" in text and "***" in text
    assert public_message("run 'abc-18' has no version 9") == "run 'abc-18' has no version 9"
    assert public_message("a/b is fine, 1/2 too") == "a/b is fine, 1/2 too"
    # a store URL names a server path too (what "store … is closed" and friends print)
    for url in ("sqlite:////srv/data/runs.db", "file:/srv/data/state", "file:.skillstate/state"):
        shown = public_message(f"store {url} is closed")
        assert "srv" not in shown and "skillstate/state" not in shown, shown
        assert shown == f"store {url.split(':')[0]}:<path> is closed"
    assert public_message("postgresql://u:***@db/x") == "postgresql://u:***@db/x"


def test_mcp_http_serves_the_inspector_at_ui(file_url: str, tmp_path: Path) -> None:
    seed(file_url)
    server = UiServer(file_url, tmp_path, mcp=True)
    try:
        status, _, body = server.get("/")
        assert status == 200 and 'href="/ui/runs/abc-18"' in body
        assert 'href="/ui/static/ui.css"' in body
        status, _, page = server.get("/runs/abc-18")
        assert status == 200 and 'data-api="/ui/api/runs/abc-18/versions"' in page
        assert fetch(server.port, "/ui/static/live.js")[0] == 200
        assert fetch(server.port, "/health")[0] == 200  # the MCP server's own routes still answer
        assert fetch(server.port, "/ui/", host="evil.example")[0] == 421
        assert fetch(server.port, "/ui/", method="POST")[0] == 405
    finally:
        server.stop()
    server = UiServer(file_url, tmp_path, ["--token", "mcp-token-42"], mcp=True)
    try:
        assert fetch(server.port, "/ui/")[0] == 401
        assert fetch(server.port, "/health")[0] == 401
        auth = {"Authorization": "Bearer mcp-token-42"}
        assert fetch(server.port, "/ui/", headers=auth)[0] == 200
        status, headers, _ = fetch(server.port, "/ui/?token=mcp-token-42")
        assert status == 303 and headers["location"] == "/ui/"
        assert "Path=/ui" in headers["set-cookie"]
    finally:
        server.stop()


def test_the_two_gates_share_one_host_origin_and_token_check() -> None:
    """The MCP server's gate and the inspector's are one implementation
    (skillstate.netguard), not two copies that can drift apart."""
    import inspect

    import skillstate_plugins.mcp.http as mcp_http
    import skillstate_plugins.mcp.serving as mcp_serving
    import skillstate.netguard as netguard
    import skillstate_plugins.inspector.gate as ui_gate
    import skillstate_plugins.inspector.serve as ui_serve

    for module in (mcp_http, mcp_serving, ui_gate, ui_serve):
        source = inspect.getsource(module)
        for own in ("compare_digest", "def _origin_name", "socket.socket(", "def _hostname"):
            assert own not in source, (module.__name__, own)
    assert mcp_serving.bind is netguard.bind and ui_serve.bind is netguard.bind
    for name in ("allowed_names", "host_allowed", "origin_allowed", "bearer_matches"):
        assert getattr(mcp_http, name) is getattr(netguard, name), name
        assert getattr(ui_gate, name) is getattr(netguard, name), name
    names = netguard.allowed_names(
        "0.0.0.0", ["Ui.Example.test", "[::2]", "Proxy.test:8443", "::3"]
    )
    assert netguard.host_allowed("proxy.test:8443", names)  # a port in --allowed-host
    assert netguard.host_allowed("[::3]:80", names)
    assert netguard.host_allowed("ui.example.test:8080", names)
    assert netguard.host_allowed("[::2]:1", names) and netguard.host_allowed("[::1]", names)
    assert not netguard.host_allowed("0.0.0.0", names) and not netguard.host_allowed(None, names)
    assert not netguard.host_allowed("localhost:8o", names)
    assert not netguard.host_allowed("localhost:\u0661", names)  # an Arabic-Indic digit
    assert netguard.origin_allowed(None, names) and netguard.origin_allowed(
        "https://localhost:3", names
    )
    assert not netguard.origin_allowed("null", names)
    assert not netguard.origin_allowed("http://evil.test", names)
    assert netguard.bearer_matches("bearer  tok ", b"tok")
    assert not netguard.bearer_matches("Basic tok", b"tok")
    assert not netguard.bearer_matches("Bearer ", b"")
