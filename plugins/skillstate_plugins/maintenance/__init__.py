"""Store maintenance: ``skillstate verify`` (each run against its journal, ``--repair``),
``skillstate gc`` (finished or old runs deleted), ``skillstate migrate`` (runs with
their journals copied between stores), and ``skillstate export`` / ``import`` (one run
as a self-contained file, checked in full before anything is written).

Commands of the store contract alone (``Store.list``, ``get``, ``journal``,
``snapshots``, ``damage``, ``debris``, ``repair``, ``delete_if_at``, ``import_run``), the
journal check every store must pass (:func:`skillstate.plugin.history.verify_record`),
the export format's writer (:func:`~skillstate.plugin.history.dump_export`) and the
host's rules (:meth:`Host.refusals <skillstate.plugin.Host.refusals>`), so they work on
any store, bundled or third-party. It imports only ``skillstate.plugin`` and its own
modules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from skillstate.plugin import hookimpl

if TYPE_CHECKING:
    from skillstate.plugin import CommandSpec


@hookimpl
def skillstate_register_commands(register: Callable[[CommandSpec], None]) -> None:
    from skillstate.plugin import CommandSpec

    register(
        CommandSpec.from_module(
            "verify", "replay journals; report runs whose record differs", f"{__name__}.verify"
        )
    )
    register(
        CommandSpec.from_module(
            "gc",
            "delete finished or old runs (--closed-before, --older-than, --dry-run)",
            f"{__name__}.gc",
        )
    )
    register(
        CommandSpec.from_module(
            "migrate", "copy every run with its journal to another store", f"{__name__}.migrate"
        )
    )
    register(
        CommandSpec.from_module(
            "export",
            "write a run (record + journal) to one self-contained file",
            f"{__name__}.export_cmd",
        )
    )
    register(
        CommandSpec.from_module(
            "import",
            "read a run from an export file, checked before anything is written",
            f"{__name__}.import_cmd",
        )
    )
