"""The typed records of skillstate: problems, skill definitions, runs, journal entries.

Values are frozen attrs classes. Freezing is shallow: a state (a ``dict``) inside a
frozen record must be treated as immutable by everyone; the core never changes a
state in place, it always builds a new one (see :func:`skillstate.merge.merge_patch`).

Each concern is a module of its own, imported (and its attrs classes built) on first
use of one of its names: attrs compiles every generated method at class creation,
so a command builds only the records it touches. ``rig-state patch`` builds those of
:mod:`.problems`, :mod:`.skills`, :mod:`.stores` and :mod:`.runs`; listings,
history (:mod:`.history`) and what environments, commands and doctor checks register
(:mod:`.extensions`) wait until a surface asks for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.records.commands import CommandSpec
    from skillstate.records.environments import EnvironmentSpec
    from skillstate.records.extensions import ActionResult, DoctorFinding
    from skillstate.records.history import HistoryItem, RunSummary, Snapshot
    from skillstate.records.problems import DEFAULT_BUDGET, MAX_MESSAGE, MAX_PATH, Budget, Problem
    from skillstate.records.runs import JournalEntry, RunRecord
    from skillstate.records.skills import FIELD_TYPES, TEXT_UNITS, FieldSpec, SkillDefinition
    from skillstate.records.stores import StoreSpec

__all__ = [
    "DEFAULT_BUDGET",
    "FIELD_TYPES",
    "JSON",
    "MAX_MESSAGE",
    "MAX_PATH",
    "TEXT_UNITS",
    "ActionResult",
    "Budget",
    "CommandSpec",
    "DoctorFinding",
    "EnvironmentSpec",
    "FieldSpec",
    "HistoryItem",
    "JournalEntry",
    "Problem",
    "RunRecord",
    "RunSummary",
    "SkillDefinition",
    "Snapshot",
    "StoreSpec",
]

JSON = Any
"""A JSON value: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` or ``dict`` with ``str`` keys."""

_MODULES = {
    "problems": ("DEFAULT_BUDGET", "MAX_MESSAGE", "MAX_PATH", "Budget", "Problem"),
    "skills": ("FIELD_TYPES", "TEXT_UNITS", "FieldSpec", "SkillDefinition"),
    "stores": ("StoreSpec",),
    "runs": ("JournalEntry", "RunRecord"),
    "history": ("HistoryItem", "RunSummary", "Snapshot"),
    "commands": ("CommandSpec",),
    "environments": ("EnvironmentSpec",),
    "extensions": ("ActionResult", "DoctorFinding"),
}
_LAZY = {name: f"{__name__}.{module}" for module, names in _MODULES.items() for name in names}

__getattr__ = lazy_getattr(__name__, _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
