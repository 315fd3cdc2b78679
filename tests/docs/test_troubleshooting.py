"""What docs/troubleshooting.md promises about broken, strict and blocked plugins, for real.

A plugin is installed the way pip would (a ``.dist-info`` with an ``entry_points.txt``
on ``sys.path``) and the real ``skillstate`` command is run against it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import VENV_BIN, clean_env

MISSPELT = """
from skillstate import hookimpl

@hookimpl
def skillstate_gaurds(skill, before, after):
    return None
"""


def _install(site: Path, source: str) -> None:
    info = site / "broken_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[skillstate]\nbroken = broken_plugin\n")
    (site / "broken_plugin.py").write_text(source)


def _skillstate(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "skillstate"), *args],
        capture_output=True,
        text=True,
        cwd=site,
        env=clean_env(PYTHONPATH=str(site), **env),
        timeout=60,
    )


def _row(output: str) -> str:
    return next(line for line in output.splitlines() if line.startswith("broken "))


@pytest.mark.parametrize(
    ("source", "error"),
    [
        (
            MISSPELT,
            "implements hook(s) no spec declares: skillstate_gaurds "
            "(did you mean skillstate_guards?); known hooks: ",
        ),
        ("import nonexistent_dependency\n", "ModuleNotFoundError: No module named"),
    ],
)
def test_a_broken_plugin_is_listed_with_its_error_and_skipped(
    tmp_path: Path, source: str, error: str
) -> None:
    _install(tmp_path, source)
    done = _skillstate(tmp_path, "plugins")
    assert done.returncode == 0
    row = _row(done.stdout)
    assert " error " in row and error in row, row
    assert "skipped (block it with SKILLSTATE_DISABLE_PLUGINS=broken)" in done.stderr
    listed = _skillstate(tmp_path, "--store", "memory:", "list")
    assert listed.returncode == 0, listed.stderr  # everything else still works


def test_the_known_hooks_list_does_not_include_the_misspelling(tmp_path: Path) -> None:
    _install(tmp_path, MISSPELT)
    known = _row(_skillstate(tmp_path, "plugins").stdout).split("known hooks: ", 1)[1]
    assert "skillstate_guards" in known and "gaurds" not in known


def test_strict_mode_makes_a_broken_plugin_fatal(tmp_path: Path) -> None:
    _install(tmp_path, MISSPELT)
    done = _skillstate(tmp_path, "plugins", SKILLSTATE_STRICT_PLUGINS="1")
    assert done.returncode == 3  # an error, not a usage mistake (docs/cli.md)
    assert done.stderr.startswith("skillstate: plugin 'broken' from broken-plugin 0.1 failed")
    assert done.stderr.rstrip().endswith("(SKILLSTATE_STRICT_PLUGINS is set)")


@pytest.mark.parametrize("how", ["env", "flag", "distribution"])
def test_a_blocked_plugin_is_never_imported(tmp_path: Path, how: str) -> None:
    _install(tmp_path, "raise SystemExit('imported!')\n")
    if how == "env":
        done = _skillstate(tmp_path, "plugins", SKILLSTATE_DISABLE_PLUGINS="broken")
    elif how == "flag":
        done = _skillstate(tmp_path, "--disable-plugin", "broken", "plugins")
    else:
        done = _skillstate(tmp_path, "plugins", SKILLSTATE_DISABLE_PLUGINS="Broken_Plugin")
    assert done.returncode == 0, done.stderr
    assert " blocked " in _row(done.stdout)
    assert "imported!" not in done.stdout + done.stderr


def test_the_documented_block_list_messages_are_the_real_ones(tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md").read_text()
    typo = _skillstate(tmp_path, "--disable-plugin", "rgi", "--store", "memory:", "list")
    assert typo.returncode == 0 and typo.stderr.strip() in page
    essential = _skillstate(tmp_path, "--disable-plugin", "schema", "init", "rig-task", "t1")
    assert essential.returncode == 2 and essential.stderr.strip() in page
    assert not (tmp_path / ".skillstate").exists()


HIDE_MODULES = (
    "import importlib.abc, sys\n"
    "NAMES = {names!r}\n"
    "class Hide(importlib.abc.MetaPathFinder):\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in NAMES:\n"
    "            raise ModuleNotFoundError(f\"No module named '{{name}}'\", name=name)\n"
    "for n in NAMES: sys.modules.pop(n, None)\n"
    "sys.meta_path.insert(0, Hide())\n"
    "from skillstate.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _page() -> str:
    return (Path(__file__).resolve().parents[2] / "docs" / "troubleshooting.md").read_text()


def _hidden(tmp_path: Path, names: tuple[str, ...], *args: str) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS`` in a real subprocess with ``names`` hidden, as if not installed."""
    import sys

    return subprocess.run(
        [sys.executable, "-c", HIDE_MODULES.format(names=names), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env(),
        timeout=60,
    )


def test_the_exit_code_table_quotes_the_real_messages(tmp_path: Path) -> None:
    import sys

    page = _page()
    assert (
        _skillstate(
            tmp_path, "init", "rig-task", "t1", "--json", '{"nextAction":"é · x"}'
        ).returncode
        == 0
    )
    (tmp_path / "bad.db").write_text("not a database: " + "x" * 100)
    cases = [
        (1, _skillstate(tmp_path, "patch", "t1", "--json", '{"nextAction":"\\ud800"}')),
        (2, _skillstate(tmp_path, "show", "nope")),
        (2, _skillstate(tmp_path, "show", "../x")),
        (2, _skillstate(tmp_path, "--store", "sqlite:////proc/no/such/dir/x.db", "list")),
        (3, _skillstate(tmp_path, "--store", "sqlite:///bad.db", "list")),
        (3, _skillstate(tmp_path, "show", "t1", PYTHONIOENCODING="ascii")),
        (
            3,
            _hidden(tmp_path, ("psycopg", "psycopg_pool"), "--store", "postgresql://u@h/x", "list"),
        ),
    ]
    for code, done in cases:
        assert done.returncode == code, done.stderr
        assert f"`{done.stderr.strip()}`" in page, done.stderr
    no_flock = _hidden(tmp_path, ("fcntl",), "list")
    assert no_flock.returncode == 3
    assert f"`{no_flock.stderr.strip().replace(f'({sys.platform})', '(win32)')}`" in page


def test_the_disk_full_and_damaged_run_messages_are_the_real_ones(small_fs: Any) -> None:
    page = _page()
    agent = str(small_fs.path)
    url = f"sqlite:///{agent}/runs.db"
    assert _skillstate(small_fs.path, "--store", url, "init", "rig-task", "t1").returncode == 0
    assert _skillstate(small_fs.path, "init", "rig-task", "a2").returncode == 0
    record = small_fs.path / ".skillstate" / "state" / "a2.json"
    record.write_bytes(b"garbage")
    damaged = _skillstate(small_fs.path, "show", "a2")
    assert damaged.returncode == 0
    assert damaged.stderr.strip().replace(agent, "/srv/agent") in page
    small_fs.fill()
    full = _skillstate(small_fs.path, "--store", url, "patch", "t1", "--json", '{"nextAction":"x"}')
    assert full.returncode == 3
    assert f"`{full.stderr.strip().replace(agent, '/srv/agent')}`" in page


def test_the_mcp_server_messages_are_the_real_ones(tmp_path: Path) -> None:
    """The MCP rows: a missing extra (3), the token footguns (2), a busy port (3)."""
    import socket

    page = _page()
    missing = _hidden(tmp_path, ("mcp", "starlette"), "mcp")
    assert missing.returncode == 3
    assert f"`{missing.stderr.strip()}`" in page
    empty = _skillstate(tmp_path, "mcp", "--http", "--token", "")
    assert empty.returncode == 2 and f"`{empty.stderr.strip()}`" in page
    public = _skillstate(tmp_path, "mcp", "--http", "--host", "0.0.0.0")
    assert public.returncode == 2 and f"`{public.stderr.strip()}`" in page
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = _skillstate(tmp_path, "mcp", "--http", "--port", str(port))
    assert busy.returncode == 3
    assert f"`{busy.stderr.strip().replace(f':{port}:', ':3211:')}`" in page
