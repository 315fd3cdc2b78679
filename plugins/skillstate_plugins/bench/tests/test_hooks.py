"""The bench's own hook, ``skillstate_register_benchmarks``, and its author API.

The spec is this package's (added through ``skillstate_addhooks``, as xdist adds its
hooks to pytest); its registry follows the core's rules; blocking the package leaves
the benchmark plugins loaded (they implement the hook ``optionalhook=True``); and the
author API is a handful of names, imported on first use.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, run_command

from skillstate.plugin import PluginError, hookimpl

from .. import BenchmarkSpec, EpisodeOutcome
from ..spec import benchmarks

PACKAGE = __package__.rsplit(".", 1)[0]  # the bench package, under whatever name it has


def _outcome(snapshot: Any) -> EpisodeOutcome:
    return EpisodeOutcome(1, 1)


def _spec(name: str) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name, help="a toy", environment="mock", instructions="P.", initial_state={},
        state_schema=None, policies={}, outcome=_outcome,
    )  # fmt: skip


@pytest.fixture
def host() -> Iterator[Any]:
    found = make_host()
    yield found
    found.close()


def _bench_plugin() -> str:
    """This package's plugin name (``bench``, or another when it is installed under one)."""
    host = make_host()
    try:
        owner = host.commands.owner("bench")
    finally:
        host.close()
    assert owner is not None
    return str(owner)


def _blocking_the_bench() -> str:
    """The block list in effect, plus this package."""
    return ",".join(filter(None, [os.environ.get("SKILLSTATE_DISABLE_PLUGINS"), _bench_plugin()]))


def test_hook_register_benchmarks(host: Any) -> None:
    class Toy:
        @hookimpl(optionalhook=True)
        def skillstate_register_benchmarks(self, register: Any) -> None:
            register(_spec("toy"))

    host.pm.register_local(Toy(), "toy-plugin")
    registry = benchmarks(host)
    assert registry.get("toy") is not None and registry.owner("toy") == "toy-plugin"
    assert {"warehouse", "repo"} <= set(registry.names())  # the bundled ones are still there
    assert benchmarks(host) is registry  # built once per host
    with pytest.raises(ValueError, match="not report or plot"):
        _spec("report")

    class Twin:
        @hookimpl
        def skillstate_register_benchmarks(self, register: Any) -> None:
            register(_spec("toy"))

    other = make_host()
    other.pm.register_local(Toy(), "toy-plugin")
    other.pm.register_local(Twin(), "twin")
    with pytest.raises(PluginError) as conflict:
        benchmarks(other)
    assert str(conflict.value) == (  # pluggy's order: the plugin registered last is called first
        "benchmark 'toy' is registered by two plugins: 'twin' and 'toy-plugin'; block one with "
        "SKILLSTATE_DISABLE_PLUGINS=toy-plugin (or twin), or disable_plugins in skillstate.toml"
    )

    class Broken:
        @hookimpl
        def skillstate_register_benchmarks(self, register: Any) -> None:
            register(_spec("broken"))
            register(_spec("report"))  # refused: the bench command's own sub-command

    third = make_host()
    third.pm.register_local(Broken(), "broken")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = benchmarks(third).names()
    assert "broken" not in names and "warehouse" in names  # fail open, its records dropped
    assert [str(w.message) for w in caught] == [
        "plugin 'broken' failed in skillstate_register_benchmarks (ValueError: a benchmark name "
        "must be lowercase letters, digits and '-' (not report or plot), got 'report'); none of "
        "its benchmarks are registered"
    ]


def test_the_spec_is_the_bench_packages_own(host: Any) -> None:
    spec = host.pm.hook.skillstate_register_benchmarks.spec
    assert spec is not None and spec.namespace.__name__ == f"{PACKAGE}.hookspecs"
    assert spec.argnames == ("register",)
    blocked = make_host(disable_plugins=tuple(_blocking_the_bench().split(",")))
    caller = getattr(blocked.pm.hook, "skillstate_register_benchmarks", None)
    assert caller is None or caller.spec is None  # no bench, no hook
    blocked.close()


@pytest.mark.parametrize("strict", ["", "1"])
def test_blocking_the_bench_leaves_the_benchmark_plugins_loaded(
    tmp_path: Path, strict: str
) -> None:
    bench = _bench_plugin()
    env = {"SKILLSTATE_DISABLE_PLUGINS": _blocking_the_bench(), "SKILLSTATE_STRICT_PLUGINS": strict}
    listed = run_command("skillstate", "plugins", "--json", cwd=tmp_path, **env)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    assert rows[bench]["status"] == "blocked"
    # the warehouse and repo: their optional hook has no spec now, and they load all the same
    implementing = [row for row in rows.values() if "register_benchmarks" in row["hooks"]]
    assert len(implementing) >= 2 and all(row["status"] == "active" for row in implementing)
    assert listed.stderr == ""
    gone = run_command("skillstate", "bench", "warehouse", cwd=tmp_path, **env)
    assert gone.returncode == 2 and "invalid choice: 'bench'" in gone.stderr, gone.stderr
    demo = run_command("skillstate", "demo", "--horizon", "3", cwd=tmp_path, **env)
    assert demo.returncode == 0, demo.stderr  # the warehouse's command, without the bench


def test_the_author_api_is_a_handful_of_documented_names_imported_on_first_use() -> None:
    package = sys.modules[PACKAGE]
    assert len(package.__all__) <= 20 and package.__all__ == sorted(package.__all__)
    doc = package.__doc__ or ""
    for name in package.__all__:
        value = getattr(package, name)
        assert inspect.getdoc(value), f"{name} has no docstring"
        assert f":class:`{name}`" in doc or f":func:`{name}`" in doc, (
            f"{name} is not in the tutorial"
        )
    typed: dict[str, str] = {}
    for node in ast.walk(ast.parse(inspect.getsource(package))):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.level == 1
                typed.update({alias.name: str(stmt.module) for alias in stmt.names})
    assert typed == package._MODULE and set(typed) == set(package.__all__)
    with pytest.raises(AttributeError, match=f"module '{PACKAGE}' has no attribute 'run_sweep'"):
        package.run_sweep  # noqa: B018  (the harness's own: not the author API)
    code = (
        f"import sys, {PACKAGE} as bench; from {PACKAGE} import BenchmarkSpec\n"
        f"print(sorted(m for m in sys.modules if m.startswith('{PACKAGE}.')))"
    )
    done = run_command("python", "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"['{PACKAGE}.spec']"  # only what was asked for
