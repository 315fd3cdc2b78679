"""The console scripts' start-up (``skillstate.cli.startup``): the collector off for a
short command, back on for a long one, untouched by ``main`` called in-process; the exit
is the interpreter's ordinary one (``atexit`` functions, teardown)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.support import clean_env

PRELUDE = """
import atexit, gc, sys
from skillstate.cli.startup import long_running, run_console

class Teardown:
    def __del__(self):
        sys.__stderr__.write("teardown\\n")

KEEP = Teardown()  # deleted by the interpreter's teardown
atexit.register(lambda: print("atexit"))
"""


def _run(body: str) -> subprocess.CompletedProcess[str]:
    code = PRELUDE + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), timeout=60
    )


def test_a_short_command_runs_without_the_collector_and_exits_as_usual() -> None:
    done = _run(
        """
        def main():
            print("collector on:", gc.isenabled())
            return 3
        sys.exit(run_console(main))
        """
    )
    assert done.returncode == 3
    assert done.stdout == "collector on: False\natexit\n"
    assert done.stderr == "teardown\n"


def test_a_long_command_gets_the_collector_back() -> None:
    done = _run(
        """
        def main():
            long_running()
            print("collector on:", gc.isenabled())
            return 5
        sys.exit(run_console(main))
        """
    )
    assert done.returncode == 5
    assert done.stdout == "collector on: True\natexit\n"


def test_main_called_in_process_leaves_the_collector_alone() -> None:
    done = _run(
        """
        import io, contextlib
        from skillstate.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            main(["--store", "memory:", "list"])
        print("collector on:", gc.isenabled())
        long_running()  # not a console script: does nothing
        gc.disable()
        long_running()
        print("collector on:", gc.isenabled())
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "collector on: True\ncollector on: False\natexit\n"


def test_the_console_scripts_are_the_run_console_entries() -> None:
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"][
        "scripts"
    ]
    assert scripts == {
        "skillstate": "skillstate.cli.main:console",
        "rig-state": "skillstate_plugins.rig.cli:console",
    }


def test_a_core_command_builds_only_its_own_parser(capsys: object) -> None:
    """Each sub-parser costs argparse's gettext look-ups: ``skillstate list`` builds one,
    ``skillstate -h`` (which lists every command) all of them."""
    import argparse

    from skillstate.cli.main import CORE_COMMANDS, main

    added: list[str] = []
    original = argparse._SubParsersAction.add_parser

    def counting(self: argparse._SubParsersAction, name: str, **kwargs: object) -> object:  # type: ignore[type-arg]
        added.append(name)
        return original(self, name, **kwargs)  # type: ignore[arg-type]

    argparse._SubParsersAction.add_parser = counting  # type: ignore[method-assign]
    try:
        assert main(["--store", "memory:", "list"]) == 0
        assert added == ["list"]
        added.clear()
        try:
            main(["-h", "list"])
        except SystemExit as exc:
            assert exc.code == 0
        assert len(added) >= len(CORE_COMMANDS)
    finally:
        argparse._SubParsersAction.add_parser = original  # type: ignore[method-assign]


def test_a_line_the_one_command_parser_refuses_gets_the_whole_tables_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """argparse may read another command word than the one found first (``--`` or ``-1``
    is taken for the command): the error lists every core command, as before the
    one-parser start-up, not only the one that was built."""
    from skillstate.cli.main import CORE_COMMANDS, main

    for line in (["--", "patch", "r"], ["-1", "show", "r"]):
        with pytest.raises(SystemExit) as exited:
            main(["--store", "memory:", *line])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert f"invalid choice: '{line[0]}'" in err
        assert all(f"'{name}'" in err for name in CORE_COMMANDS.names()), err
    with pytest.raises(SystemExit):  # a sub-command's own error is unchanged
        main(["--store", "memory:", "patch", "r", "--bogus"])
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_a_process_forked_by_a_short_command_gets_the_collector_back() -> None:
    """A plugin may fork a worker that outlives the command (a notifier, multiprocessing's
    ``fork`` start): the child must not run for hours without the cyclic collector."""
    done = _run(
        """
        import os
        def main():
            pid = os.fork()
            if pid == 0:
                sys.__stdout__.write(f"child collector on: {gc.isenabled()}\\n")
                sys.__stdout__.flush()
                os._exit(0)
            os.waitpid(pid, 0)
            print("parent collector on:", gc.isenabled())
            return 0
        sys.exit(run_console(main))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "child collector on: True\nparent collector on: False\natexit\n"
