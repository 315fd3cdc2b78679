"""For plugins with a command line: the command context and the run commands.

A plugin's :class:`~skillstate.plugin.CommandSpec` receives a :class:`CliContext`
in ``run(ctx)``. A plugin with a whole command line of its own (the ``rig-state``
drop-in) subclasses :class:`HostContext` to say where its configuration comes from,
and reuses the run commands (``do_init``, ``do_patch``...), which print and exit
exactly as ``skillstate``'s own (``skillstate.cli.runs``); call
:func:`install_warning_format` first so skillstate's warnings print as one
``{prog}: warning: …`` line each::

    from skillstate.plugin.cli import HostContext, do_show, load_config

    class MyContext(HostContext):
        prog = "my-tool"
        ...

Exit codes: :data:`OK` (0), :data:`REJECTED` (1), :data:`USAGE` (2), :data:`ERROR` (3);
:func:`run_guarded` runs a command line's body and turns every expected failure (a
``SkillstateError``, a closed pipe, an output stream that cannot encode the text) into
one ``prog: message`` line and its exit code, never a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.cli.context import CliContext, HostContext
    from skillstate.cli.doctor_cmd import doctor_report, open_store_problem
    from skillstate.cli.exits import CLOSED, install_warning_format, run_guarded
    from skillstate.cli.runs import (
        ERROR,
        OK,
        REJECTED,
        USAGE,
        RunContext,
        do_get,
        do_init,
        do_journal,
        do_list,
        do_patch,
        do_rm,
        do_show,
        read_document,
    )
    from skillstate.cli.startup import run_console
    from skillstate.config import Config, load_config


__all__ = [
    "CLOSED",
    "ERROR",
    "OK",
    "REJECTED",
    "USAGE",
    "CliContext",
    "Config",
    "HostContext",
    "RunContext",
    "do_get",
    "do_init",
    "do_journal",
    "do_list",
    "do_patch",
    "do_rm",
    "do_show",
    "doctor_report",
    "install_warning_format",
    "load_config",
    "open_store_problem",
    "read_document",
    "run_console",
    "run_guarded",
]

_RUNS = (
    "ERROR",
    "OK",
    "REJECTED",
    "USAGE",
    "RunContext",
    "do_get",
    "do_init",
    "do_journal",
    "do_list",
    "do_patch",
    "do_rm",
    "do_show",
    "read_document",
)

_LAZY = {
    "CliContext": "skillstate.cli.context",
    "HostContext": "skillstate.cli.context",
    "doctor_report": "skillstate.cli.doctor_cmd",
    "open_store_problem": "skillstate.cli.doctor_cmd",
    "CLOSED": "skillstate.cli.exits",
    "run_guarded": "skillstate.cli.exits",
    "install_warning_format": "skillstate.cli.exits",
    "Config": "skillstate.config",
    "load_config": "skillstate.config",
    "run_console": "skillstate.cli.startup",
    **{name: "skillstate.cli.runs" for name in _RUNS},
}

__getattr__ = lazy_getattr("skillstate.plugin.cli", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
