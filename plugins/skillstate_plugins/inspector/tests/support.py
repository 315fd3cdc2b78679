"""Shared parts of the inspector's tests: stores, seeded runs with XSS canaries, a real server."""

from __future__ import annotations

import http.client
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import support
from support import SKILLSTATE, TIMEOUT, ServerProcess

from skillstate.testing.helpers import make_host

__all__ = [
    "CANARY",
    "REASONING",
    "SKILLSTATE",
    "UiServer",
    "fetch",
    "seed",
]


CANARY = "window.__pwned = 1"
"""What every injected script would run: the browser test checks the flag stays unset."""
SCRIPT = f"<script>{CANARY}</script>"
IMG = f'"><img src=x onerror="{CANARY}">'
REASONING = "REASONING-CANARY-must-never-be-shown"
HOSTILE_SKILL = f"<script>{CANARY}</script>skill"


def seed(url: str, versions: int = 4) -> dict[str, Any]:
    """Runs to look at: a rig run of ``versions`` versions, a session with hostile strings
    everywhere an agent writes (state keys and values, labels, actions, observations,
    P), a step with a reasoning canary, and a run whose skill name is hostile."""
    from skillstate import Change, create_run, transition
    from skillstate.records import JournalEntry, RunRecord
    from skillstate.runtime import Runtime

    host = make_host(url)
    store = host.open_store()
    rig = host.skill("rig-task")
    create_run(host, store, rig, "abc-18", {"branch": "feat/login", "nextAction": "write tests"})
    for n in range(2, versions + 1):
        patch = {"tests": {"fail": n % 3, "pass": n}, "phase": "red" if n % 2 else "green"}
        outcome = transition(
            host, store, "abc-18", Change(patch=patch, label=f"step {n}"), skill=rig
        )
        assert outcome.accepted, outcome.problems
    outcome = transition(
        host,
        store,
        "abc-18",
        Change(patch={"nextAction": SCRIPT}, label=IMG),
        skill=rig,
    )
    assert outcome.accepted, outcome.problems

    runtime = Runtime(host=host)
    runtime.initialize_skill(
        "sess-1",
        f"P: solve the task. {SCRIPT} {IMG}",
        {SCRIPT: IMG, "plan": [IMG, {"deep": SCRIPT}], "count": 0},
        environment="mock",
    )
    runtime.execute_step("sess-1", REASONING, {"count": 1, IMG: SCRIPT}, f"echo {IMG}")
    runtime.execute_step("sess-1", REASONING, {"count": 2}, {"type": "noop"})
    runtime.inject_observation("sess-1", f"observed {SCRIPT} {IMG}")
    runtime.close()

    now = "2026-12-01T10:00:00.000Z"
    record = RunRecord(
        id="odd-skill", skill=HOSTILE_SKILL, state={"x": 1}, created=now, updated=now
    )
    store.create(
        record,
        JournalEntry(
            ts=now, step="init", patch={}, version=1, base={"x": 1}, status="active", turn=0
        ),
    )
    head = store.get("abc-18").version
    store.close()
    host.close()
    return {"rig": "abc-18", "rig_head": head, "session": "sess-1", "odd": "odd-skill"}


def server_env(url: str, **extra: str) -> dict[str, str]:
    return support.server_env(url, HOME=os.environ.get("HOME", "/tmp"), **extra)


class UiServer(ServerProcess):
    """A ``skillstate ui --port 0`` process (or ``mcp --http --ui``); ``base`` once it listens."""

    def __init__(
        self,
        url: str,
        cwd: Path,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        mcp: bool = False,
    ) -> None:
        command = ["mcp", "--http", "--ui", "--port", "0"] if mcp else ["ui", "--port", "0"]
        pattern = (
            r"inspector at http://[^:]+:(\d+)/ui/" if mcp else r"skillstate ui: http://[^:]+:(\d+)/"
        )
        super().__init__(
            [*command, *args],
            cwd=cwd,
            env=server_env(url, **(env or {})),
            log=cwd / f"ui-{time.monotonic_ns()}.log",
            pattern=pattern,
            what="the inspector",
            stdout_to_log=True,
        )
        self.prefix = "/ui" if mcp else ""
        self.base = f"http://127.0.0.1:{self.port}{self.prefix}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def get(self, path: str, **kwargs: Any) -> tuple[int, dict[str, str], str]:
        return fetch(self.port, self.prefix + path, **kwargs)


def fetch(
    port: int,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    host: str | None = None,
) -> tuple[int, dict[str, str], str]:
    """One real HTTP request to 127.0.0.1:``port``; (status, headers lower-cased, body)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        sent = {"Host": host if host is not None else f"127.0.0.1:{port}", **(headers or {})}
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for name, value in sent.items():
            conn.putheader(name, value)
        conn.endheaders()
        response = conn.getresponse()
        body = response.read().decode("utf-8", "replace")
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        conn.close()
