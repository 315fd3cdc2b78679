"""Shared test helpers (import with `from support import ...`)."""

from __future__ import annotations

import http.client
import itertools
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# the kit's (skip, or fail under CI=true), for the tests that import it from here
from skillstate_testing import require_service as require_service

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
SKILLSTATE = str(VENV_BIN / "skillstate")
TIMEOUT = 60.0
"""How long a test waits on a server subprocess (to start, to answer)."""


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without any SKILLSTATE_* variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env.update(extra)
    return env


def run_skillstate(
    *args: str, cwd: Path | None = None, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` in a clean environment (plus ``env``), output captured as text."""
    return subprocess.run(
        [SKILLSTATE, *args],
        capture_output=True,
        text=True,
        env=clean_env(**env),
        cwd=cwd,
        timeout=timeout,
    )


def make_distribution(
    root: Path,
    name: str,
    module: str,
    source: str,
    entry_points: dict[str, str],
    *,
    egg_info: bool = False,
) -> None:
    """A real (unpacked) installed distribution: a module plus a .dist-info on sys.path,
    or (``egg_info``) an unversioned ``NAME.egg-info``, as ``setup.py develop`` leaves."""
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    if egg_info:
        info = root / f"{name.replace('-', '_')}.egg-info"
    else:
        info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / ("PKG-INFO" if egg_info else "METADATA")).write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    lines = "".join(f"{ep} = {value}\n" for ep, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[skillstate]\n{lines}", encoding="utf-8")


def server_env(store_url: str, **extra: str) -> dict[str, str]:
    """The environment of a ``skillstate`` server under test: the store, PATH, ``extra``."""
    env = {
        "SKILLSTATE_STORE": store_url,
        "PYTHONDONTWRITEBYTECODE": "1",
        "PATH": os.environ.get("PATH", ""),
    }
    env.update(extra)
    return env


def ignored_sigint() -> None:
    """A ``preexec_fn``: SIGINT ignored, as in a script's ``cmd &`` background job."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def default_sigint() -> None:
    """A ``preexec_fn``: Ctrl-C (SIGINT) handled as on a terminal, not ignored."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


class ServerProcess:
    """A ``skillstate`` server subprocess logging to ``log``; ``port`` once a line of the
    log matches ``pattern`` (its group 1 is the port). ``what`` names it in failures."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        log: Path,
        pattern: str,
        what: str,
        stdout_to_log: bool,
        timeout: float = TIMEOUT,
        sigint: bool = False,
        ignore_sigint: bool = False,
    ) -> None:
        """``sigint``: the server gets SIGINT's default handling even when the tests run
        as a shell's background job (whose children inherit "ignore SIGINT");
        ``ignore_sigint``: it starts with SIGINT ignored, as such a job."""
        self.log = log
        self._log = open(log, "wb")
        self.proc = subprocess.Popen(
            [SKILLSTATE, *command],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log if stdout_to_log else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if stdout_to_log else self._log,
            preexec_fn=ignored_sigint if ignore_sigint else default_sigint if sigint else None,
        )
        self.port = self._wait(pattern, what, timeout)

    def _wait(self, pattern: str, what: str, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.log.read_text(errors="replace")
            found = re.search(pattern, text)
            if found:
                return int(found.group(1))
            if self.proc.poll() is not None:
                raise RuntimeError(f"{what} exited ({self.proc.returncode}):\n{text}")
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{what} did not start listening in time")

    def signal_and_wait(self, signum: int) -> tuple[int, str]:
        """Send ``signum``, wait for the exit; the exit code and the whole log."""
        self.proc.send_signal(signum)
        try:
            code = self.proc.wait(TIMEOUT)
        finally:
            self.stop()
        return code, self.log.read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


def command_output_pairs(blocks: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """Of a page's ``(kind, body)`` code blocks: each ``sh`` block and the ``text`` block
    right after it (the output the page shows for it)."""
    return [
        (body, expected)
        for (kind, body), (next_kind, expected) in itertools.pairwise(blocks)
        if kind == "sh" and next_kind == "text"
    ]


def run_doc_commands(commands: str, cwd: Path) -> str:
    """A docs ``sh`` block run by bash in ``cwd`` with this environment's scripts first on
    PATH; its stdout and stderr, in order."""
    done = subprocess.run(
        ["bash", "-c", f"{{\n{commands}}} 2>&1"],
        cwd=cwd,
        env=clean_env(PATH=f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.stdout


def run_without(
    libraries: Sequence[str], *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` in a real subprocess whose import hook hides ``libraries`` (and
    their submodules), as if they were not installed."""
    code = (
        "import importlib.abc, sys\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {tuple(libraries)!r}:\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "from skillstate.cli.main import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
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


def initialize_request(request_id: int = 0) -> dict[str, Any]:
    """A JSON-RPC ``initialize`` request, as a raw client sends it (no client library)."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    }


def post_json(port: int, path: str, message: dict[str, Any]) -> tuple[int, bytes]:
    """POST ``message`` to 127.0.0.1:``port`` as an MCP client does; status and body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    conn.request("POST", path, json.dumps(message).encode(), headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data
