"""The typed facade over the plugin manager: one method per hook, plus the registries.

Callers never touch ``pm.hook`` directly; they ask a :class:`Host`. Registries
(skills, stores, environments) are built on first use, and a name registered by two
plugins is a :class:`~skillstate.errors.PluginConflictError` naming both.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

from skillstate.budgets import check_budget
from skillstate.config import Config, load_config
from skillstate.errors import (
    EnvironmentNotFound,
    PluginConflictError,
    PluginError,
    SkillNotFound,
    StoreNotFound,
)
from skillstate.manager import SkillstatePluginManager, make_plugin_manager
from skillstate.records import (
    DEFAULT_BUDGET,
    Budget,
    DoctorFinding,
    EnvironmentSpec,
    JournalEntry,
    Problem,
    RunRecord,
    SkillDefinition,
    StoreSpec,
)
from skillstate.store import Store

__all__ = ["Host", "ObserverWarning", "Registry"]

T = TypeVar("T")


class ObserverWarning(UserWarning):
    """An after-commit observer raised; the write itself stands."""


class Registry(Generic[T]):
    """Records registered by plugins under unique names, in registration order."""

    def __init__(self, kind: str, pm: SkillstatePluginManager) -> None:
        self.kind = kind
        self._pm = pm
        self._items: dict[str, T] = {}
        self._owners: dict[str, str] = {}

    def add(self, key: str, item: T, plugin: str) -> None:
        if key in self._items:
            first, second = self._owners[key], plugin
            raise PluginConflictError(
                f"{self.kind} '{key}' is registered by two plugins: {self._pm.describe(first)} and "
                f"{self._pm.describe(second)}; block one with SKILLSTATE_DISABLE_PLUGINS={second} "
                f"(or {first}), or disable_plugins in skillstate.toml"
            )
        self._items[key] = item
        self._owners[key] = plugin

    def get(self, key: str) -> T | None:
        return self._items.get(key)

    def owner(self, key: str) -> str | None:
        return self._owners.get(key)

    def names(self) -> list[str]:
        return list(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)


class Host:
    """Everything a surface (CLI, MCP, runtime) needs: plugins, registries, hooks, config."""

    def __init__(self, pm: SkillstatePluginManager, config: Config | None = None) -> None:
        self.pm = pm
        self.config = config if config is not None else load_config()
        self._skills: Registry[SkillDefinition] | None = None
        self._stores: Registry[StoreSpec] | None = None
        self._environments: Registry[EnvironmentSpec] | None = None
        self._open_stores: dict[str, Store] = {}
        self._budgets: dict[str, Budget] = {}

    @classmethod
    def from_config(cls, config: Config | None = None) -> Host:
        """A host whose plugins are loaded as ``config`` (default: the project's) says."""
        config = config if config is not None else load_config()
        pm = make_plugin_manager(
            disable=config.disable_plugins,
            allow=config.load_plugins,
            strict=config.strict_plugins,
        )
        return cls(pm, config)

    # -- registries -------------------------------------------------------------
    def _build(
        self, kind: str, hook_name: str, key: Callable[[Any], str], cls: type
    ) -> Registry[Any]:
        registry: Registry[Any] = Registry(kind, self.pm)
        hook = getattr(self.pm.hook, hook_name)
        for impl in reversed(hook.get_hookimpls()):

            def register(item: Any, _plugin: str = impl.plugin_name) -> None:
                if not isinstance(item, cls):
                    raise PluginError(
                        f"plugin '{_plugin}' registered a {type(item).__name__}, expected a {cls.__name__}"
                    )
                registry.add(key(item), item, _plugin)

            impl.function(register)
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
    def environments(self) -> Registry[EnvironmentSpec]:
        if self._environments is None:
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
            raise SkillNotFound(f"unknown skill '{name}'. Known: {known}")
        return found

    def environment(self, name: str) -> EnvironmentSpec:
        found = self.environments.get(name) if isinstance(name, str) else None
        if found is None:
            known = ", ".join(self.environments.names()) or "(none)"
            raise EnvironmentNotFound(
                f"unknown environment '{name}'. Available: {known} (is its plugin installed, or blocked?)"
            )
        return found

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
                f"no store for URL '{url}': scheme '{scheme}' is not provided by any plugin. "
                f"Available: {known} (is the plugin installed, or blocked?)"
            )
        store = spec.factory(url)
        self._open_stores[url] = store
        return store

    def close(self) -> None:
        for store in self._open_stores.values():
            store.close()
        self._open_stores.clear()

    # -- pipeline hooks --------------------------------------------------------
    def merge(self, state: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
        result = self.pm.hook.skillstate_merge(state=state, patch=patch)
        if result is None:
            raise PluginError("no plugin merges patches: is the 'merge' plugin blocked?")
        if not isinstance(result, dict):
            raise PluginError(f"the merge hook returned a {type(result).__name__}, expected a dict")
        return result

    def validate(
        self,
        skill: SkillDefinition,
        state: Mapping[str, Any],
        schema: Mapping[str, Any] | None = None,
    ) -> list[Problem]:
        problems: list[Problem] = []
        budget = self.budget(skill)
        for result in self.pm.hook.skillstate_validate(
            skill=skill, state=state, schema=schema, budget=budget
        ):
            if result:
                problems.extend(result)
        return problems

    def budget(self, skill: SkillDefinition) -> Budget:
        registered = self.skills.get(skill.name) is skill
        cached = self._budgets.get(skill.name) if registered else None
        if cached is not None:
            return cached
        found = self.pm.hook.skillstate_budget(skill=skill)
        budget = found if isinstance(found, Budget) else (self.config.budget or DEFAULT_BUDGET)
        if registered:
            self._budgets[skill.name] = budget
        return budget

    def check_budget(self, skill: SkillDefinition, state: Mapping[str, Any]) -> list[Problem]:
        """Document size and NUL always; per-value limits when the skill has no field schema."""
        return check_budget(state, self.budget(skill), per_value=skill.fields is None)

    def guards(
        self, skill: SkillDefinition, before: Mapping[str, Any] | None, after: Mapping[str, Any]
    ) -> list[Problem]:
        """Guard problems in declaration order; a guard that raises fails closed."""
        problems: list[Problem] = []
        for impl in reversed(self.pm.hook.skillstate_guards.get_hookimpls()):
            try:
                result = impl.function(skill=skill, before=before, after=after)
                if result:
                    problems.extend(_checked(result, Problem, impl.plugin_name))
            except Exception as exc:
                problems.append(
                    Problem(
                        "guard",
                        f"guard plugin '{impl.plugin_name}' failed ({type(exc).__name__}: {exc}); "
                        "the patch is rejected (guards fail closed)",
                        "",
                        impl.plugin_name,
                    )
                )
        return problems

    def after_commit(self, record: RunRecord, entry: JournalEntry) -> None:
        for impl in self.pm.hook.skillstate_after_commit.get_hookimpls():
            try:
                impl.function(record=record, entry=entry)
            except Exception as exc:
                warnings.warn(
                    f"after-commit observer '{impl.plugin_name}' failed: {type(exc).__name__}: {exc}",
                    ObserverWarning,
                    stacklevel=2,
                )

    def doctor(self, root: Path, store: Store | None) -> list[DoctorFinding]:
        findings: list[DoctorFinding] = []
        for impl in reversed(self.pm.hook.skillstate_doctor.get_hookimpls()):
            try:
                result = impl.function(root=root, store=store)
                if result:
                    findings.extend(_checked(result, DoctorFinding, impl.plugin_name))
            except Exception as exc:
                findings.append(
                    DoctorFinding(
                        "plugin",
                        "error",
                        f"doctor check of plugin '{impl.plugin_name}' failed: {type(exc).__name__}: {exc}",
                        source=impl.plugin_name,
                    )
                )
        return findings


def _checked(items: Any, cls: type[T], plugin: str) -> list[T]:
    """``items`` as a list, each checked to be a ``cls`` (naming the plugin otherwise)."""
    out: list[T] = []
    for item in items:
        if not isinstance(item, cls):
            raise PluginError(
                f"plugin '{plugin}' returned a {type(item).__name__}, expected a {cls.__name__}"
            )
        out.append(item)
    return out
