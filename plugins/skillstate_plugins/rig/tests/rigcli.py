"""Running the real ``rig-state`` / ``skillstate`` executables in a scratch project."""

from __future__ import annotations

import re
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
        done = subprocess.run(
            [str(VENV_BIN / prog), *args],
            cwd=self.root,
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env={**self.env, **env},
            timeout=60,
            check=False,
        )
        return Result(done)

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
