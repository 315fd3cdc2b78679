"""skillstate: an agent's working state kept outside the model.

One small, typed JSON document per run, changed only by sparse patches (RFC 7396),
each checked (schema, budgets, guards) and either committed atomically with a
journal line or rejected with reasons and no change at all.

The public names below are imported lazily, so ``import skillstate`` (and
``skillstate --version``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr
from skillstate._version import __version__

if TYPE_CHECKING:
    from skillstate.environment import Environment
    from skillstate.errors import (
        InvalidInput,
        InvalidRunId,
        PluginConflictError,
        PluginError,
        RunExists,
        RunNotFound,
        SkillstateError,
        VersionConflict,
    )
    from skillstate.host import Host
    from skillstate.manager import make_plugin_manager
    from skillstate.markers import hookimpl, hookspec
    from skillstate.merge import merge_patch
    from skillstate.pipeline import Change, Outcome, create_run, transition
    from skillstate.records import (
        ActionResult,
        Budget,
        DoctorFinding,
        EnvironmentSpec,
        FieldSpec,
        JournalEntry,
        Problem,
        RunRecord,
        SkillDefinition,
        StoreSpec,
    )
    from skillstate.runtime.sessions import Runtime
    from skillstate.store import Store

__all__ = [
    "ActionResult",
    "Budget",
    "Change",
    "DoctorFinding",
    "Environment",
    "EnvironmentSpec",
    "FieldSpec",
    "Host",
    "InvalidInput",
    "InvalidRunId",
    "JournalEntry",
    "Outcome",
    "PluginConflictError",
    "PluginError",
    "Problem",
    "RunExists",
    "RunNotFound",
    "RunRecord",
    "Runtime",
    "SkillDefinition",
    "SkillstateError",
    "Store",
    "StoreSpec",
    "VersionConflict",
    "__version__",
    "create_run",
    "hookimpl",
    "hookspec",
    "make_plugin_manager",
    "merge_patch",
    "transition",
]

_LAZY = {
    "Environment": "skillstate.environment",
    "InvalidInput": "skillstate.errors",
    "InvalidRunId": "skillstate.errors",
    "PluginConflictError": "skillstate.errors",
    "PluginError": "skillstate.errors",
    "RunExists": "skillstate.errors",
    "RunNotFound": "skillstate.errors",
    "SkillstateError": "skillstate.errors",
    "VersionConflict": "skillstate.errors",
    "Host": "skillstate.host",
    "make_plugin_manager": "skillstate.manager",
    "hookimpl": "skillstate.markers",
    "hookspec": "skillstate.markers",
    "merge_patch": "skillstate.merge",
    "ActionResult": "skillstate.records",
    "Budget": "skillstate.records",
    "DoctorFinding": "skillstate.records",
    "EnvironmentSpec": "skillstate.records",
    "FieldSpec": "skillstate.records",
    "JournalEntry": "skillstate.records",
    "Problem": "skillstate.records",
    "RunRecord": "skillstate.records",
    "SkillDefinition": "skillstate.records",
    "StoreSpec": "skillstate.records",
    "Store": "skillstate.store",
    "Runtime": "skillstate.runtime.sessions",
    "Change": "skillstate.pipeline",
    "Outcome": "skillstate.pipeline",
    "create_run": "skillstate.pipeline",
    "transition": "skillstate.pipeline",
}


__getattr__ = lazy_getattr("skillstate", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
