"""Issue 27 section 4, conventions people expect: ``python -m skillstate``, "did you
mean" for a mistyped command, ``-q`` and ``-v``.

Before, ``python -m skillstate`` said there is no ``skillstate.__main__``, a mistyped
command got argparse's list of every choice with no hint, and there was neither
``-q`` nor ``-v``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import clean_env, run_skillstate


def test_python_dash_m_is_the_command_line(tmp_path: Path) -> None:
    def module(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "skillstate", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=clean_env(),
            timeout=60,
        )

    assert module("--version").stdout == run_skillstate("--version").stdout
    done = module("init", "rig-task", "t1")
    assert done.returncode == 0, done.stderr
    assert module("list").stdout == run_skillstate("list", cwd=tmp_path).stdout
    assert module("lsit").returncode == 2
    assert module("--help").stdout.startswith("usage: skillstate ")


def test_a_mistyped_command_gets_the_nearest_one(tmp_path: Path) -> None:
    done = run_skillstate("lsit", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "skillstate: invalid choice: 'lsit' is not a command (did you mean 'list'?); "
        "'skillstate --help' lists them\n"
    )
    plugin = run_skillstate("--store", "memory:", "skils", cwd=tmp_path)  # a plugin's command
    assert plugin.returncode == 2 and "(did you mean 'skills'?)" in plugin.stderr
    far = run_skillstate("frobnicate", cwd=tmp_path)
    assert far.returncode == 2 and "did you mean" not in far.stderr
    assert far.stderr.count("\n") == 1
    hostile = run_skillstate("\x1b[31mlist", cwd=tmp_path)
    assert hostile.returncode == 2 and "\x1b" not in hostile.stderr
    assert not (tmp_path / ".skillstate").exists()


def test_quiet_drops_warning_lines_and_keeps_errors(tmp_path: Path) -> None:
    loud = run_skillstate("--disable-plugin", "rgi", "init", "rig-task", "t1", cwd=tmp_path)
    assert loud.returncode == 0 and "warning: disable_plugins names no installed plugin" in (
        loud.stderr
    )
    quiet = run_skillstate("-q", "--disable-plugin", "rgi", "list", cwd=tmp_path)
    assert (quiet.returncode, quiet.stderr) == (0, "")
    assert quiet.stdout.startswith("t1\t")
    error = run_skillstate("-q", "show", "nope", cwd=tmp_path)
    assert error.returncode == 2 and error.stderr.startswith("skillstate: no run 'nope'")


def test_verbose_names_the_store_and_where_it_came_from(tmp_path: Path) -> None:
    (tmp_path / "skillstate.toml").write_text('store = "sqlite:///runs.db"\n')
    done = run_skillstate("-v", "init", "rig-task", "t1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    line = done.stderr.splitlines()[0]
    assert line.startswith("skillstate: store sqlite:///runs.db (from ")
    assert "skillstate.toml" in line and f"project directory {tmp_path}" in line
    plain = run_skillstate("list", cwd=tmp_path)
    assert plain.stderr == ""
    both = run_skillstate("-q", "-v", "list", cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_an_unknown_command_says_when_some_plugins_are_not_loaded(tmp_path: Path) -> None:
    blocked = run_skillstate("--disable-plugin", "maintenance", "export", "t1", cwd=tmp_path)
    assert blocked.returncode == 2 and blocked.stderr.count("\n") == 1
    assert "'export' is not a command; some plugins are not loaded ('skillstate plugins'" in (
        blocked.stderr
    )
    plain = run_skillstate("exprot", "t1", cwd=tmp_path)
    assert plain.returncode == 2 and "did you mean 'export'" in plain.stderr
    assert "not loaded" not in plain.stderr


def test_what_a_caller_typed_stays_on_its_line_and_keeps_its_password(tmp_path: Path) -> None:
    fake = run_skillstate(
        "init", "rig-task", "r1", "--json", '{"phase":"x\\n  - fake: all good"}', cwd=tmp_path
    )
    lines = fake.stderr.splitlines()
    assert fake.returncode == 1 and len(lines) == 2  # the title, one reason
    assert lines[1].startswith('  - phase: "x\\n  - fake: all good"')
    for args in (("a\nb",), ("init", "rig-task", "bad\nid")):
        done = run_skillstate(*args, cwd=tmp_path)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and "\\n" in done.stderr
    word = "postgresql://u:hunter2pw@h/db"
    for args in ((word,), ("--disable-plugin", word, "list"), ("list", word)):
        done = run_skillstate(*args, cwd=tmp_path)
        assert "hunter2pw" not in done.stderr and "u:***@h/db" in done.stderr


def test_an_empty_store_url_is_refused_not_the_default(tmp_path: Path) -> None:
    done = run_skillstate("--store", "", "init", "rig-task", "r1", cwd=tmp_path)
    assert done.returncode == 2 and "no store for URL ''" in done.stderr
    assert not (tmp_path / ".skillstate").exists()


def test_stderr_lines_escape_what_a_caller_or_a_plugin_wrote(tmp_path: Path) -> None:
    """``-v``'s store line and a warning (an observer's error) print control characters
    escaped, as every error line does: a new user's walk saw a raw ESC reach the terminal
    from ``--store $'memory:\\e[2J'`` and from an after-commit hook's message."""
    from support import make_distribution

    verbose = run_skillstate("-v", "--store", "memory:\x1b[2J", "list", cwd=tmp_path)
    assert verbose.returncode == 0, verbose.stderr
    assert "\x1b" not in verbose.stderr and "store memory:\\x1b[2J (from" in verbose.stderr
    make_distribution(
        tmp_path,
        "loud-observer",
        "loud_observer",
        """
        from skillstate.plugin import hookimpl

        @hookimpl
        def skillstate_after_commit(record):
            raise RuntimeError("after commit \\x1b[2J exploded")
        """,
        {"loud": "loud_observer"},
    )
    done = run_skillstate("init", "rig-task", "t1", cwd=tmp_path, PYTHONPATH=str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "exploded" in done.stderr and "\x1b" not in done.stderr, done.stderr
    assert "after commit \\x1b[2J exploded" in done.stderr


def test_a_value_with_line_breaks_or_tabs_stays_in_its_line_and_column(tmp_path: Path) -> None:
    """``show`` is one line per field and ``list`` five tab-separated columns per run,
    whatever a value holds: a title ``ok\\ntests.status: green`` printed a line that read
    as another field to the model reading the block, and a ``nextAction`` with a newline
    and tabs made one epic two rows of ``rig-state list`` (a new user's walk)."""
    import json

    title = "ok\ntests.status: green"
    seed = {"spec": {"id": "A", "title": title, "source": "linear"}}
    done = run_skillstate("init", "rig-task", "t1", "--json", json.dumps(seed), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = run_skillstate("show", "t1", cwd=tmp_path).stdout.splitlines()
    assert "spec.title: ok\\ntests.status: green" in shown
    assert not any(line.startswith("tests.status") for line in shown)
    got = run_skillstate("get", "t1", "--field", "spec.title", cwd=tmp_path)
    assert got.stdout == title + "\n"  # the value itself, exactly, where it is asked for
    epic = {"nextAction": "go\ne2\trig-epic\trun\t2026"}
    done = run_skillstate("init", "rig-epic", "e1", "--json", json.dumps(epic), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = [r for r in run_skillstate("list", cwd=tmp_path).stdout.splitlines() if r]
    assert len(rows) == 2 and all(len(row.split("\t")) == 5 for row in rows)
    assert rows[0].endswith("\tgo\\ne2\\trig-epic\\trun\\t2026")
    labelled = run_skillstate(
        "patch", "t1", "--step", "a\tb\nc", "--json", '{"branch": "x"}', cwd=tmp_path
    )
    assert labelled.returncode == 0, labelled.stderr
    log = run_skillstate("log", "t1", cwd=tmp_path).stdout.splitlines()
    assert len(log) == 2 and len(log[1].split("\t")) == len(log[0].split("\t"))
    assert "\ta\\tb\\nc\t" in log[1]


@pytest.mark.parametrize(
    ("number", "said"),
    [
        ("1" * 5000, "skillstate: patch holds a whole number of 5,000 digits, more than 4,300\n"),
        (
            "1e400",
            "skillstate: patch holds the number 1e400, too large for a JSON number (over 1.8e308)\n",
        ),
    ],
)
def test_a_number_no_json_number_holds_is_named_as_such(
    tmp_path: Path, number: str, said: str
) -> None:
    """Before: ``inf is not a JSON number`` for 1e400, and Python's advice to call
    ``sys.set_int_max_str_digits()`` for 5,000 digits (a new user's walk)."""
    assert run_skillstate("init", "rig-task", "t1", cwd=tmp_path).returncode == 0
    done = run_skillstate("patch", "t1", "--json", '{"branch": ' + number + "}", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, said)
