"""The console scripts' start-up and exit (``skillstate.cli.startup``).

A short command runs with the cyclic collector off and ends without the interpreter's
teardown, yet with everything an ordinary exit does that anyone can see: its exit
code, standard output and error flushed into a pipe, the ``atexit`` functions run. A
live thread, or a command that says it is long, gets the ordinary exit.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.support import clean_env

PRELUDE = """
import atexit, gc, sys
from skillstate.cli.startup import long_running, run_console

class Teardown:
    def __del__(self):
        sys.__stderr__.write("teardown\\n")

KEEP = Teardown()  # deleted by the interpreter's teardown only
atexit.register(lambda: print("atexit"))
"""


def _run(body: str) -> subprocess.CompletedProcess[str]:
    code = PRELUDE + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=clean_env(), timeout=60
    )


def test_a_short_command_ends_without_teardown_but_flushed_and_with_its_code() -> None:
    done = _run(
        """
        def main():
            print("collector on:", gc.isenabled())
            sys.stderr.write("to stderr")  # no newline: only a flush writes it
            return 3
        sys.exit(run_console(main))
        """
    )
    assert done.returncode == 3
    assert done.stdout == "collector on: False\natexit\n"
    assert done.stderr == "to stderr"  # and no "teardown": it was skipped


def test_a_live_thread_gets_the_ordinary_exit() -> None:
    done = _run(
        """
        import threading, time
        def main():
            def late():
                time.sleep(0.2)
                print("thread done")
            threading.Thread(target=late).start()
            return 0
        sys.exit(run_console(main))
        """
    )
    assert done.returncode == 0
    assert done.stdout == "thread done\natexit\n"  # joined before atexit, as Python does
    assert "teardown" in done.stderr


def test_a_long_command_gets_the_collector_back_and_the_ordinary_exit() -> None:
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
    assert "teardown" in done.stderr


def test_main_called_in_process_leaves_the_collector_alone(tmp_path: object) -> None:
    done = _run(
        """
        import io, contextlib
        from skillstate.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()):
            main(["--store", "memory:", "list"])
        print("collector on:", gc.isenabled())
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "collector on: True\natexit\n"
    assert "teardown" in done.stderr
