"""The hook specifications: the whole contract between skillstate's core and its plugins.

Every hook is named ``skillstate_*``. A plugin is any module or object with
functions marked ``@skillstate.hookimpl`` and named after a hook below, published
under the entry-point group ``skillstate``::

    [project.entry-points.skillstate]
    my-guards = "my_package.guards"

The docstring of each hook is its reference page (``docs/hooks.md`` is generated
from them): when it fires, its call semantics, its order, what happens when one
implementation fails (isolation), its arguments and its return contract, with an
example. Plugin authors import what the examples use from :mod:`skillstate.plugin`.

Every hook is called once, the pluggy way: an implementation may declare any subset
of the arguments below; ``tryfirst``/``trylast`` and new-style wrappers
(``@hookimpl(wrapper=True)``) work — a wrapper's ``results = yield`` may hold
:class:`~skillstate.plugin.PluginError` values (implementations that failed: a
``HookFailure``, returned, not raised, naming the plugin), and what
it returns is checked like an implementation's result; old-style ``hookwrapper=True``
is refused when the plugin is registered. **Order** is pluggy's: ``tryfirst`` implementations, then the
rest with the most recently registered plugin first, then ``trylast``; the loader
registers installed plugins so that they are called in (distribution, entry-point
name) order, and a plugin registered at run time (``pm.register``) is called before
them. Where a hook fires in the transition pipeline::

    transition(run, patch, action)
      skillstate_merge            candidate = Σ ⊕ patch              (first result)
      skillstate_validate         shape problems                     (collected)
      skillstate_budget           size limits for the skill          (first result)
      skillstate_guards           workflow invariants, if no shape problems (collected)
      (environment executes the action; see skillstate_register_environments)
      store.commit                (see skillstate_register_stores)
      skillstate_after_commit     observers                          (collected, errors logged)

Registry hooks (``skillstate_register_*``) are called once per process, when the
registry is first needed, with a ``register`` callback; two plugins registering the
same name is an error naming both.

``SKILLSTATE_TRACE_PLUGINS=1`` prints every hook call, the implementations it runs
and a summary of the results to stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from skillstate.markers import hookspec

if TYPE_CHECKING:
    from pathlib import Path

    from skillstate.records import (
        Budget,
        CommandSpec,
        DoctorFinding,
        EnvironmentSpec,
        JournalEntry,
        Problem,
        RunRecord,
        SkillDefinition,
        StoreSpec,
    )
    from skillstate.store import Store

__all__ = [
    "skillstate_addhooks",
    "skillstate_after_commit",
    "skillstate_budget",
    "skillstate_doctor",
    "skillstate_guards",
    "skillstate_merge",
    "skillstate_register_commands",
    "skillstate_register_environments",
    "skillstate_register_skills",
    "skillstate_register_stores",
    "skillstate_skill_store",
    "skillstate_validate",
]


@hookspec(historic=True)
def skillstate_addhooks(pluginmanager: Any) -> None:
    """Add hook specs of a plugin's own: the plugin becomes a host for plugins of its own.

    **When:** once for each plugin that implements it, as soon as it is registered
    (``historic``: a plugin registered later is called then too).

    **Semantics:** collected. Call ``pluginmanager.add_hookspecs(module_or_class)``
    with your specs, exactly as pytest plugins do in ``pytest_addhooks`` (xdist adds
    its hooks this way). Implementations of those hooks in other plugins are checked
    against the new specs when they are added. A plugin implementing a hook that may
    be missing (its host plugin is blocked or not installed) marks it
    ``@hookimpl(optionalhook=True)``; without that flag, an implementation no spec
    claims is a load error naming the plugin and the nearest hook.

    **Order:** registration order (historic hooks replay for late registrations).

    **Isolation:** the plugin fails to load. An implementation that raises (pluggy
    calls it as the plugin is registered) leaves nothing of the plugin registered, and
    the load error names it: one warning, or an error under
    ``SKILLSTATE_STRICT_PLUGINS``.

    **Arguments:** ``pluginmanager`` — the :class:`pluggy.PluginManager`.

    **Returns:** nothing.

    A registry hook of your own (``skillstate_register_<things>(register)``) gets its
    registry, by the core's rules (conflicts named, a failing plugin's records dropped),
    from :meth:`Host.registry <skillstate.host.Host.registry>`.

    **Example**::

        from . import hookspecs

        @hookimpl
        def skillstate_addhooks(pluginmanager):
            pluginmanager.add_hookspecs(hookspecs)   # the bench's skillstate_register_benchmarks
    """


@hookspec(firstresult=True)
def skillstate_skill_store(config: Any) -> Any:
    """The skill store: where SKILL.md skills (a session's instructions P) are kept.

    **When:** the first time a surface needs stored skills (``skillstate skills``, the
    MCP skill tools, a session started from a stored skill), once per host.

    **Semantics:** first result. The bundled ``skill-store`` plugin answers with the
    directories of the configuration (``skills_path``, ``user_skills_path``). A
    plugin returning a store replaces it (skills from a registry, a database...);
    with no answer (the plugin blocked) surfaces offer no skill store.

    **Order:** pluggy's; the first non-``None`` answer wins.

    **Isolation:** fail closed. An implementation that raises makes the skill store
    unavailable with one error naming its plugin.

    **Arguments:** ``config`` — the :class:`~skillstate.config.Config` in effect.

    **Returns:** an object with the skill store's operations (``docs/skills.md``,
    "The skill store contract": ``list()``, ``view(name)``, ``read(name, path)``,
    the writes, and ``session_spec(name)``), or ``None`` to abstain.

    **Example**::

        @hookimpl
        def skillstate_skill_store(config):
            return RegistrySkills(config.get("skills_registry_url"))
    """


@hookspec(firstresult=True)
def skillstate_merge(state: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any] | None:
    """Merge a patch into a state, giving the candidate state.

    **When:** in every transition, after the patch passed the pre-checks (it is a
    JSON object, touches no immutable key, does not leave a terminal phase without
    ``force``); and when ``skillstate verify`` replays a journal.

    **Semantics:** first result. The essential ``merge`` plugin implements RFC 7396
    (:func:`skillstate.plugin.merge_patch`) with ``trylast=True``, so any plugin
    returning a non-``None`` value replaces it; return ``None`` to defer to the next one.

    **Order:** pluggy's; the first non-``None`` answer wins, the essential default last.

    **Isolation:** fail closed. An implementation that raises (or returns something
    that is not a ``dict``) rejects the transition with a problem naming its plugin.

    **Arguments:** ``state`` — the current state Σ; ``patch`` — the sparse patch ΔΣ.
    Neither may be mutated.

    **Returns:** a new ``dict``, or ``None`` to abstain.

    **Example**::

        @hookimpl
        def skillstate_merge(state, patch):
            if "append" in patch:          # a custom operator for one key
                return {**state, "log": [*state.get("log", []), patch["append"]]}
            return None                     # everything else: RFC 7396
    """


@hookspec
def skillstate_register_skills(register: Callable[[SkillDefinition], None]) -> None:
    """Register skill definitions: name, phases, terminal phases, schema, immutable keys, budget.

    **When:** once per process, the first time a skill is looked up.

    **Semantics:** collected; call ``register`` once per skill. Registering a name
    another plugin already registered raises
    :class:`~skillstate.errors.PluginConflictError` naming both plugins.

    **Order:** pluggy's; a registry keeps registration order.

    **Isolation:** fail open. An implementation that raises (or registers something
    that is not a ``SkillDefinition``) is reported in one warning naming its plugin,
    and none of that plugin's skills are registered; the other plugins' are. Under
    ``SKILLSTATE_STRICT_PLUGINS=1`` it is an error instead.

    **Arguments:** ``register`` — takes one :class:`~skillstate.records.SkillDefinition`.

    **Returns:** nothing.

    **Example**::

        @hookimpl
        def skillstate_register_skills(register):
            register(SkillDefinition(
                name="deploy",
                fields={"phase": FieldSpec("string"), "approved_by": FieldSpec("string")},
                phases=("draft", "approved", "deployed"),
                terminal_phases=("deployed",),
            ))
    """


@hookspec
def skillstate_validate(
    skill: SkillDefinition,
    state: Mapping[str, Any],
    schema: Mapping[str, Any] | None,
    budget: Budget,
) -> list[Problem] | None:
    """Check the shape of a candidate state: unknown keys, types, enums, phase.

    **When:** in every transition and creation, on the merged candidate state,
    before budgets and guards.

    **Semantics:** collected; the problems of all plugins are concatenated. The
    essential ``schema`` plugin (fields, JSON Schema, phase) is ``trylast`` and cannot be
    blocked, so a validator adds checks; it does not remove them. Any problem rejects
    the transition and skips the guards.

    **Order:** pluggy's; problems are reported in call order, the essential ones last.

    **Isolation:** fail closed. An implementation that raises (or returns something
    other than ``Problem`` records) adds a problem naming its plugin, which rejects the
    transition; the other validators still run.

    **Arguments:** ``skill`` — the run's :class:`~skillstate.records.SkillDefinition`;
    ``state`` — the candidate state; ``schema`` — the run's own JSON Schema (a session
    may carry one), or ``None``; ``budget`` — the skill's effective
    :class:`~skillstate.records.Budget` (the field walk checks string and array limits
    as it goes, so problems come out in state order).

    **Returns:** a list of :class:`~skillstate.records.Problem` (empty or ``None`` when
    the state is fine).

    **Example**::

        @hookimpl
        def skillstate_validate(skill, state, schema, budget):
            if skill.name == "deploy" and "owner" not in state:
                return [Problem("schema", "owner: required", "owner", "deploy-rules")]
            return None
    """


@hookspec(firstresult=True)
def skillstate_budget(skill: SkillDefinition) -> Budget | None:
    """The size budget a skill's state must stay within.

    **When:** in every transition and creation, once, before validation (validators get
    the budget; the size check uses the same answer).

    **Semantics:** first result. The essential ``budgets`` plugin (``trylast``) returns
    the skill's own ``budget``; when every plugin returns ``None`` the configured
    ``budget`` (or the defaults: 500 characters per string, 50 items per array, 8,192
    bytes of compact JSON) applies. The answer is kept per skill definition until the
    plugins change (a plugin registered, unregistered or blocked, a hook-call monitor
    added or removed), so it is asked once, not at every transition.

    **Order:** pluggy's; the first non-``None`` answer wins, the essential default last.

    **Isolation:** fail closed. An implementation that raises (or returns something
    that is not a ``Budget``) rejects the transition with a problem naming its plugin.

    **Arguments:** ``skill`` — the run's skill definition.

    **Returns:** a :class:`~skillstate.records.Budget`, or ``None`` to abstain.

    **Example**::

        @hookimpl
        def skillstate_budget(skill):
            if skill.name == "research":
                return Budget(string_chars=2000, array_items=100, document_bytes=32768)
            return None
    """


@hookspec
def skillstate_guards(
    skill: SkillDefinition, before: Mapping[str, Any] | None, after: Mapping[str, Any]
) -> Iterable[Problem] | None:
    """Check workflow invariants on the whole candidate state.

    **When:** in every transition and creation, only when validation and budgets
    found no problem (guards may assume the state is well-shaped).

    **Semantics:** collected. Every problem returned rejects the transition. A guard
    may be a generator (``yield Problem(...)``): it is run to the end inside its own
    call.

    **Order:** pluggy's; problems are reported in call order, so installed plugins'
    problems come in (distribution, entry-point name) order.

    **Isolation:** fail closed. A guard that raises (or yields something that is not
    a ``Problem``) adds a problem naming its plugin and the error, which rejects the
    transition; the other guards still run and report their problems.

    **Arguments:** ``skill`` — the skill definition; ``before`` — the current state
    (``None`` at creation); ``after`` — the candidate state.

    **Returns:** an iterable of :class:`~skillstate.records.Problem` (code ``guard``),
    or ``None``.

    **Example**::

        @hookimpl
        def skillstate_guards(skill, before, after):
            if skill.name == "deploy" and after.get("phase") == "deployed" and not after.get("approved_by"):
                yield Problem("guard", "phase 'deployed' requires approved_by", "approved_by", "deploy-guards")
    """


@hookspec
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    """Register storage backends, keyed by URL scheme (``file``, ``memory``, ``sqlite``...).

    **When:** once per process, the first time a store is opened.

    **Semantics:** collected; call ``register`` once per scheme. Two plugins
    registering one scheme raise :class:`~skillstate.errors.PluginConflictError`
    naming both and how to block one.

    **Order:** pluggy's; a registry keeps registration order.

    **Isolation:** fail open, as for ``skillstate_register_skills``: a failing plugin's
    schemes are not registered, and a warning names it.

    **Arguments:** ``register`` — takes one :class:`~skillstate.records.StoreSpec`
    whose ``factory(url)`` returns a :class:`~skillstate.store.Store`.

    **Returns:** nothing.

    **Example**::

        @hookimpl
        def skillstate_register_stores(register):
            register(StoreSpec(scheme="dbm", factory=DbmStore, description="stdlib dbm files"))
    """


@hookspec
def skillstate_register_commands(register: Callable[[CommandSpec], None], host: Any) -> None:
    """Register ``skillstate`` sub-commands (``skillstate NAME ...``).

    **When:** once per ``skillstate`` invocation that loads plugins, before its command
    line is parsed (and for ``skillstate --help``).

    **Semantics:** collected; call ``register`` once per command with a
    :class:`~skillstate.records.CommandSpec`. A name that another plugin, or
    skillstate itself (``init``, ``patch``, ``plugins``...), already registered raises
    :class:`~skillstate.errors.PluginConflictError` naming both, and ``skillstate``
    refuses to run until one is blocked. A blocked plugin's commands do not exist.
    ``configure`` and ``run`` are called only when the command is used: import
    heavy modules inside them.

    **Order:** pluggy's; ``skillstate --help`` lists plugin commands after the core's,
    in registration order.

    **Isolation:** fail open, as for ``skillstate_register_skills``: a failing plugin's
    commands are not registered, and a warning names it. A command whose ``run``
    raises a :class:`~skillstate.errors.SkillstateError` exits 2 with its message.

    **Arguments:** ``register`` — takes one :class:`~skillstate.records.CommandSpec`;
    ``host`` — the :class:`~skillstate.host.Host` whose command line this is: a command
    whose arguments come from a registry (``skillstate bench``'s benchmarks) closes
    over it in its ``configure``.

    **Returns:** nothing.

    **Example**::

        @hookimpl
        def skillstate_register_commands(register):
            register(CommandSpec.from_module(
                "report", "summarise the runs of my skill", f"{__package__}.report_cmd"))
    """


@hookspec
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    """Register environments (where session actions run), keyed by name.

    **When:** once per process, the first time an environment is looked up.

    **Semantics:** collected; call ``register`` once per environment. Duplicate names
    raise :class:`~skillstate.errors.PluginConflictError` naming both plugins.

    **Order:** pluggy's; a registry keeps registration order.

    **Isolation:** fail open, as for ``skillstate_register_skills``: a failing plugin's
    environments are not registered, and a warning names it. An environment whose
    ``execute`` raises fails closed: the action is rejected and the step rolls back.

    **Arguments:** ``register`` — takes one :class:`~skillstate.records.EnvironmentSpec`
    whose ``factory(options, snapshot)`` returns a fresh
    :class:`~skillstate.environment.Environment` (restored from ``snapshot`` when it is
    not ``None``).

    **Returns:** nothing.

    **Example**::

        @hookimpl
        def skillstate_register_environments(register):
            register(EnvironmentSpec(name="tickets", factory=TicketQueue.create))
    """


@hookspec
def skillstate_doctor(root: Path, store: Store | None) -> Iterable[DoctorFinding] | None:
    """Contribute checks to ``skillstate doctor``.

    **When:** when a user runs ``skillstate doctor`` (or ``rig-state doctor``).

    **Semantics:** collected. Doctor checks are read-only; a finding may carry an
    ``autofix`` (a callable) that ``doctor --fix`` runs.

    **Order:** pluggy's; findings are printed in call order.

    **Isolation:** fail open. A check that raises (or yields something that is not a
    ``DoctorFinding``) becomes one ``error`` finding naming its plugin; the other checks
    still run.

    **Arguments:** ``root`` — the project directory; ``store`` — the configured store
    (``None`` if it could not be opened).

    **Returns:** an iterable of :class:`~skillstate.records.DoctorFinding`, or ``None``.

    **Example**::

        @hookimpl
        def skillstate_doctor(root, store):
            if not (root / ".gitignore").exists():
                yield DoctorFinding("gitignore", "nit", "no .gitignore", fix="create one")
    """


@hookspec
def skillstate_after_commit(record: RunRecord, entry: JournalEntry) -> None:
    """Observe a committed write (metrics, notifications, mirrors).

    **When:** after every successful ``create`` or ``commit``, in the process that
    made it, once the store has made the write durable. When no plugin implements
    it and no hook-call monitor is in place, the call (which would do nothing and
    show nowhere) is not made.

    **Semantics:** collected. An observer cannot change or undo the write.

    **Order:** pluggy's.

    **Isolation:** fail open. An observer that raises is reported in one warning
    naming its plugin (``ObserverWarning``); the write stands and the other observers
    still run.

    **Arguments:** ``record`` — the new record; ``entry`` — the journal entry written
    with it.

    **Returns:** nothing.

    **Example**::

        @hookimpl
        def skillstate_after_commit(record, entry):
            print(f"{record.id} is now at version {record.version}")
    """
