"""Meta-tests of the plugin framework: docs, entry points, block/allow lists, errors, conflicts."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from support import ROOT, clean_env, make_distribution

from skillstate import StoreSpec, hookimpl
from skillstate.errors import PluginConflictError, PluginError
from skillstate.host import PluginWarning
from skillstate.manager import make_plugin_manager
from tools.hookdoc import hook_signatures, render

PLUGIN_DIR = ROOT / "plugins" / "skillstate_plugins"


def test_every_hook_is_documented_with_its_exact_signature() -> None:
    page = (ROOT / "docs" / "hooks.md").read_text(encoding="utf-8")
    assert page == render(), "docs/hooks.md is stale: run python -m tools.hookdoc > docs/hooks.md"
    for name, signature in hook_signatures().items():
        assert f"## {name}" in page, f"Missing from plugin hook documentation: {name}"
        assert f"`{signature}`" in page, f"Missing from plugin hook documentation: {signature}"
        section = page.split(f"## {name}", 1)[1].split("\n## ", 1)[0]
        for line in ("**When:**", "**Semantics:**", "**Order:**", "**Isolation:**"):
            assert line in section, f"{name}: no {line} in its reference"


def test_every_hook_has_a_test() -> None:
    files = [*(ROOT / "tests").rglob("test_*.py"), *PLUGIN_DIR.rglob("test_*.py")]
    sources = "\n".join(p.read_text(encoding="utf-8") for p in files)
    for name in hook_signatures():
        short = name.removeprefix("skillstate_")
        assert re.search(rf"def test_hook_{short}\b", sources), f"no test_hook_{short} for {name}"


def plugin_modules() -> list[str]:
    """Every module under plugins/ that implements a hook (support modules implement none)."""
    import importlib
    import pkgutil

    import skillstate_plugins

    found = []
    for info in pkgutil.walk_packages(skillstate_plugins.__path__, "skillstate_plugins."):
        module = importlib.import_module(info.name)
        if any(
            name.startswith("skillstate_") and hasattr(getattr(module, name), "skillstate_impl")
            for name in dir(module)
        ):
            found.append(info.name)
    return found


def test_every_bundled_plugin_module_has_an_entry_point() -> None:
    from importlib.metadata import distribution

    values = {
        ep.value for ep in distribution("skillstate").entry_points if ep.group == "skillstate"
    }
    modules = plugin_modules()
    assert "skillstate_plugins.rig" in modules and "skillstate_plugins.file_store" in modules
    # A package's hooks may be defined in a submodule and re-exported by the package.
    missing = [
        m for m in modules if m not in values and not any(m.startswith(v + ".") for v in values)
    ]
    assert missing == [], f"bundled plugin modules without an entry point: {missing}"


def test_bundled_plugins_load_active_and_in_deterministic_order() -> None:
    pm = make_plugin_manager()
    rows = [r for r in pm.plugin_table if r.distribution == "skillstate"]
    assert [(r.name, r.status) for r in rows[:3]] == [
        ("merge", "essential"),
        ("schema", "essential"),
        ("budgets", "essential"),
    ]
    rows = rows[3:]
    assert rows and all(r.status == "active" for r in rows), [(r.name, r.error) for r in rows]
    assert [r.name for r in rows] == sorted(r.name for r in rows)
    pm.check_pending()


def run_py(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=60,
    )


IMPORTED = """
    import sys, json
    from skillstate.host import Host
    host = Host.from_config()
    print(json.dumps({"imported": sorted(m for m in sys.modules if m.startswith("skillstate_plugins.")),
                      "table": [[r.name, r.status] for r in host.pm.plugin_table]}))
"""


ESSENTIALS = [["merge", "essential"], ["schema", "essential"], ["budgets", "essential"]]


def test_blocking_by_entry_point_name_prevents_import() -> None:
    out = json.loads(run_py(IMPORTED, SKILLSTATE_DISABLE_PLUGINS="rig").stdout)
    assert not any(m.startswith("skillstate_plugins.rig") for m in out["imported"])
    assert ["rig", "blocked"] in out["table"]
    assert "skillstate_plugins.mock" in out["imported"]


def test_blocking_by_distribution_name_prevents_every_import() -> None:
    out = json.loads(run_py(IMPORTED, SKILLSTATE_DISABLE_PLUGINS="SkillState").stdout)
    assert out["imported"] == []
    assert out["table"][:3] == ESSENTIALS  # the core's own: never blocked
    # every plugin of the skillstate distribution; skillstate-repo and skillstate-redis
    # are distributions of their own
    ours = [(n, status) for n, status in out["table"][3:] if n not in ("repo", "redis-store")]
    assert ours and all(status == "blocked" for _, status in ours)


def test_empty_allow_list_loads_nothing_but_the_essentials() -> None:
    out = json.loads(run_py(IMPORTED, SKILLSTATE_LOAD_PLUGINS="").stdout)
    assert out == {"imported": [], "table": ESSENTIALS}
    listed = subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "plugins", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_LOAD_PLUGINS=""),
        timeout=60,
    )
    assert listed.returncode == 0
    assert [[r["name"], r["status"]] for r in json.loads(listed.stdout)] == ESSENTIALS


def test_allow_list_loads_only_the_named_plugins() -> None:
    out = json.loads(run_py(IMPORTED, SKILLSTATE_LOAD_PLUGINS="mock, memory-store").stdout)
    assert out["imported"] == ["skillstate_plugins.memory_store", "skillstate_plugins.mock"]
    assert [name for name, _ in out["table"][3:]] == ["memory-store", "mock"]


def test_a_plugin_that_raises_on_import_is_reported_and_skipped_or_fatal_when_strict(
    tmp_path: Path,
) -> None:
    make_distribution(
        tmp_path,
        "broken-plugin",
        "broken_plugin",
        "raise RuntimeError('kaboom')\n",
        {"broken": "broken_plugin"},
    )
    out = run_py(IMPORTED, PYTHONPATH=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert ["broken", "error"] in json.loads(out.stdout)["table"]
    assert (
        "plugin 'broken' from broken-plugin 1.0 failed to load: RuntimeError: kaboom" in out.stderr
    )
    strict = run_py(IMPORTED, PYTHONPATH=str(tmp_path), SKILLSTATE_STRICT_PLUGINS="1")
    assert (
        strict.returncode != 0
        and "kaboom" in strict.stderr
        and "SKILLSTATE_STRICT_PLUGINS" in strict.stderr
    )
    listed = subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "plugins"],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(tmp_path)),
        timeout=60,
    )
    assert re.search(
        r"broken\s+broken-plugin\s+1\.0\s+error\s+RuntimeError: kaboom", listed.stdout
    ), listed.stdout


def test_a_misspelled_hook_fails_loudly(tmp_path: Path) -> None:
    source = """
        from skillstate import hookimpl
        @hookimpl
        def skillstate_gaurds(skill, before, after):
            return None
    """
    make_distribution(tmp_path, "typo-plugin", "typo_plugin", source, {"typo": "typo_plugin"})
    out = run_py(IMPORTED, PYTHONPATH=str(tmp_path))
    assert ["typo", "error"] in json.loads(out.stdout)["table"]
    assert "no spec declares: skillstate_gaurds (did you mean skillstate_guards?)" in out.stderr
    strict = run_py(IMPORTED, PYTHONPATH=str(tmp_path), SKILLSTATE_STRICT_PLUGINS="1")
    assert strict.returncode != 0 and "skillstate_gaurds" in strict.stderr


REFUSE_FORBIDDEN = """
            if after.get("forbidden"):
                yield Problem("guard", "forbidden", "forbidden", "test-plugin")
"""
"""The body of the test plugins' guard (under a ``def ...(after):`` at 8 spaces)."""


def init_forbidden(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``skillstate init`` of a state the test plugin's guard must refuse."""
    return subprocess.run(
        [str(Path(sys.executable).parent / "skillstate"), "--store", f"file:{tmp_path}/s",
         "init", "rig-task", "r1", "--json", '{"forbidden": true}'],
        capture_output=True, text=True, env=clean_env(PYTHONPATH=str(tmp_path)), timeout=60,
    )  # fmt: skip


def test_an_optional_implementation_of_a_missing_hook_loads_with_the_rest(
    tmp_path: Path,
) -> None:
    """``@hookimpl(optionalhook=True)``: a hook another plugin may add (the inspector's
    ``skillstate_register_http_apps``, for the MCP server) is no load error, and the
    plugin's other hooks run."""
    source = (
        """
        from skillstate.plugin import Problem, hookimpl
        @hookimpl(optionalhook=True)
        def skillstate_register_widgets(register):
            register("w")
        @hookimpl
        def skillstate_guards(after):
    """
        + REFUSE_FORBIDDEN
    )
    make_distribution(
        tmp_path, "optional-plugin", "optional_plugin", source, {"opt": "optional_plugin"}
    )
    out = run_py(IMPORTED, PYTHONPATH=str(tmp_path), SKILLSTATE_STRICT_PLUGINS="1")
    assert out.returncode == 0, out.stderr
    assert ["opt", "active"] in json.loads(out.stdout)["table"] and out.stderr == ""
    done = init_forbidden(tmp_path)
    assert done.returncode == 1 and "forbidden" in done.stderr, done.stderr


def test_a_guard_under_another_name_with_specname_runs_and_rejects(tmp_path: Path) -> None:
    """``@hookimpl(specname="skillstate_guards")`` on a function of any name: pluggy's
    documented way, so the guard runs and a state it refuses is not committed."""
    source = (
        """
        from skillstate.plugin import Problem, hookimpl
        @hookimpl(specname="skillstate_guards")
        def no_forbidden(after):
    """
        + REFUSE_FORBIDDEN
    )
    make_distribution(
        tmp_path, "specname-plugin", "specname_plugin", source, {"sn": "specname_plugin"}
    )
    out = run_py(IMPORTED, PYTHONPATH=str(tmp_path), SKILLSTATE_STRICT_PLUGINS="1")
    assert out.returncode == 0 and ["sn", "active"] in json.loads(out.stdout)["table"], out.stderr
    done = init_forbidden(tmp_path)
    assert done.returncode == 1 and "forbidden" in done.stderr, done.stderr
    assert not (tmp_path / "s" / "state" / "r1.json").exists()


def test_a_plugin_installed_as_an_unversioned_egg_info_is_found(tmp_path: Path) -> None:
    """``importlib.metadata`` finds ``NAME.egg-info`` (``setup.py develop``), so we do."""
    source = (
        """
        from skillstate.plugin import Problem, hookimpl
        @hookimpl
        def skillstate_guards(after):
    """
        + REFUSE_FORBIDDEN
    )
    make_distribution(
        tmp_path, "egg-plugin", "egg_plugin", source, {"egg": "egg_plugin"}, egg_info=True
    )
    out = run_py(IMPORTED, PYTHONPATH=str(tmp_path))
    assert ["egg", "active"] in json.loads(out.stdout)["table"], out.stderr
    done = init_forbidden(tmp_path)
    assert done.returncode == 1 and "forbidden" in done.stderr, done.stderr


def test_a_duplicate_store_scheme_is_an_error_naming_both_plugins() -> None:
    from skillstate_testing import make_host

    class Duplicate:
        @hookimpl
        def skillstate_register_stores(self, register: Any) -> None:
            register(StoreSpec(scheme="memory", factory=lambda url: None))  # type: ignore[arg-type,return-value]

    host = make_host()
    host.pm.register_local(Duplicate(), "my-memory")
    with pytest.raises(PluginConflictError) as info:
        host.open_store("memory:")
    message = str(info.value)
    assert "store scheme 'memory' is registered by two plugins" in message
    assert "'memory-store' (skillstate 0.1.0)" in message and "'my-memory'" in message
    assert "SKILLSTATE_DISABLE_PLUGINS=" in message


def test_a_duplicate_installed_plugin_is_reported_by_name(tmp_path: Path) -> None:
    source = """
        from skillstate import hookimpl, StoreSpec
        from skillstate_plugins.memory_store.store import MemoryStore
        @hookimpl
        def skillstate_register_stores(register):
            register(StoreSpec(scheme="memory", factory=MemoryStore))
    """
    make_distribution(
        tmp_path, "other-memory", "other_memory", source, {"other-memory": "other_memory"}
    )
    code = """
        from skillstate.host import Host
        try:
            Host.from_config().open_store("memory:")
        except Exception as exc:
            print(type(exc).__name__, exc)
    """
    out = run_py(code, PYTHONPATH=str(tmp_path)).stdout
    assert out.startswith("PluginConflictError")
    assert "'memory-store' (skillstate 0.1.0)" in out and "'other-memory' (other-memory 1.0)" in out
    blocked = run_py(code, PYTHONPATH=str(tmp_path), SKILLSTATE_DISABLE_PLUGINS="other-memory")
    assert blocked.returncode == 0 and blocked.stdout == ""


def test_registering_the_wrong_record_type_names_the_plugin() -> None:
    from skillstate_testing import make_host

    class Wrong:
        @hookimpl
        def skillstate_register_stores(self, register: Any) -> None:
            register("not a spec")

    host = make_host()
    host.pm.register_local(Wrong(), "wrong")
    with pytest.warns(PluginWarning) as caught:
        assert host.open_store("memory:") is not None  # the other plugins' stores are there
    assert [str(w.message) for w in caught] == [
        "plugin 'wrong' failed in skillstate_register_stores (PluginError: registered a str, "
        "expected a StoreSpec); none of its store schemes are registered"
    ]
    strict = make_host(strict_plugins=True)
    strict.pm.register_local(Wrong(), "wrong")
    with pytest.raises(PluginError, match="plugin 'wrong' failed in skillstate_register_stores"):
        strict.open_store("memory:")


def test_local_plugins_with_unknown_hooks_are_refused() -> None:
    class Typo:
        @hookimpl
        def skillstate_mrege(self, state: Any, patch: Any) -> None:
            return None

    pm = make_plugin_manager(load_entrypoints=False)
    with pytest.raises(PluginError, match="skillstate_mrege"):
        pm.register_local(Typo(), "typo")


def test_unmarked_attributes_are_ignored_and_marked_ones_are_hooks_as_in_pluggy() -> None:
    class Mixed:
        def skillstate_merge(self, state: Any, patch: Any) -> None:  # no @hookimpl: not a hook
            raise AssertionError("never called")

        def helper(self) -> None:
            raise AssertionError("never called")

    pm = make_plugin_manager(load_entrypoints=False)
    pm.register_local(Mixed(), "mixed")
    assert pm.hooks_of(pm.get_plugin("mixed")) == ()

    class Marked:
        @hookimpl
        def merge(self, state: Any, patch: Any) -> None:  # marked: pluggy takes it as a hook
            raise AssertionError("never called")

    with pytest.raises(PluginError, match=r"no spec declares: merge"):
        pm.register_local(Marked(), "marked")
    assert pm.get_plugin("marked") is None  # refused whole, nothing left registered


def test_a_misspelled_hook_names_the_nearest_spec() -> None:
    class Typo:
        @hookimpl
        def skilstate_guards(self, state: Any) -> None:
            return None

    pm = make_plugin_manager(load_entrypoints=False)
    with pytest.raises(PluginError, match=r"skilstate_guards \(did you mean skillstate_guards\?\)"):
        pm.register_local(Typo(), "typo")


def test_a_plugin_command_taking_a_core_name_stops_skillstate_but_not_plugins(
    tmp_path: Path,
) -> None:
    source = """
        from skillstate.plugin import CommandSpec, hookimpl

        @hookimpl
        def skillstate_register_commands(register):
            register(CommandSpec("list", "my own list", lambda p: None, lambda ctx: 0))
            register(CommandSpec("hello", "say hello", lambda p: None, lambda ctx: 0))
    """
    make_distribution(tmp_path, "greedy-cmds", "greedy_cmds", source, {"greedy": "greedy_cmds"})
    bin_dir = Path(sys.executable).parent

    def skillstate(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bin_dir / "skillstate"), *args],
            capture_output=True,
            text=True,
            env=clean_env(PYTHONPATH=str(tmp_path), **env),
            cwd=tmp_path,
            timeout=60,
        )

    message = (
        "command 'list' is registered by two plugins: skillstate itself and 'greedy' "
        "(greedy-cmds 1.0); block one with SKILLSTATE_DISABLE_PLUGINS=greedy, or "
        "disable_plugins in skillstate.toml"
    )
    for args in (("list",), ("hello",), ("--help",)):
        done = skillstate(*args)
        assert (done.returncode, done.stderr) == (3, f"skillstate: {message}\n"), args
    listed = skillstate("plugins")
    assert listed.returncode == 1 and listed.stderr == f"skillstate: conflict: {message}\n"
    assert "greedy" in listed.stdout
    blocked = skillstate("--help", SKILLSTATE_DISABLE_PLUGINS="greedy")
    assert blocked.returncode == 0 and "hello" not in blocked.stdout


def _cli(tmp_path: Path, *args: str, prog: str = "skillstate", **env: str) -> Any:
    return subprocess.run(
        [str(Path(sys.executable).parent / prog), *args],
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(tmp_path), **env),
        cwd=tmp_path,
        timeout=60,
    )


def test_plugin_commands_parse_their_own_options_and_fail_in_one_line(tmp_path: Path) -> None:
    source = """
        import os
        from skillstate.plugin import CommandSpec, hookimpl

        def configure(parser):
            if os.environ.get("BREAK_CONFIGURE"):
                raise RuntimeError("boom in configure")
            parser.add_argument("--store")

        def run(ctx):
            print(ctx.args.store, ctx.config.store)
            return 0

        @hookimpl
        def skillstate_register_commands(register):
            register(CommandSpec("where", "print stores", configure, run))
    """
    make_distribution(tmp_path, "where-cmd", "where_cmd", source, {"where": "where_cmd"})
    own = _cli(tmp_path, "--store", "memory:g", "where", "--store", "mine")
    assert (own.returncode, own.stdout, own.stderr) == (0, "mine memory:g\n", "")
    broken = _cli(tmp_path, "where", BREAK_CONFIGURE="1")
    assert (broken.returncode, broken.stdout) == (3, "")  # a broken plugin: an error (exit 3)
    assert broken.stderr == (
        "skillstate: command 'where' of plugin 'where' cannot set up its arguments: "
        "RuntimeError: boom in configure\n"
    )


def test_a_plugin_command_that_cannot_set_up_breaks_only_itself(tmp_path: Path) -> None:
    """Only the running command's arguments are set up: another plugin's broken
    ``configure`` fails that plugin's command alone, never this one or the core's (all of
    them are set up for ``--help``, which names the broken one)."""
    make_distribution(
        tmp_path,
        "broken-cmd",
        "broken_cmd",
        """
        from skillstate.plugin import CommandSpec, hookimpl

        def configure(parser):
            raise RuntimeError("boom in configure")

        @hookimpl
        def skillstate_register_commands(register):
            register(CommandSpec("broken", "never sets up", configure, lambda ctx: 0))
        """,
        {"broken": "broken_cmd"},
    )
    make_distribution(
        tmp_path,
        "hello-cmd",
        "hello_cmd",
        """
        from skillstate.plugin import CommandSpec, hookimpl

        def configure(parser):
            parser.add_argument("who")

        def run(ctx):
            print("hello", ctx.args.who)
            return 0

        @hookimpl
        def skillstate_register_commands(register):
            register(CommandSpec("hello", "greets", configure, run))
        """,
        {"hello": "hello_cmd"},
    )
    hello = _cli(tmp_path, "--store", "memory:", "hello", "ana")
    assert (hello.returncode, hello.stdout, hello.stderr) == (0, "hello ana\n", "")
    core = _cli(tmp_path, "--store", "memory:", "list")
    assert (core.returncode, core.stderr) == (0, "")
    broken = _cli(tmp_path, "--store", "memory:", "broken")
    assert broken.returncode == 3
    assert "command 'broken' of plugin 'broken' cannot set up its arguments" in broken.stderr
    full = _cli(tmp_path, "--help")
    assert full.returncode == 3 and "command 'broken' of plugin 'broken'" in full.stderr


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--sto", "memory:", "list"), "unknown option '--sto' (did you mean '--store'?)"),
        (
            ("--disable", "rig", "list"),
            "unknown option '--disable' (did you mean '--disable-plugin'?)",
        ),
        (("--sto", "list"), "error: unrecognized arguments: --sto"),
    ],
)
def test_an_abbreviated_global_option_is_a_usage_error_naming_it(
    tmp_path: Path, args: tuple[str, ...], named: str
) -> None:
    done = _cli(tmp_path, *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("skillstate: ") and done.stderr.count("\n") == 1
    assert named in done.stderr


def test_a_double_dash_ends_the_global_options(tmp_path: Path) -> None:
    # as POSIX utilities read it: `skillstate -q -- list` is `skillstate -q list`
    for args in (("--store", "memory:", "--", "list"), ("--", "mcp", "--help")):
        done = _cli(tmp_path, *args)
        assert (done.returncode, done.stderr) == (0, ""), (args, done.stderr)
    assert "'--'" not in _cli(tmp_path, "--", "lisst").stderr  # the word after it is named


def test_core_commands_load_no_plugin_for_help_or_when_they_need_no_host(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from skillstate.cli.main import main\n"
        "try:\n"
        "    main(sys.argv[1:])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('pluggy', 'skillstate.manager') if m in sys.modules))\n"
    )
    for args in (["init", "--help"], ["config", "list"]):  # skills: a plugin's command now
        done = subprocess.run(
            [sys.executable, "-c", code, *args],
            capture_output=True,
            text=True,
            env=clean_env(),
            cwd=tmp_path,
            timeout=60,
        )
        assert done.stdout.strip().endswith("[]"), (args, done.stdout[-300:], done.stderr)


def test_rig_state_prints_plugin_warnings_as_one_line(tmp_path: Path) -> None:
    done = _cli(tmp_path, "list", prog="rig-state", SKILLSTATE_DISABLE_PLUGINS="rgi")
    assert done.returncode == 0
    assert done.stderr.startswith(
        "rig-state: warning: disable_plugins names no installed plugin: 'rgi'"
    )
    assert done.stderr.count("\n") == 1
