"""Shared test helpers (import with `from support import ...`)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
SKILLSTATE = str(VENV_BIN / "skillstate")

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_service(available: bool, reason: str) -> None:
    """Skip when a service is missing — but fail under CI=true, where it must be there."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: services must be available)")
    pytest.skip(reason)


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
    root: Path, name: str, module: str, source: str, entry_points: dict[str, str]
) -> None:
    """A real (unpacked) installed distribution: a module plus a .dist-info on sys.path."""
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8"
    )
    lines = "".join(f"{ep} = {value}\n" for ep, value in entry_points.items())
    (info / "entry_points.txt").write_text(f"[skillstate]\n{lines}", encoding="utf-8")
