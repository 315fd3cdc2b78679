"""The console scripts' start-up: the cyclic garbage collector off for a short command.

``rig-state patch`` or ``skillstate show`` lives for tens of milliseconds and creates
~10⁵ objects while it imports its modules, builds its record classes and registers the
plugins. With the collector on, CPython walks that growing heap again and again, and
almost none of it is garbage (~3 % of the instructions of ``rig-state patch``).
Reference counting still frees everything that is not in a cycle; the few cycles wait
for the interpreter's ordinary exit, which collects them and closes what they hold.

Only the console scripts do this (:func:`run_console`); ``main(argv)`` called in a
process of its own (the tests, a plugin) leaves the collector alone. A command that
may run long (``skillstate mcp``, ``ui``, ``bench``, a migration...) calls
:func:`long_running` first, which turns the collector back on, and so does a child the
command forks.

Not done, though measured: ending a short command with ``os._exit`` after flushing
and running the ``atexit`` functions (the interpreter's teardown is ~8 % of
``rig-state patch``). It changes what a process leaves behind: an SQLite store's
connection is not closed (its WAL is not checkpointed and stays beside the database),
a PostgreSQL connection is dropped rather than closed, and a plugin's file left open
with buffered writes loses them.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable

__all__ = ["long_running", "run_console"]

_console = False


def run_console(main: Callable[[], int]) -> int:
    """Run a console script's ``main`` with the collector off (it is not turned back on).

    A process forked meanwhile (a plugin's background worker, ``multiprocessing``'s
    ``fork`` start) gets the collector back: it may live long after the command.
    """
    global _console
    if not _console and hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=gc.enable)
    _console = True
    gc.disable()
    return main()


def long_running() -> None:
    """A long command starts: the collector back on (if :func:`run_console` turned it off)."""
    if _console:
        gc.enable()
