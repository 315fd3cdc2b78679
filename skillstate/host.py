"""The typed facade over the plugin manager: one method per hook, plus the registries.

Callers never touch ``pm.hook`` directly; they ask a :class:`Host`. Every hook is
called once, the pluggy way (``pm.hook.<name>(...)``), so argument subsets,
``tryfirst``/``trylast``, wrappers and hook-call monitoring all behave as pluggy
documents. A failing implementation comes back as a
:class:`~skillstate.isolation.HookFailure` (see :mod:`skillstate.isolation`) and is
handled here by the hook's isolation policy: policy hooks fail closed, observers and
registries fail open with one warning naming the plugin.

Registries (skills, stores, environments, commands, and those of a plugin's own registry
hooks, :meth:`Host.registry`) are built on first use; a name registered by two plugins
is a :class:`~skillstate.errors.PluginConflictError` naming both.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from operator import attrgetter
from typing import TYPE_CHECKING, Any, TypeVar

from skillstate.budgets import check_budget
from skillstate.config import Config, load_config
from skillstate.display import excerpt
from skillstate.errors import (
    EnvironmentNotFound,
    PluginConflictError,
    PluginError,
    SkillNotFound,
    SkillstateError,
    StoreError,
    StoreNotFound,
)
from skillstate.isolation import CURRENT_PLUGIN, HookFailure
from skillstate.manager import SkillstatePluginManager, make_plugin_manager
from skillstate.masking import mask_secrets, mask_url, url_secrets
from skillstate.records import (
    DEFAULT_BUDGET,
    Budget,
    JournalEntry,
    Problem,
    RunRecord,
    SkillDefinition,
    StoreSpec,
)
from skillstate.registry import CORE, Registry
from skillstate.store import Store

if TYPE_CHECKING:
    from pathlib import Path

    from skillstate.records import CommandSpec, DoctorFinding, EnvironmentSpec

__all__ = ["CORE", "HookFailed", "Host", "ObserverWarning", "PluginWarning", "Registry"]

T = TypeVar("T")


class PluginWarning(UserWarning):
    """A plugin's hook implementation failed where failing open is the rule."""


class ObserverWarning(PluginWarning):
    """An after-commit observer raised; the write itself stands."""


class HookFailed(PluginError):
    """A fail-closed hook (merge, budget) failed: the transition is rejected with ``problem``."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _closed(failure: HookFailure, what: str, code: str) -> Problem:
    """The problem a failing policy hook turns into (fail closed)."""
    return Problem(
        code,
        f"{what} plugin '{failure.plugin}' failed ({failure.reason}); "
        "the patch is rejected (fail closed)",
        "",
        failure.plugin,
    )


class Host:
    """Everything a surface (CLI, MCP, runtime) needs: plugins, registries, hooks, config."""

    def __init__(self, pm: SkillstatePluginManager, config: Config | None = None) -> None:
        self.pm = pm
        self.config = config if config is not None else load_config()
        self._skills: Registry[SkillDefinition] | None = None
        self._stores: Registry[StoreSpec] | None = None
        self._environments: Registry[EnvironmentSpec] | None = None
        self._commands: Registry[CommandSpec] | None = None
        self._registries: dict[str, Registry[Any]] = {}
        """The registries of plugins' own registry hooks (:meth:`registry`), by hook name."""
        self._open_stores: dict[str, Store] = {}
        self._skill_store: Any = None

    @classmethod
    def from_config(cls, config: Config | None = None) -> Host:
        """A host whose plugins are loaded as ``config`` (default: the project's) says."""
        config = config if config is not None else load_config()
        pm = make_plugin_manager(
            disable=config.disable_plugins,
            allow=config.load_plugins,
            strict=config.strict_plugins,
            trace=config.trace_plugins,
        )
        return cls(pm, config)

    # -- registries -------------------------------------------------------------
    def _build(
        self,
        kind: str,
        hook_name: str,
        key: Callable[[Any], str],
        cls: type,
        reserved: Mapping[str, str] | None = None,
        **arguments: Any,
    ) -> Registry[Any]:
        registry: Registry[Any] = Registry(kind, self.pm, reserved)
        staged: list[tuple[str, str, Any]] = []  # (plugin, key, item), in call order

        def register(item: Any) -> None:
            plugin = CURRENT_PLUGIN.get()
            if plugin is None:
                raise PluginError(f"{hook_name}'s register was called outside the hook")
            if not isinstance(item, cls):
                got, want = type(item).__name__, cls.__name__
                if got == want:  # another copy of the class: say which module each is from
                    got, want = f"{type(item).__module__}.{got}", f"{cls.__module__}.{want}"
                raise PluginError(f"registered a {got}, expected a {want}")
            staged.append((plugin, key(item), item))

        failed: dict[str, str] = {}
        for result in getattr(self.pm.hook, hook_name)(register=register, **arguments):
            if isinstance(result, HookFailure):
                failed.setdefault(result.plugin, result.reason)
        # A plugin whose hook failed registers nothing: not even names that would conflict.
        for plugin, name, item in staged:
            if plugin not in failed:
                registry.add(name, item, plugin)
        for plugin, reason in failed.items():
            message = (
                f"plugin '{plugin}' failed in {hook_name} ({reason}); "
                f"none of its {kind}s are registered"
            )
            if self.config.strict_plugins:
                raise PluginError(message + " (SKILLSTATE_STRICT_PLUGINS is set)")
            warnings.warn(message, PluginWarning, stacklevel=3)
        return registry

    @property
    def skills(self) -> Registry[SkillDefinition]:
        if self._skills is None:
            self._skills = self._build(
                "skill", "skillstate_register_skills", lambda s: s.name, SkillDefinition
            )
        return self._skills

    @property
    def stores(self) -> Registry[StoreSpec]:
        if self._stores is None:
            self._stores = self._build(
                "store scheme", "skillstate_register_stores", lambda s: s.scheme, StoreSpec
            )
        return self._stores

    @property
    def commands(self) -> Registry[CommandSpec]:
        """The ``skillstate`` sub-commands plugins register (the core's names are taken)."""
        if self._commands is None:
            from skillstate.records import CommandSpec
            from skillstate.records.commands import CORE_COMMANDS

            self._commands = self._build(
                "command",
                "skillstate_register_commands",
                lambda c: c.name,
                CommandSpec,
                reserved={name: CORE for name, _, _ in CORE_COMMANDS},
                host=self,
            )
        return self._commands

    def registry(
        self,
        hook_name: str,
        cls: type[T],
        *,
        kind: str,
        key: Callable[[T], str] = attrgetter("name"),
        reserved: Iterable[str] = (),
    ) -> Registry[T]:
        """The registry of a registry hook a plugin adds (``skillstate_addhooks``), built once.

        The hook is called once, as the core's registry hooks are, with ``register``:
        records must be ``cls`` instances, keyed by ``key`` (default: their ``name``);
        two plugins registering one key, or a key in ``reserved`` (names that are the
        host's own, such as a command's sub-commands), is a
        :class:`~skillstate.errors.PluginError` naming both; a plugin whose
        implementation failed registers none of its records (a warning names it). The
        registry has ``get(key)``, ``owner(key)`` (the plugin), ``names()``, iteration
        and ``len``, in registration order.
        """
        found = self._registries.get(hook_name)
        if found is None:
            found = self._registries[hook_name] = self._build(
                kind, hook_name, key, cls, reserved=dict.fromkeys(reserved, CORE)
            )
        return found

    @property
    def environments(self) -> Registry[EnvironmentSpec]:
        if self._environments is None:
            from skillstate.records import EnvironmentSpec

            self._environments = self._build(
                "environment", "skillstate_register_environments", lambda e: e.name, EnvironmentSpec
            )
        return self._environments

    def skill(self, name: str) -> SkillDefinition:
        found = self.skills.get(name) if isinstance(name, str) else None
        if found is None:
            known = (
                ", ".join(self.skills.names()) or "(none: is a skill plugin installed, or blocked?)"
            )
            raise SkillNotFound(f"unknown skill '{excerpt(name)}'. Known: {known}")
        return found

    def environment(self, name: str) -> EnvironmentSpec:
        found = self.environments.get(name) if isinstance(name, str) else None
        if found is None:
            known = ", ".join(self.environments.names()) or "(none)"
            raise EnvironmentNotFound(
                f"unknown environment '{excerpt(name)}'. Available: {known} (is its plugin installed, or blocked?)"
            )
        return found

    def default_environment(self) -> str:
        """The environment of a session that names none.

        The configured ``default_environment`` if set; else the one environment a plugin
        registers with ``default=True`` (the bundled ``mock``); else, when exactly one
        environment is registered, that one.
        """
        configured = self.config.default_environment
        if configured is not None:
            return configured
        offered = [spec.name for spec in self.environments if spec.default]
        if len(offered) > 1:
            owners = " and ".join(
                f"{name!r} of {self.pm.describe(self.environments.owner(name) or '?')}"
                for name in offered
            )
            raise PluginConflictError(
                f"two plugins offer a default environment: {owners}; set default_environment "
                "in skillstate.toml (or SKILLSTATE_DEFAULT_ENVIRONMENT) to choose one"
            )
        if offered:
            return offered[0]
        names = self.environments.names()
        if len(names) == 1:
            return names[0]
        raise EnvironmentNotFound(
            "no environment given and none is the default: name one, or set "
            f"default_environment. Available: {', '.join(names) or '(none)'}"
        )

    def open_store(self, url: str | None = None) -> Store:
        """The store for ``url`` (default: the configured one), opened once per host."""
        url = url if url is not None else self.config.store
        cached = self._open_stores.get(url)
        if cached is not None:
            return cached
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        spec = self.stores.get(scheme)
        if spec is None:
            known = ", ".join(f"{s}:" for s in self.stores.names()) or "(none)"
            raise StoreNotFound(
                f"no store for URL '{mask_url(url)}': scheme '{excerpt(scheme, 40)}' is not "
                f"provided by any plugin. Available: {known} (is the plugin installed, or blocked?)"
            )
        from skillstate.durability import using_level  # a store's level when its URL names none

        try:
            with using_level(self.config.durability):
                store = spec.factory(url)
        except SkillstateError:
            raise
        except Exception as exc:  # a store plugin's bug, or its missing library
            raise StoreError(
                f"the '{scheme}:' store could not open {mask_url(url)}: "
                f"{type(exc).__name__}: {excerpt(mask_secrets(str(exc), url_secrets(url)))}"
            ) from exc
        self._open_stores[url] = store
        return store

    def close(self) -> None:
        for store in self._open_stores.values():
            store.close()
        self._open_stores.clear()

    # -- pipeline hooks --------------------------------------------------------
    def merge(self, state: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
        """Σ ⊕ patch by the first merge plugin that answers (RFC 7396 by default).

        Raises :class:`HookFailed` when that plugin failed (fail closed).
        """
        result: dict[str, Any] | HookFailure | None = self.pm.hook.skillstate_merge(
            state=state, patch=patch
        )
        if isinstance(result, HookFailure):
            raise HookFailed(_closed(result, "merge", "merge"))
        if result is None:  # a wrapper turned every answer into None
            raise HookFailed(
                Problem("merge", "no merge plugin answered; the patch is rejected (fail closed)")
            )
        return result

    def validate(
        self,
        skill: SkillDefinition,
        state: Mapping[str, Any],
        schema: Mapping[str, Any] | None = None,
        budget: Budget | None = None,
    ) -> list[Problem]:
        """Shape problems from every validator; a failing one adds a problem naming it.

        ``budget`` is the skill's effective budget when the caller has it already
        (:meth:`budget`; the pipeline asks once per transition).
        """
        budget = self.budget(skill) if budget is None else budget
        results = self.pm.hook.skillstate_validate(
            skill=skill, state=state, schema=schema, budget=budget
        )
        return _problems(results, "validation", "plugin")

    def budget(self, skill: SkillDefinition) -> Budget:
        """The skill's effective budget (first plugin's answer, else config, else defaults)."""
        found = self.pm.hook.skillstate_budget(skill=skill)
        if isinstance(found, HookFailure):
            raise HookFailed(_closed(found, "budget", "budget"))
        return found if isinstance(found, Budget) else (self.config.budget or DEFAULT_BUDGET)

    def check_budget(
        self, skill: SkillDefinition, state: Mapping[str, Any], budget: Budget | None = None
    ) -> list[Problem]:
        """Document size and NUL always; per-value limits when the skill has no field schema."""
        return check_budget(
            state,
            self.budget(skill) if budget is None else budget,
            per_value=skill.fields is None,
            units=skill.text_units,
        )

    def guards(
        self, skill: SkillDefinition, before: Mapping[str, Any] | None, after: Mapping[str, Any]
    ) -> list[Problem]:
        """Guard problems in call order; a guard that fails adds a problem naming it (fail closed)."""
        results = self.pm.hook.skillstate_guards(skill=skill, before=before, after=after)
        return _problems(results, "guard", "guard")

    def check(
        self,
        skill: SkillDefinition,
        before: Mapping[str, Any] | None,
        candidate: Mapping[str, Any],
        schema: Mapping[str, Any] | None = None,
    ) -> list[Problem]:
        """A candidate state's problems, as a transition checks it: validation and the
        budget, then (when both are clean) the guards. A failing budget plugin is one
        problem naming it (fail closed)."""
        try:
            budget = self.budget(skill)  # asked once: validation and the size check share it
            problems = self.validate(skill, candidate, schema, budget)
            problems.extend(self.check_budget(skill, candidate, budget))
        except HookFailed as failed:
            return [failed.problem]
        return problems or self.guards(skill, before, candidate)

    def run_skill(self, record: RunRecord) -> SkillDefinition:
        """The skill a run's writes are checked against (a session naming none: its own,
        :data:`~skillstate.records.skills.ADHOC_SKILL`). Raises ``SkillNotFound``."""
        from skillstate.records.skills import ADHOC_SKILL

        return ADHOC_SKILL if record.meta.get("adhoc_skill") else self.skill(record.skill)

    def refusals(self, record: RunRecord) -> list[Problem]:
        """Why ``record`` may not be written as it is (``import`` asks): its skill unknown,
        its schema no JSON Schema, or its state refused as a creation's would be
        (:meth:`check`). Empty when it may."""
        from skillstate.jsonschemas import json_schema_errors

        try:
            skill = self.run_skill(record)
        except SkillNotFound as exc:
            return [Problem("skill", str(exc))]
        errors = [] if record.schema is None else json_schema_errors(record.schema)
        if errors:
            return [Problem("schema", f"its state schema is not a valid JSON Schema: {errors[0]}")]
        return self.check(skill, None, record.state, record.schema)

    def after_commit(self, record: RunRecord, entry: JournalEntry) -> None:
        """Tell the observers; one that fails is a warning, never undoes the write."""
        for result in self.pm.hook.skillstate_after_commit(record=record, entry=entry):
            if isinstance(result, HookFailure):
                warnings.warn(
                    f"after-commit observer '{result.plugin}' failed: {result.reason}",
                    ObserverWarning,
                    stacklevel=2,
                )

    def skill_store(self) -> Any:
        """The skill store the plugins provide (``skillstate_skill_store``), asked once.

        Raises :class:`~skillstate.errors.PluginError` when no plugin provides one (the
        bundled ``skill-store`` blocked) or the one that answers failed.
        """
        if self._skill_store is None:
            found = self.pm.hook.skillstate_skill_store(config=self.config)
            if isinstance(found, HookFailure):
                raise PluginError(f"skill store plugin '{found.plugin}' failed ({found.reason})")
            if found is None:
                raise PluginError(
                    "no skill store: no plugin provides one (is the 'skill-store' plugin "
                    "blocked or not installed?)"
                )
            self._skill_store = found
        return self._skill_store

    def doctor(self, root: Path, store: Store | None) -> list[DoctorFinding]:
        """Every plugin's findings; a failing check becomes an ``error`` finding naming it."""
        from skillstate.records import DoctorFinding

        findings: list[DoctorFinding] = []
        for result in self.pm.hook.skillstate_doctor(root=root, store=store):
            if isinstance(result, HookFailure):
                findings.append(
                    DoctorFinding(
                        "plugin",
                        "error",
                        f"doctor check of plugin '{result.plugin}' failed: {result.reason}",
                        source=result.plugin,
                    )
                )
            elif result:
                findings.extend(result)
        return findings


def _problems(results: list[Any], what: str, code: str) -> list[Problem]:
    """Flatten a collected policy hook's results; each failure becomes a fail-closed problem.

    Every result was checked where it was made (:mod:`skillstate.isolation`): it is a
    :class:`HookFailure`, ``None`` or a list of ``Problem`` records.
    """
    problems: list[Problem] = []
    for result in results:
        if isinstance(result, HookFailure):
            problems.append(_closed(result, what, code))
        elif result:
            problems.extend(result)
    return problems
