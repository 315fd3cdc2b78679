"""The ``uvx`` lines of README.md and docs/mcp.md, run as written from this checkout.

The lines name the checkout as ``$PWD``, ``$HOME/src/skillstate`` or
``/home/me/src/skillstate``; here that is this clone. Running them needs ``uvx`` on PATH
(the test extras install uv) and the dependencies' index; without uvx the test is skipped,
and fails under ``CI=true``.
Measured with uv 0.13.9: each line exits 0; 12 s with an empty uv cache, 2–7 s after.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT, clean_env, require_service

PAGES = ("README.md", "docs/mcp.md")
SHELL = re.compile(r'uvx --from "(skillstate\[[a-z,]+\] @ file://[^"]+)" skillstate (\w+)')
JSON = re.compile(r'"--from", "(skillstate\[[a-z,]+\] @ file://[^"]+)", "skillstate", "(\w+)"')
CHECKOUT = ("$PWD", "$HOME/src/skillstate", "/home/me/src/skillstate")


def _lines() -> list[tuple[str, str, str]]:
    """(page, requirement with this clone's path, command) of every uvx line."""
    found = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for pattern in (SHELL, JSON):
            for requirement, command in pattern.findall(text):
                for name in CHECKOUT:
                    requirement = requirement.replace(f"file://{name}", f"file://{ROOT}")
                found.append((page, requirement, command))
    return found


def test_every_uvx_line_names_the_checkout_with_a_path_uv_accepts() -> None:
    lines = _lines()
    assert {page for page, _, _ in lines} == set(PAGES)
    assert len(lines) >= 4
    for page, requirement, command in lines:
        assert requirement == f"skillstate[mcp] @ file://{ROOT}", (page, requirement)
        assert command == "mcp", page


def _uvx() -> str | None:
    """uvx beside this interpreter (the test extras install uv), else on PATH."""
    beside = Path(sys.executable).parent / "uvx"
    return str(beside) if beside.exists() else shutil.which("uvx")


def test_the_uvx_lines_run_from_this_checkout(tmp_path_factory: pytest.TempPathFactory) -> None:
    uvx = _uvx()
    require_service(uvx is not None, "uvx is not installed (pip install uv; the test extras do)")
    assert uvx is not None
    cwd = tmp_path_factory.mktemp("elsewhere")  # clients start servers anywhere
    for requirement in sorted({requirement for _, requirement, _ in _lines()}):
        # as written: the stdio server, which ends at the end of its input; without the
        # extra it would exit 3 (`--help` would not tell: it needs no extra)
        done = subprocess.run(
            [uvx, "--from", requirement, "skillstate", "mcp"],
            cwd=cwd,
            input="",
            capture_output=True,
            text=True,
            env=clean_env(SKILLSTATE_STORE=f"file:{cwd / 'state'}"),
            timeout=600,
            check=False,
        )
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
