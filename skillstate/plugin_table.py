"""The plugin table's record (``skillstate plugins``, ``doctor``), built when a table is read.

The manager keeps its rows as tuples while it loads the plugins
(:attr:`skillstate.manager.SkillstatePluginManager.rows`); a command that never shows
the table (``rig-state patch``, ``skillstate get``...) does not build this attrs class.
"""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["PluginInfo"]


@attrs.frozen
class PluginInfo:
    """One row of ``skillstate plugins``.

    ``status`` is ``essential`` (the core's merge, schema and budgets: always loaded,
    cannot be blocked), ``active``, ``blocked`` (by the block list) or ``error`` (it
    failed to import or declares a hook that does not exist; ``error`` says why).
    """

    name: str
    distribution: str | None
    version: str | None
    status: str
    hooks: tuple[str, ...] = ()
    module: str | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "status": self.status,
            "hooks": list(self.hooks),
            "module": self.module,
            "error": self.error,
        }
