"""The CLI skeleton: --version, plugins, global flags; start-up stays light."""

from __future__ import annotations

import json
import subprocess
import sys

from support import clean_env
from support import run_skillstate as run


def test_version() -> None:
    from skillstate import __version__

    out = run("--version")
    assert out.returncode == 0 and out.stdout == f"skillstate {__version__}\n"


def test_version_imports_no_plugin_machinery() -> None:
    code = (
        "import sys; from skillstate.cli.main import main; main(['--version']);"
        "bad = [m for m in ('pluggy', 'attrs', 'argparse', 'importlib.metadata', 'skillstate_plugins') if m in sys.modules];"
        "print(bad)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), timeout=60
    )
    assert out.stdout.strip().endswith("[]"), out.stdout


def test_plugins_table_and_json() -> None:
    table = run("plugins")
    assert table.returncode == 0
    header = table.stdout.splitlines()[0].split()
    assert header == ["Name", "Distribution", "Version", "Status", "Hooks"]
    assert any(
        line.split()[:4] == ["merge", "skillstate", "0.1.0", "active"]
        for line in table.stdout.splitlines()
    )
    rows = json.loads(run("plugins", "--json").stdout)
    merge = next(r for r in rows if r["name"] == "merge")
    assert merge == {
        "name": "merge",
        "distribution": "skillstate",
        "version": "0.1.0",
        "status": "active",
        "hooks": ["merge"],
        "module": "skillstate_plugins.merge",
        "error": None,
    }
    only = json.loads(run("plugins", "--json", "--hook", "skillstate_validate").stdout)
    assert [r["name"] for r in only] == ["schema"]


def test_disable_plugin_flag_and_env() -> None:
    rows = json.loads(run("--disable-plugin", "schema", "plugins", "--json").stdout)
    assert next(r for r in rows if r["name"] == "schema")["status"] == "blocked"
    rows = json.loads(run("plugins", "--json", SKILLSTATE_DISABLE_PLUGINS="budgets").stdout)
    assert next(r for r in rows if r["name"] == "budgets")["status"] == "blocked"


def test_unknown_command_is_a_usage_error() -> None:
    out = run("frobnicate")
    assert out.returncode == 2 and "invalid choice: 'frobnicate'" in out.stderr
    assert run().returncode == 2
