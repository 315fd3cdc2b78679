"""For plugins with commands, or a command line of their own.

A plugin's :class:`~skillstate.plugin.CommandSpec` receives a :class:`CliContext` in
``run(ctx)``: the parsed ``ctx.args``, ``ctx.out`` / ``ctx.err``, and ``ctx.config``,
``ctx.host``, ``ctx.store`` built on first use (``ctx.existing_store()`` for a command
that only reads: a store that does not exist yet is refused, exit 2, never created);
``ctx.error(message)`` prints one
``prog: message`` line with the store's credentials masked, ``ctx.reasons(title,
problems)`` a refusal's reasons as ``init`` lists them (at most 100). ``run`` returns an
:class:`ExitCode` (``docs/cli.md``, "Exit codes").

A plugin with a whole command line of its own (the ``rig-state`` drop-in) subclasses
:class:`CliContext` to say where its configuration comes from (:func:`load_config`),
runs its body with :meth:`CliContext.run` (every expected failure one line and its
exit code, never a traceback), and reuses the run commands, which print and exit
exactly as ``skillstate``'s own::

    from skillstate.plugin.cli import CliContext, RunCommands, load_config

    class MyContext(CliContext):
        def __init__(self, root):
            super().__init__(None, prog="my-tool", check_commands=False)
            self.root = root

        @property
        def config(self):
            return load_config(self.root)

    ctx = MyContext(".")
    code = ctx.run(lambda: RunCommands(ctx).show("abc-18"))

:func:`parse_duration` reads a duration as the configuration and ``gc --older-than`` take
it (``30d``, ``12h``, ``90m``, ``45s``, ``2w``): seconds, or an
:class:`~skillstate.plugin.InvalidInput` naming the option.

:func:`build_parser` and :func:`all_commands` give the whole ``skillstate`` command line
(the core's commands and every plugin's) as one parser, as ``skillstate completion`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_exports

if TYPE_CHECKING:
    from skillstate.cli.context import CliContext as CliContext
    from skillstate.cli.exits import ExitCode as ExitCode
    from skillstate.cli.main import all_commands as all_commands, build_parser as build_parser
    from skillstate.cli.run_commands import RunCommands as RunCommands
    from skillstate.config import load_config as load_config
    from skillstate.retention import parse_duration as parse_duration

_WHERE = {
    "skillstate.cli.context": ("CliContext",),
    "skillstate.cli.exits": ("ExitCode",),
    "skillstate.cli.main": ("all_commands", "build_parser"),
    "skillstate.cli.run_commands": ("RunCommands",),
    "skillstate.config": ("load_config",),
    "skillstate.retention": ("parse_duration",),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
