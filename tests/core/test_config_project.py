"""Issue 16, class 12: configuration and the default store from a subdirectory; comments kept.

Before the fix, ``skillstate`` read ``skillstate.toml`` from the current directory only,
so a command run from ``src/`` made a second, empty store there, and ``config set``
rewrote the file without its comments (tomli-w).
"""

from __future__ import annotations

from pathlib import Path

from support import run_skillstate

from skillstate.config import load_config

COMMENTED = """# project settings: read by every skillstate command
store = "file:.skillstate/state"  # the default, said out loud

[budget]
# keep states small
string_chars = 400
"""


def test_a_subdirectory_uses_the_project_configuration_and_store(tmp_path: Path) -> None:
    project = tmp_path / "project"
    deep = project / "src" / "deep"
    deep.mkdir(parents=True)
    (project / "skillstate.toml").write_text(COMMENTED)
    assert run_skillstate("init", "rig-task", "t1", cwd=project).returncode == 0
    listed = run_skillstate("list", cwd=deep)
    assert listed.returncode == 0 and listed.stdout.startswith("t1\trig-task\tspec"), listed.stderr
    got = run_skillstate("config", "get", "budget.string_chars", cwd=deep)
    assert got.stdout == "400\n"
    assert run_skillstate("patch", "t1", "--json", '{"nextAction":"go"}', cwd=deep).returncode == 0
    assert not (deep / ".skillstate").exists() and not (project / "src" / ".skillstate").exists()


def test_the_walk_stops_at_a_marker_or_a_git_root(tmp_path: Path) -> None:
    from skillstate.config import find_project_root

    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert find_project_root(repo / "a" / "b") == repo
    (repo / "a" / ".skillstate").mkdir()
    assert find_project_root(repo / "a" / "b") == repo / "a"
    (repo / "a" / "b" / "pyproject.toml").write_text("[tool.skillstate]\nstore = 'memory:'\n")
    assert find_project_root(repo / "a" / "b") == repo / "a" / "b"
    lone = tmp_path / "lone" / "x"
    lone.mkdir(parents=True)
    assert find_project_root(lone) == lone  # no marker up to / (tmp has none): here


def test_the_home_directorys_skillstate_is_not_a_project(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".skillstate" / "skills").mkdir(parents=True)
    work = home / "work"
    work.mkdir()
    done = run_skillstate("init", "rig-task", "t1", cwd=work, HOME=str(home))
    assert done.returncode == 0, done.stderr
    assert (work / ".skillstate" / "state" / "t1.json").exists()


def test_a_relative_store_from_the_environment_is_taken_from_the_current_directory(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "skillstate.toml").write_text('store = "file:runs"\n')
    config = load_config(project, env={"SKILLSTATE_STORE": "file:mine"})
    assert config.store == "file:mine"
    done = run_skillstate("init", "rig-task", "t1", cwd=project / "sub")
    assert done.returncode == 0 and (project / "runs" / "t1.json").exists()
    env = run_skillstate(
        "init", "rig-task", "t2", cwd=project / "sub", SKILLSTATE_STORE="file:here"
    )
    assert env.returncode == 0 and (project / "sub" / "here" / "t2.json").exists()


def test_config_set_keeps_comments_and_order(tmp_path: Path) -> None:
    (tmp_path / "skillstate.toml").write_text(COMMENTED)
    assert run_skillstate("config", "set", "budget.array_items", "20", cwd=tmp_path).returncode == 0
    assert run_skillstate("config", "set", "trace_plugins", "false", cwd=tmp_path).returncode == 0
    text = (tmp_path / "skillstate.toml").read_text()
    assert text.startswith("# project settings: read by every skillstate command\n")
    assert 'store = "file:.skillstate/state"  # the default, said out loud' in text
    assert "# keep states small\nstring_chars = 400\narray_items = 20\n" in text
    assert load_config(tmp_path, env={}).budget.array_items == 20  # type: ignore[union-attr]
    bad = run_skillstate("config", "set", "budget.array_items", "-3", cwd=tmp_path)
    assert bad.returncode == 2 and (tmp_path / "skillstate.toml").read_text() == text
