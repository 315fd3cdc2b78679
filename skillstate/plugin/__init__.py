"""The plugin API: everything a skillstate plugin imports, from this one package.

A plugin is a module (or any object) with functions marked ``@hookimpl`` and named
after a hook of :mod:`skillstate.hookspecs` (``docs/hooks.md``), published under the
``skillstate`` entry-point group. Nothing else is needed: the bundled plugins (rig,
the stores, the environments, the MCP server, the inspector, the benchmark harness,
the skill store) are written exactly this way, import only from ``skillstate.plugin``,
and each could move to a repository of its own.

A guard plugin, start to finish
-------------------------------

``my_rules/__init__.py``::

    from skillstate.plugin import Problem, hookimpl

    @hookimpl
    def skillstate_guards(skill, after):           # declare only the arguments you use
        if skill.name == "rig-task" and after.get("phase") == "shipped":
            if not after.get("release_notes"):
                yield Problem("guard", "phase 'shipped' needs release_notes",
                              "release_notes", "my-rules")

``pyproject.toml``::

    [project.entry-points.skillstate]
    my-rules = "my_rules"

``pip install .`` and every transition of every surface (CLI, ``rig-state``, the
runtime, MCP, Python) checks it; ``skillstate plugins`` lists it;
``SKILLSTATE_DISABLE_PLUGINS=my-rules`` turns it off.

How hooks are called
--------------------

Exactly as pluggy calls them: an implementation may declare any subset of the hook's
arguments (by name); ``specname=``, ``optionalhook=True``, ``tryfirst``/``trylast``
and new-style wrappers (``@hookimpl(wrapper=True)``) work as pluggy documents; the
order is pluggy's (``tryfirst`` first, then the most recently registered plugin first,
``trylast`` last) and the loader registers installed plugins so that they run in
(distribution, entry-point name) order. Each hook's reference (``docs/hooks.md``) has
its **Order** and its **Isolation**: what happens when one implementation raises.
Policy hooks (merge, validate, budget, guards) fail closed: the transition is rejected
with a problem naming your plugin. Observers (after-commit, doctor, the registries)
fail open: a one-line warning names your plugin and the others go on. A
``skillstate_*`` function that matches no hook (``skilstate_guards``) is a load error
naming the nearest hook. Set ``SKILLSTATE_TRACE_PLUGINS=1`` to see every hook call on
stderr.

What to register
----------------

=================================== ==============================================
hook                                record it registers / returns
=================================== ==============================================
``skillstate_register_skills``      :class:`SkillDefinition` (fields, phases, budget)
``skillstate_register_stores``      :class:`StoreSpec` (a URL scheme → :class:`Store`)
``skillstate_register_environments`` :class:`EnvironmentSpec` (→ :class:`Environment`)
``skillstate_register_commands``    :class:`CommandSpec` (``skillstate NAME``)
``skillstate_guards``               :class:`Problem` per broken invariant
``skillstate_validate``             :class:`Problem` per shape problem
``skillstate_budget``               a :class:`Budget`
``skillstate_merge``                the merged state (a ``dict``)
``skillstate_doctor``               :class:`DoctorFinding` per finding
``skillstate_after_commit``         nothing (observe :class:`RunRecord`, :class:`JournalEntry`)
``skillstate_skill_store``          the skill store (``docs/skills.md``)
``skillstate_addhooks``             nothing: ``pluginmanager.add_hookspecs(...)``
=================================== ==============================================

Two plugins registering one name (a skill, a store scheme, an environment, a command)
is a :class:`PluginError` naming both; nothing is resolved silently.

The names
---------

- **Records:** :class:`Problem`, :class:`SkillDefinition`, :class:`FieldSpec`,
  :class:`Budget`, :class:`StoreSpec`, :class:`EnvironmentSpec`,
  :class:`CommandSpec`, :class:`DoctorFinding`, :class:`ActionResult`,
  :class:`RunRecord`, :class:`RunSummary`, :class:`JournalEntry`,
  :class:`HistoryItem`, :class:`Snapshot`.
- **Contracts to implement:** :class:`Store` (``docs/stores.md``),
  :class:`Environment`.
- **The pipeline:** :class:`Host` (plugins, registries, configuration, stores),
  :class:`Change`, :class:`Outcome`, :func:`create_run`, :func:`transition`.
- **Errors** (each with a ``kind``, ``usage`` or ``error``, which command lines turn
  into exit 2 or 3): :class:`SkillstateError` and :class:`InvalidInput`,
  :class:`InvalidRunId`, :class:`RunNotFound`, :class:`RunExists`,
  :class:`VersionConflict`, :class:`StoreError`, :class:`PluginError`.
- **JSON and text:** :func:`compact`, :func:`pretty`, :func:`parse_json`,
  :func:`merge_patch`, :func:`now_iso`, :func:`excerpt` (input quoted bounded and
  printable), :func:`mask_url` (a URL without its password).
- **For stores:** :func:`check_run_id`, :func:`replay` (a journal back into a record),
  :func:`durability` (the level a store's URL or the configuration asks for);
  ``Store.warn``, ``Store.snapshot_due`` and ``Store.import_steps`` are methods of
  :class:`Store` (``docs/stores.md``).
- **For skills that render their own runs** (``SkillDefinition.render``):
  :func:`js_string` (a value as JavaScript's ``String(v)``), :func:`compact_lines` (a
  state as the compact block's lines).

Sub-modules, for bigger plugins:

- :mod:`skillstate.plugin.cli` — commands and command lines of their own;
- :mod:`skillstate.plugin.runtime` — the SKILL.state session runtime;
- :mod:`skillstate.plugin.history` — a run's history as rows, diffs and exports.

Two kits ship beside the core, written on this API alone: :mod:`skillstate_serving`
(serving a local HTTP surface safely) and :mod:`skillstate_testing` (below).

:mod:`skillstate_testing` is the pytest plugin: fixtures, and the store and
environment conformance suites your tests subclass.

Names are imported on first use, so ``from skillstate.plugin import hookimpl`` costs
a plugin's import nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_exports

if TYPE_CHECKING:
    from skillstate.display import excerpt as excerpt
    from skillstate.durability import durability as durability
    from skillstate.environment import Environment as Environment
    from skillstate.errors import (
        InvalidInput as InvalidInput,
        InvalidRunId as InvalidRunId,
        PluginError as PluginError,
        RunExists as RunExists,
        RunNotFound as RunNotFound,
        SkillstateError as SkillstateError,
        StoreError as StoreError,
        VersionConflict as VersionConflict,
    )
    from skillstate.host import Host as Host
    from skillstate.journal import replay as replay
    from skillstate.jsondoc import compact as compact, parse_json as parse_json, pretty as pretty
    from skillstate.markers import hookimpl as hookimpl
    from skillstate.masking import mask_url as mask_url
    from skillstate.merge import merge_patch as merge_patch
    from skillstate.pipeline import (
        Change as Change,
        Outcome as Outcome,
        create_run as create_run,
        now_iso as now_iso,
        transition as transition,
    )
    from skillstate.records import (
        ActionResult as ActionResult,
        Budget as Budget,
        CommandSpec as CommandSpec,
        DoctorFinding as DoctorFinding,
        EnvironmentSpec as EnvironmentSpec,
        FieldSpec as FieldSpec,
        HistoryItem as HistoryItem,
        JournalEntry as JournalEntry,
        Problem as Problem,
        RunRecord as RunRecord,
        RunSummary as RunSummary,
        SkillDefinition as SkillDefinition,
        Snapshot as Snapshot,
        StoreSpec as StoreSpec,
    )
    from skillstate.render import compact_lines as compact_lines
    from skillstate.schema import js_string as js_string
    from skillstate.store import Store as Store, check_run_id as check_run_id

_WHERE = {
    "skillstate.display": ("excerpt",),
    "skillstate.durability": ("durability",),
    "skillstate.environment": ("Environment",),
    "skillstate.errors": (
        "InvalidInput",
        "InvalidRunId",
        "PluginError",
        "RunExists",
        "RunNotFound",
        "SkillstateError",
        "StoreError",
        "VersionConflict",
    ),
    "skillstate.host": ("Host",),
    "skillstate.journal": ("replay",),
    "skillstate.jsondoc": ("compact", "parse_json", "pretty"),
    "skillstate.markers": ("hookimpl",),
    "skillstate.masking": ("mask_url",),
    "skillstate.merge": ("merge_patch",),
    "skillstate.pipeline": ("Change", "Outcome", "create_run", "now_iso", "transition"),
    "skillstate.records": (
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
    ),
    "skillstate.render": ("compact_lines",),
    "skillstate.schema": ("js_string",),
    "skillstate.store": ("Store", "check_run_id"),
}
__all__, __getattr__, __dir__ = lazy_exports(__name__, _WHERE, globals())
