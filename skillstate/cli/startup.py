"""The console scripts' start-up and exit: no garbage collection, no teardown, for a short command.

``rig-state patch`` or ``skillstate show`` lives for tens of milliseconds and creates
~10⁵ objects while it imports its modules, builds its record classes and registers the
plugins. Two costs of that are not the command's work:

- with the cyclic collector on, CPython walks the growing heap again and again, and
  almost none of it is garbage (~3 % of the instructions of ``rig-state patch``);
  reference counting still frees everything that is not in a cycle;
- the interpreter's teardown, once the command is over, clears every module and
  collects the heap (~8 %).

So a console script runs :func:`run_console`: the collector off, and once the command
has returned, when it was a short one, the process ends as the interpreter would end it
minus the teardown: standard output and error flushed (an error there: the ordinary
exit, which reports it), the ``atexit`` functions run (a store's last sync, logging's
flush), then ``os._exit``. Only when nothing else runs: with a thread still alive (a
store's background sync), the ordinary exit joins it. ``main(argv)`` called in a process
of its own (the tests, a plugin) is left alone. A command that may run long
(``skillstate mcp``, ``ui``, ``bench``, a migration...) calls :func:`long_running`
first: the collector is back on and the exit is the ordinary one.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable

__all__ = ["long_running", "run_console"]

_console = False
_short = True


def run_console(main: Callable[[], int]) -> int:
    """Run a console script's ``main`` with the collector off; end the process after a short one."""
    global _console
    _console = True
    gc.disable()
    code = main()
    if _short:
        _exit_now(code)
    return code  # the ordinary exit


def long_running() -> None:
    """A long command starts: the collector back on (if :func:`run_console` turned it off)."""
    global _short
    _short = False
    if _console:
        gc.enable()


def _exit_now(code: int) -> None:
    """End the process with ``code`` without the interpreter's teardown, or return."""
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return  # a thread to join first (as the interpreter does): the ordinary exit
    if not _flushed():
        return
    import atexit

    atexit._run_exitfuncs()
    if _flushed():
        os._exit(code)


def _flushed() -> bool:
    """Flush standard output and error; ``False`` if either fails (the ordinary exit reports it)."""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:
        return False
    return True
