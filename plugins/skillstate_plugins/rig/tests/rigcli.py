"""Running the real ``rig-state`` / ``skillstate`` executables in a scratch project.

Two environment variables point these tests at another ``rig-state`` (see
``benchmarks/rig_goldens.py``): ``RIG_STATE_CMD`` (a command line, e.g. ``bun
/path/rig-state.ts``) runs it instead of ours; ``RIG_STATE_SHADOW`` runs it as well, in
a scratch project of its own, and ``RIG_STATE_LOG`` names a JSONL file that gets both
results of every invocation.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from skillstate_testing import clean_env

VENV_BIN = Path(sys.executable).parent

TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


class Result:
    """One finished command: exit code, stdout and stderr with timestamps as ``<ts>``."""

    def __init__(self, done: subprocess.CompletedProcess[str]) -> None:
        self.code = done.returncode
        self.raw_out = done.stdout
        self.out = TS.sub("<ts>", done.stdout)
        self.err = TS.sub("<ts>", done.stderr)

    @property
    def reasons(self) -> list[str]:
        """The ``  - reason`` lines of stderr."""
        return [line[4:] for line in self.err.splitlines() if line.startswith("  - ")]

    def __repr__(self) -> str:
        return f"Result(code={self.code}, out={self.out!r}, err={self.err!r})"


class Cli:
    """Runs commands in ``root`` with a fixed environment (no SKILLSTATE_* variables, own HOME)."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        # skillstate's own store for the scratch project; rig-state ignores it
        self.env = clean_env(HOME=str(home), SKILLSTATE_STORE=f"file:{root / 'ss-state'}")

    def run(self, prog: str, *args: str, stdin: str | None = None, **env: str) -> Result:
        other = os.environ.get("RIG_STATE_CMD") if prog == "rig-state" else None
        argv = [*shlex.split(other), *args] if other else [str(VENV_BIN / prog), *args]
        result = self._exec(argv, self.root, stdin, env)
        shadow = os.environ.get("RIG_STATE_SHADOW") if prog == "rig-state" else None
        if shadow:
            self._shadow(shlex.split(shadow), args, stdin, env, result)
        return result

    def _exec(self, argv: list[str], cwd: Path, stdin: str | None, env: dict[str, str]) -> Result:
        done = subprocess.run(
            argv,
            cwd=cwd,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env={**self.env, **env},
            timeout=60,
            check=False,
        )
        return Result(done)

    def _shadow(
        self,
        cmd: list[str],
        args: tuple[str, ...],
        stdin: str | None,
        env: dict[str, str],
        mine: Result,
    ) -> None:
        """The same invocation of ``cmd`` in a sibling project; both results to the log."""
        root = self.root.with_name("shadow")
        root.mkdir(exist_ok=True)
        moved = [a.replace(str(self.root), str(root)) for a in args]
        theirs = self._exec([*cmd, *moved], root, stdin, env)
        entry = {
            "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0],
            "args": list(args),
            "stdin": stdin,
            **{
                side: {
                    "code": r.code,
                    "out": r.out,
                    "err": r.err.replace(str(root), str(self.root)),
                }
                for side, r in (("ours", mine), ("shadow", theirs))
            },
        }
        with open(os.environ["RIG_STATE_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")

    def rig(self, *args: str, stdin: str | None = None, **env: str) -> Result:
        return self.run("rig-state", *args, stdin=stdin, **env)

    def ss(self, *args: str, stdin: str | None = None, **env: str) -> Result:
        return self.run("skillstate", *args, stdin=stdin, **env)

    @property
    def state_dir(self) -> Path:
        return self.root / ".rig" / "state"


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """A scratch project directory and a runner with a fixed environment."""
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return Cli(root, home)
