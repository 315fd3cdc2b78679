"""skillstate: an agent's working state kept outside the model.

One small, typed JSON document per run, changed only by sparse patches (RFC 7396),
each checked (schema, budgets, guards) and either committed atomically with a
journal line or rejected with reasons and no change at all.

The public names below are imported lazily, so ``import skillstate`` (and
``skillstate --version``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_exports
from skillstate._version import __version__

if TYPE_CHECKING:
    from skillstate.environment import Environment as Environment
    from skillstate.errors import (
        InvalidInput as InvalidInput,
        InvalidRunId as InvalidRunId,
        PluginConflictError as PluginConflictError,
        PluginError as PluginError,
        RunExists as RunExists,
        RunNotFound as RunNotFound,
        SkillstateError as SkillstateError,
        VersionConflict as VersionConflict,
    )
    from skillstate.host import Host as Host
    from skillstate.manager import make_plugin_manager as make_plugin_manager
    from skillstate.markers import hookimpl as hookimpl, hookspec as hookspec
    from skillstate.merge import merge_patch as merge_patch
    from skillstate.pipeline import (
        Change as Change,
        Outcome as Outcome,
        create_run as create_run,
        transition as transition,
    )
    from skillstate.records import (
        ActionResult as ActionResult,
        Budget as Budget,
        DoctorFinding as DoctorFinding,
        EnvironmentSpec as EnvironmentSpec,
        FieldSpec as FieldSpec,
        JournalEntry as JournalEntry,
        Problem as Problem,
        RunRecord as RunRecord,
        SkillDefinition as SkillDefinition,
        StoreSpec as StoreSpec,
    )
    from skillstate.runtime.sessions import Runtime as Runtime
    from skillstate.store import Store as Store

_WHERE = {
    "skillstate.environment": ("Environment",),
    "skillstate.errors": (
        "InvalidInput",
        "InvalidRunId",
        "PluginConflictError",
        "PluginError",
        "RunExists",
        "RunNotFound",
        "SkillstateError",
        "VersionConflict",
    ),
    "skillstate.host": ("Host",),
    "skillstate.manager": ("make_plugin_manager",),
    "skillstate.markers": ("hookimpl", "hookspec"),
    "skillstate.merge": ("merge_patch",),
    "skillstate.pipeline": ("Change", "Outcome", "create_run", "transition"),
    "skillstate.records": (
        "ActionResult",
        "Budget",
        "DoctorFinding",
        "EnvironmentSpec",
        "FieldSpec",
        "JournalEntry",
        "Problem",
        "RunRecord",
        "SkillDefinition",
        "StoreSpec",
    ),
    "skillstate.runtime.sessions": ("Runtime",),
    "skillstate.store": ("Store",),
}
_names, __getattr__, _dir = lazy_exports(__name__, _WHERE, globals())
__all__ = [*_names, "__version__"]


def __dir__() -> list[str]:
    return sorted(__all__)
