"""The CLI skeleton: --version, plugins, global flags; start-up stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import clean_env, run_skillstate as run


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
    assert table.returncode == 0, table.stderr
    lines, footer = table.stdout.split("\n\n")  # the table, then the store's durability
    lines = lines.splitlines()
    assert footer.startswith("durability: full (from default")
    assert lines[0].split() == ["Name", "Distribution", "Version", "Status", "Hooks"]
    # the essentials first, then every entry point in (distribution, name) order
    names = [line.split()[0] for line in lines[2:]]
    assert names[:3] == ["merge", "schema", "budgets"]
    pairs = [(line.split()[1], line.split()[0]) for line in lines[5:]]
    assert pairs == sorted(pairs) and ("skillstate-repo", "repo") in pairs
    assert lines[2].split()[:4] == ["merge", "skillstate", "0.1.0", "essential"]
    rows = json.loads(run("plugins", "--json").stdout)
    merge = next(r for r in rows if r["name"] == "merge")
    assert merge == {
        "name": "merge",
        "distribution": "skillstate",
        "version": "0.1.0",
        "status": "essential",
        "hooks": ["merge"],
        "module": "skillstate.essentials:MergePlugin",
        "error": None,
    }
    only = json.loads(run("plugins", "--json", "--hook", "skillstate_validate").stdout)
    assert [r["name"] for r in only] == ["schema"]
    commands = json.loads(run("plugins", "--json", "--hook", "register_commands").stdout)
    assert [r["name"] for r in commands] == [
        "bench",
        "completion",
        "inspector",
        "maintenance",
        "mcp",
        "rig",
        "skill-store",
        "warehouse",
    ]


def test_disable_plugin_flag_and_env() -> None:
    rows = json.loads(run("--disable-plugin", "rig", "plugins", "--json").stdout)
    assert next(r for r in rows if r["name"] == "rig")["status"] == "blocked"
    rows = json.loads(run("plugins", "--json", SKILLSTATE_DISABLE_PLUGINS="mock").stdout)
    assert next(r for r in rows if r["name"] == "mock")["status"] == "blocked"


@pytest.mark.parametrize("name", ["schema", "merge", "budgets", "Schema"])
def test_an_essential_plugin_cannot_be_disabled(name: str, tmp_path: Path) -> None:
    """Blocking schema would switch validation off: refused, one line, exit 2, nothing written."""
    for how in (("--disable-plugin", name), ()):
        env = {} if how else {"SKILLSTATE_DISABLE_PLUGINS": f"rig,{name}"}
        seed = json.dumps({"nonsense": 1, "phase": 42})
        out = run(*how, "init", "rig-task", "t1", "--json", seed, cwd=tmp_path, **env)
        assert out.returncode == 2
        assert out.stderr == (
            f"skillstate: plugin '{name.lower()}' cannot be disabled: merge, schema and budgets "
            "are the core's own checks (essential plugins); to change what one does, register "
            "a plugin that replaces it (docs/plugins.md, 'Replacing a default')\n"
        )
        assert not (tmp_path / ".skillstate").exists()


def test_an_allow_list_without_the_essentials_still_validates(tmp_path: Path) -> None:
    seed = json.dumps({"nonsense": 1, "phase": 42})
    out = run(
        "init",
        "rig-task",
        "t1",
        "--json",
        seed,
        cwd=tmp_path,
        SKILLSTATE_LOAD_PLUGINS="rig,file-store",
    )
    assert out.returncode == 1
    assert (
        "nonsense: unknown key" in out.stderr and "phase: expected a string, got 42" in out.stderr
    )


def test_a_mistyped_block_list_name_is_reported(tmp_path: Path) -> None:
    (tmp_path / ".skillstate" / "state").mkdir(parents=True)  # an empty store: list reads it
    out = run("--disable-plugin", "rgi", "list", cwd=tmp_path)
    assert out.returncode == 0
    assert out.stderr.startswith(
        "skillstate: warning: disable_plugins names no installed plugin: 'rgi' (misspelled? "
        "installed: bench, completion, file-store, inspector, maintenance, mcp, memory-store, mock, "
    )
    assert out.stderr.count("\n") == 1  # one line, once
    strict = run("--disable-plugin", "rgi", "list", cwd=tmp_path, SKILLSTATE_STRICT_PLUGINS="1")
    assert strict.returncode == 2 and "names no installed plugin: 'rgi'" in strict.stderr
    allow = run("list", cwd=tmp_path, SKILLSTATE_LOAD_PLUGINS="file-store,warehous")
    assert "load_plugins names no installed plugin: 'warehous'" in allow.stderr


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["patch"],
            "skillstate patch: error: the following arguments are required: RUN_ID "
            "(see 'skillstate patch --help')",
        ),
        (
            ["list", "--bogus"],
            "skillstate list: error: unrecognized arguments: --bogus "
            "(see 'skillstate list --help')",
        ),
        (
            ["--bogus", "list"],
            "skillstate: error: unrecognized arguments: --bogus (see 'skillstate --help')",
        ),
        (
            ["-q", "-v", "list"],
            "skillstate: error: argument -v/--verbose: not allowed with argument -q/--quiet "
            "(see 'skillstate --help')",
        ),
        (  # a plugin's command, two levels down: the same one line
            ["skills", "view"],
            "skillstate skills view: error: the following arguments are required: name "
            "(see 'skillstate skills view --help')",
        ),
        (  # what the user typed comes back printable, on one line, without its password
            ["list", "a\x1b]0;title\x07\nb", "postgresql://u:s3cretpw@h/db"],
            "skillstate list: error: unrecognized arguments: a\\x1b]0;title\\x07\\nb "
            "postgresql://u:***@h/db (see 'skillstate list --help')",
        ),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(args: list[str], line: str, tmp_path: Path) -> None:
    out = run(*args, cwd=tmp_path)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", line + "\n")


def test_unknown_command_is_a_usage_error() -> None:
    out = run("frobnicate")
    assert out.returncode == 2 and "invalid choice: 'frobnicate'" in out.stderr
    assert run().returncode == 2
