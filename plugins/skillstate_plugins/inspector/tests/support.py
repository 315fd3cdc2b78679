"""Shared parts of the inspector's tests: seeded runs with XSS canaries, a real server, requests.

Everything runs the installed ``skillstate`` console script for real, in this
environment, with the plugin selection of the test run kept (so the tests of a copy of
this package lifted out under another name run its ``ui``, not the bundled one).
"""

from __future__ import annotations

import http.client
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from skillstate_testing import clean_env, make_host, run_command

__all__ = [
    "CANARY",
    "REASONING",
    "TIMEOUT",
    "UiServer",
    "fetch",
    "run_skillstate",
    "run_without",
    "seed",
]

SKILLSTATE = str(Path(sys.executable).parent / "skillstate")
TIMEOUT = 60.0
"""How long a test waits on a server subprocess (to start, to answer)."""

CANARY = "window.__pwned = 1"
"""What every injected script would run: the browser test checks the flag stays unset."""
SCRIPT = f"<script>{CANARY}</script>"
IMG = f'"><img src=x onerror="{CANARY}">'
REASONING = "REASONING-CANARY-must-never-be-shown"
HOSTILE_SKILL = f"<script>{CANARY}</script>skill"


def run_skillstate(
    *args: str, cwd: Path | None = None, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` for real, output captured as text."""
    return run_command("skillstate", *args, cwd=cwd, timeout=timeout, **env)


def run_without(
    libraries: Sequence[str], *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` in a real subprocess whose import hook hides ``libraries`` (and
    their submodules), as if they were not installed."""
    code = (
        "import importlib.abc, importlib.metadata, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {tuple(libraries)!r}:\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "(script,) = importlib.metadata.entry_points(group='console_scripts', name='skillstate')\n"
        "sys.argv[0] = 'skillstate'\n"
        "sys.exit(script.load()())\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=cwd,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def seed(url: str, versions: int = 4) -> dict[str, Any]:
    """Runs to look at: a rig run of ``versions`` versions, a session with hostile strings
    everywhere an agent writes (state keys and values, labels, actions, observations,
    P), a step with a reasoning canary, and a run whose skill name is hostile."""
    from skillstate.plugin import Change, JournalEntry, RunRecord, create_run, transition
    from skillstate.plugin.runtime import Runtime

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


class UiServer:
    """A ``skillstate ui --port 0`` process (or ``mcp --http --ui``) on ``url``'s store,
    logging to a file in ``cwd``; ``port`` and ``base`` once it listens."""

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
        self.log = cwd / f"ui-{time.monotonic_ns()}.log"
        self.out = open(self.log, "wb")
        self.proc = subprocess.Popen(
            [SKILLSTATE, *command, *args],
            cwd=cwd,
            env=clean_env(SKILLSTATE_STORE=url, PYTHONDONTWRITEBYTECODE="1", **(env or {})),
            stdin=subprocess.DEVNULL,
            stdout=self.out,
            stderr=subprocess.STDOUT,
        )
        self.port = self._wait(pattern)
        self.prefix = "/ui" if mcp else ""
        self.base = f"http://127.0.0.1:{self.port}{self.prefix}"

    def _wait(self, pattern: str) -> int:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            text = self.output()
            found = re.search(pattern, text)
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                self.out.close()
                raise RuntimeError(f"the inspector exited ({self.proc.returncode}):\n{text}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("the inspector did not start listening in time")

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def get(self, path: str, **kwargs: Any) -> tuple[int, dict[str, str], str]:
        return fetch(self.port, self.prefix + path, **kwargs)

    def signal_and_wait(self, signum: int) -> tuple[int, str]:
        """Send ``signum``, wait for the exit; the exit code and the whole log."""
        self.proc.send_signal(signum)
        try:
            code = self.proc.wait(TIMEOUT)
        finally:
            self.stop()
        return code, self.output()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.out.close()


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
