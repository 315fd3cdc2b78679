"""What the run commands load at start-up: only what they need, and every plugin.

``rig-state patch|get|show`` and ``skillstate init|patch|get|show`` run in a fresh
interpreter; after the command, its ``sys.modules`` must hold none of the heavy
libraries (JSON Schema, MCP, the SQL drivers, cattrs, jsonpatch, YAML, TOML writing,
argparse for rig-state), while
every installed plugin, the third-party-style ``skillstate-repo`` included, is loaded
and registered (a fast path that skipped plugins would skip their guards).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import clean_env

HEAVY = (
    "jsonschema",
    "referencing",
    "mcp",
    "sqlite3",
    "psycopg",
    "psycopg_pool",
    "cattrs",
    "jsonpatch",
    "yaml",
    "tomlkit",
    "asyncio",
    "ctypes",  # the file store's record exchange: loaded from a process's 17th swap
)
"""Modules no run command may import."""

LISTING_ONLY = (
    "skillstate.records.history",
    "skillstate.plugin_table",
)
"""Record modules (and their attrs classes) a read or a patch does not build (history
rows: a read or a patch lists nothing; ``PluginInfo``: nothing shows the plugin table).
(``skillstate.records.extensions`` would be one too, but the third-party-style
``skillstate-repo`` plugin imports ``EnvironmentSpec`` at its import, as it may.)"""

PROBE = """
import io, json, sys, contextlib
entry, argv = sys.argv[1], sys.argv[2:]
if entry == "rig-state":
    from skillstate_plugins.rig.cli import main
else:
    from skillstate.cli.main import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(argv)
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _probe(root: Path, entry: str, *argv: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, entry, *argv],
        cwd=root,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    assert result["code"] == 0, done.stderr
    return result


def _check(result: dict[str, object]) -> None:
    modules = set(result["modules"])  # type: ignore[arg-type]
    heavy = sorted(m for m in modules if m.split(".")[0] in HEAVY or m in HEAVY)
    assert heavy == [], f"start-up imported {heavy}"
    assert not modules & set(LISTING_ONLY), sorted(modules & set(LISTING_ONLY))
    # every plugin is loaded: the bundled ones and the third-party-style distribution
    for plugin in ("skillstate_plugins.rig", "skillstate_plugins.file_store", "skillstate_repo"):
        assert plugin in modules, f"{plugin} was not loaded"


@pytest.fixture
def rig_root(tmp_path: Path) -> Path:
    seed = json.dumps({"spec": {"id": "A-1", "title": "t", "source": "linear"}})
    _probe(tmp_path, "rig-state", "init", "rig-task", "a-1", "--json", seed)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ("patch", "a-1", "--json", '{"nextAction":"go"}', "--step", "s"),
        ("get", "a-1", "--field", "spec.id"),
        ("show", "a-1"),
    ],
    ids=lambda argv: argv[0],
)
def test_rig_state_loads_no_heavy_module(rig_root: Path, argv: tuple[str, ...]) -> None:
    result = _probe(rig_root, "rig-state", *argv)
    _check(result)
    # rig-state parses its own command line (``locale`` may load: importlib.metadata's
    # email parser, which finding the plugins' entry points needs, brings it)
    for module in ("argparse", "gettext"):
        assert module not in result["modules"], module  # type: ignore[operator]


def test_skillstate_run_commands_load_no_heavy_module(tmp_path: Path) -> None:
    seed = json.dumps({"spec": {"id": "A-2", "title": "t", "source": "linear"}})
    for argv in (
        ("init", "rig-task", "a-2", "--json", seed),
        ("patch", "a-2", "--json", '{"nextAction":"go"}'),
        ("get", "a-2"),
        ("show", "a-2"),
    ):
        _check(_probe(tmp_path, "skillstate", *argv))


def test_the_check_fails_on_a_heavy_module() -> None:
    """``_check`` is not vacuous: a heavy module, or a missing plugin, fails it."""
    loaded = ["skillstate_plugins.rig", "skillstate_plugins.file_store", "skillstate_repo"]
    _check({"modules": loaded})
    for modules in (
        [*loaded, "jsonschema.validators"],
        [*loaded, "sqlite3"],
        [*loaded, "skillstate.records.history"],
        [*loaded, "skillstate.plugin_table"],
        loaded[:2],
    ):
        with pytest.raises(AssertionError):
            _check({"modules": modules})
