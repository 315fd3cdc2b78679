"""Store maintenance: ``skillstate migrate``, copying runs with their journals between stores.

A command of the store contract alone (``Store.list``, ``get``, ``journal``,
``import_run``) and the journal check every store must pass
(:func:`skillstate.plugin.history.verify_record`), so it works between any two stores,
bundled or third-party. It imports only ``skillstate.plugin`` and its own modules.
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
            "migrate", "copy every run with its journal to another store", f"{__name__}.migrate"
        )
    )
