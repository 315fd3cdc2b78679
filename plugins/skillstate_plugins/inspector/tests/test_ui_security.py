"""The inspector's gate (Host 421, Origin 403, token 401, GET/HEAD only), escaping of every
agent-written string, no reasoning, no leaked paths or credentials, the command's usage
errors, its connection limits, and its app as another server mounts it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ..app import public_message, url_secrets
from .support import (
    HOSTILE_SKILL,
    IMG,
    REASONING,
    SCRIPT,
    UiServer,
    fetch,
    run_skillstate,
    run_without,
    seed,
)


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
        (["ui", "--token", ""], '--token is empty (is the variable in --token "$TOKEN" unset?)'),
        (["ui", "--token", "   "], "--token is empty"),
        (["ui", "--token-file", str(tmp_path / "missing.txt")], "missing.txt: cannot read it"),
        (
            ["ui", "--host", "0.0.0.0"],
            "refusing to serve on 0.0.0.0 without a token: anyone who can reach it could "
            "read every run; set $SKILLSTATE_UI_TOKEN or --token-file FILE",
        ),
        (["ui", "--port", "70000"], "a port is 0-65535"),
        (["ui", "--token", "a", "--token-file", "b"], "give --token or --token-file, not both"),
        (["ui", "--max-connections", "0"], "expected a whole number >= 1, got 0"),
        (["ui", "--header-timeout", "0"], "expected 0 < seconds <= 3600, got 0"),
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
    assert not (tmp_path / "state").exists()  # refused before the store was opened


def test_a_port_in_use_is_one_line(file_url: str, tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()  # an empty store: ui shows a store, never makes one
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
            "pip install -e '.[ui]' from a checkout (pip install 'skillstate[ui]' after the first "
            "release)\n"
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


def test_the_store_url_secrets_are_what_the_pages_mask() -> None:
    url = "postgresql://app:p%40ss-w0rd@db.example/app?sslmode=require&password=pw2&token=t-9"
    found = url_secrets(url)
    assert {"p%40ss-w0rd", "p@ss-w0rd", "pw2", "t-9"} <= set(found)
    assert "require" not in found and "app" not in found
    assert url_secrets("file:.skillstate/state") == [] and url_secrets("sqlite:///x.db") == []
    text = public_message("auth failed for p@ss-w0rd; pw2 was refused, pwd kept", found)
    assert text == "auth failed for ***; *** was refused, pwd kept"


def test_the_gate_and_the_server_are_the_serving_kits() -> None:
    """Host, Origin, the bearer token, the socket and uvicorn are skillstate_serving's,
    shared with the MCP server: the inspector has no copy of its own to drift apart."""
    import inspect

    from .. import command, gate

    for module in (gate, command):
        source = inspect.getsource(module)
        for own in ("import socket", "import uvicorn", "urlsplit", "allowed_names", "bind("):
            assert own not in source, (module.__name__, own)
    assert "check_request(" in inspect.getsource(gate)
    assert "serve(" in inspect.getsource(command)


def test_a_session_cookie_opens_only_the_server_that_issued_it(
    file_url: str, tmp_path: Path
) -> None:
    """Before, the cookie was ``sha256(token)`` under one name, with no expiry: browsers
    send it to every port of 127.0.0.1, and any local service that got it could replay it
    to any inspector with that token. Now it is random per server, named for the port,
    expires, and the old digest opens nothing."""
    import hashlib

    seed(file_url)
    token = "shared-token-77"
    first = UiServer(file_url, tmp_path, ["--token", token])
    second = UiServer(file_url, tmp_path, ["--token", token])
    try:
        status, headers, _ = fetch(first.port, f"/?token={token}")
        assert status == 303
        attributes = [part.strip() for part in headers["set-cookie"].split(";")]
        name, value = attributes[0].split("=", 1)
        assert name == f"skillstate_ui_{first.port}"
        assert {"HttpOnly", "SameSite=Strict", "Max-Age=43200"} <= set(attributes)
        assert token not in value and hashlib.sha256(token.encode()).hexdigest() not in value
        assert fetch(first.port, "/", headers={"Cookie": f"{name}={value}"})[0] == 200
        # the same cookie, under its own name or under the other server's, opens nothing there
        for other_name in (name, f"skillstate_ui_{second.port}"):
            cookie = {"Cookie": f"{other_name}={value}"}
            assert fetch(second.port, "/runs/abc-18/export", headers=cookie)[0] == 401
        # the other server's own login gives a different value
        status, headers, _ = fetch(second.port, f"/?token={token}")
        assert headers["set-cookie"].split(";")[0].split("=", 1)[1] != value
        # the old cookie, sha256 of the token, under the old name and the new ones
        digest = hashlib.sha256(b"skillstate-ui\0" + token.encode()).hexdigest()
        for old_name in ("skillstate_ui_token", name):
            assert fetch(first.port, "/", headers={"Cookie": f"{old_name}={digest}"})[0] == 401
        # a value whose time was changed (to live longer) is refused: it is signed
        issued, signature = value.split(".", 1)
        forged = f"{int(issued) + 1}.{signature}"
        assert fetch(first.port, "/", headers={"Cookie": f"{name}={forged}"})[0] == 401
    finally:
        first.stop()
        second.stop()
