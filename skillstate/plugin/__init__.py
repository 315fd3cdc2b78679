"""The plugin API: everything a skillstate plugin imports, from this one package.

A plugin is a module (or any object) with functions marked ``@hookimpl`` and named
after a hook of :mod:`skillstate.hookspecs`, published under the ``skillstate``
entry-point group. Nothing else is needed: the bundled plugins (rig, the stores, the
mock and warehouse environments) are written exactly this way, import only from
``skillstate.plugin``, and each could move to a repository of its own.

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
arguments (by name); ``tryfirst``/``trylast`` and new-style wrappers
(``@hookimpl(wrapper=True)``) work; the order is pluggy's (``tryfirst`` first, then
the most recently registered plugin first, ``trylast`` last) and the loader
registers installed plugins so that they run in (distribution, entry-point name)
order. Each hook's reference (``docs/hooks.md``) has its **Order** and its
**Isolation**: what happens when one implementation raises. Policy hooks (merge,
validate, budget, guards) fail closed: the transition is rejected with a problem
naming your plugin. Observers (after-commit, doctor, the registries) fail open: a
one-line warning names your plugin and the others go on. Set
``SKILLSTATE_TRACE_PLUGINS=1`` to see every hook call on stderr.

What to register
----------------

=================================== ==============================================
hook                                record it registers / returns
=================================== ==============================================
``skillstate_register_skills``      :class:`SkillDefinition` (fields, phases, budget)
``skillstate_register_stores``      :class:`StoreSpec` (a URL scheme → :class:`Store`)
``skillstate_register_environments`` :class:`EnvironmentSpec` (→ :class:`Environment`)
``skillstate_register_commands``    :class:`CommandSpec` (``skillstate NAME``)
``skillstate_register_benchmarks``  ``BenchmarkSpec`` (``skillstate bench NAME``; see below)
``skillstate_guards``               :class:`Problem` per broken invariant
``skillstate_validate``             :class:`Problem` per shape problem
``skillstate_budget``               a :class:`Budget`
``skillstate_merge``                the merged state (a ``dict``)
``skillstate_doctor``               :class:`DoctorFinding` per finding
``skillstate_after_commit``         nothing (observe :class:`RunRecord`, :class:`JournalEntry`)
=================================== ==============================================

Two plugins registering one name (a skill, a store scheme, an environment, a command)
is a :class:`PluginConflictError` naming both; nothing is resolved silently.

Where the rest lives
--------------------

- :mod:`skillstate.plugin.cli` — for plugins with a command line of their own (the
  ``rig-state`` drop-in): the run commands and the command context.
- :mod:`skillstate.plugin.runtime` — for environment and benchmark authors: the
  SKILL.state session runtime, its prompts and turn parser.
- :mod:`skillstate_plugins.bench.api` — for benchmark authors: ``BenchmarkSpec`` and the
  harness every ``skillstate bench NAME`` shares (runtimes, runner, LLM adapter,
  results file, sweeps, statistics).
- :mod:`skillstate.testing` — the pytest plugin: fixtures, and the store and
  environment conformance suites your tests subclass.

Names are imported on first use, so ``from skillstate.plugin import hookimpl`` costs
a plugin's import nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillstate._lazy import lazy_getattr

if TYPE_CHECKING:
    from skillstate.display import excerpt
    from skillstate.durability import (
        NO_FLOCK,
        check_level,
        flock_module,
        split_durability,
        store_durability,
        sync_directory,
        sync_file,
    )
    from skillstate.environment import Environment
    from skillstate.errors import (
        ConfigError,
        EnvironmentNotFound,
        InvalidInput,
        InvalidRunId,
        PluginConflictError,
        PluginError,
        RunExists,
        RunNotFound,
        SkillNotFound,
        SkillstateError,
        StoreError,
        StoreNotFound,
        VersionConflict,
        VersionNotFound,
    )
    from skillstate.group_sync import PendingSyncs, pending_syncs
    from skillstate.host import Host
    from skillstate.journal import (
        Merge,
        apply_entry,
        due_snapshots,
        replay,
        replay_history,
        verify_record,
        verify_snapshots,
    )
    from skillstate.jsondoc import (
        check_document,
        compact,
        js_numbers,
        parse_json,
        parse_stored,
        pretty,
    )
    from skillstate.manager import HookFailure
    from skillstate.markers import hookimpl
    from skillstate.masking import mask_url
    from skillstate.merge import copy_json, merge_patch
    from skillstate.pipeline import NO_ACTION, Change, Outcome, create_run, now_iso, transition
    from skillstate.records import (
        DEFAULT_BUDGET,
        ActionResult,
        Budget,
        CommandSpec,
        DoctorFinding,
        EnvironmentSpec,
        FieldSpec,
        HistoryItem,
        JournalEntry,
        Problem,
        RunRecord,
        RunSummary,
        SkillDefinition,
        Snapshot,
        StoreSpec,
    )
    from skillstate.render import compact_lines, dig_field, field_text, render_block
    from skillstate.schema import js_string
    from skillstate.store import (
        RUN_ID_PATTERN,
        SNAPSHOT_INTERVAL,
        Store,
        StoreWarning,
        check_import,
        check_run_id,
        check_version,
        imported_records,
        is_valid_run_id,
        snapshot_due,
    )


__all__ = [
    "DEFAULT_BUDGET",
    "NO_ACTION",
    "NO_FLOCK",
    "RUN_ID_PATTERN",
    "SNAPSHOT_INTERVAL",
    "ActionResult",
    "Budget",
    "Change",
    "CommandSpec",
    "ConfigError",
    "DoctorFinding",
    "Environment",
    "EnvironmentNotFound",
    "EnvironmentSpec",
    "FieldSpec",
    "HistoryItem",
    "HookFailure",
    "Host",
    "InvalidInput",
    "InvalidRunId",
    "JournalEntry",
    "Merge",
    "Outcome",
    "PendingSyncs",
    "PluginConflictError",
    "PluginError",
    "Problem",
    "RunExists",
    "RunNotFound",
    "RunRecord",
    "RunSummary",
    "SkillDefinition",
    "SkillNotFound",
    "SkillstateError",
    "Snapshot",
    "Store",
    "StoreError",
    "StoreNotFound",
    "StoreSpec",
    "StoreWarning",
    "VersionConflict",
    "VersionNotFound",
    "apply_entry",
    "check_document",
    "check_import",
    "check_level",
    "check_run_id",
    "check_version",
    "compact",
    "compact_lines",
    "copy_json",
    "create_run",
    "dig_field",
    "due_snapshots",
    "excerpt",
    "field_text",
    "flock_module",
    "hookimpl",
    "imported_records",
    "is_valid_run_id",
    "js_numbers",
    "js_string",
    "mask_url",
    "merge_patch",
    "now_iso",
    "parse_json",
    "parse_stored",
    "pending_syncs",
    "pretty",
    "render_block",
    "replay",
    "replay_history",
    "snapshot_due",
    "split_durability",
    "store_durability",
    "sync_directory",
    "sync_file",
    "transition",
    "verify_record",
    "verify_snapshots",
]

_LAZY = {
    "Environment": "skillstate.environment",
    **{
        name: "skillstate.errors"
        for name in (
            "ConfigError",
            "EnvironmentNotFound",
            "InvalidInput",
            "InvalidRunId",
            "PluginConflictError",
            "PluginError",
            "RunExists",
            "RunNotFound",
            "SkillNotFound",
            "SkillstateError",
            "StoreError",
            "StoreNotFound",
            "VersionConflict",
            "VersionNotFound",
        )
    },
    "Host": "skillstate.host",
    **{
        name: "skillstate.journal"
        for name in (
            "Merge",
            "apply_entry",
            "due_snapshots",
            "replay",
            "replay_history",
            "verify_record",
            "verify_snapshots",
        )
    },
    "excerpt": "skillstate.display",
    **{name: "skillstate.group_sync" for name in ("PendingSyncs", "pending_syncs")},
    "mask_url": "skillstate.masking",
    **{
        name: "skillstate.durability"
        for name in (
            "NO_FLOCK",
            "check_level",
            "flock_module",
            "split_durability",
            "store_durability",
            "sync_directory",
            "sync_file",
        )
    },
    **{
        name: "skillstate.jsondoc"
        for name in (
            "check_document",
            "compact",
            "js_numbers",
            "parse_json",
            "parse_stored",
            "pretty",
        )
    },
    "HookFailure": "skillstate.manager",
    "hookimpl": "skillstate.markers",
    "copy_json": "skillstate.merge",
    "merge_patch": "skillstate.merge",
    **{
        name: "skillstate.pipeline"
        for name in ("NO_ACTION", "Change", "Outcome", "create_run", "now_iso", "transition")
    },
    **{
        name: "skillstate.records"
        for name in (
            "DEFAULT_BUDGET",
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
        )
    },
    **{
        name: "skillstate.render"
        for name in ("compact_lines", "dig_field", "field_text", "render_block")
    },
    "js_string": "skillstate.schema",
    **{
        name: "skillstate.store"
        for name in (
            "RUN_ID_PATTERN",
            "SNAPSHOT_INTERVAL",
            "Store",
            "StoreWarning",
            "check_import",
            "check_run_id",
            "check_version",
            "imported_records",
            "is_valid_run_id",
            "snapshot_due",
        )
    },
}

__getattr__ = lazy_getattr("skillstate.plugin", _LAZY, globals())


def __dir__() -> list[str]:
    return sorted(__all__)
