"""Registries: the records plugins register under unique names (skills, stores, ...).

A name registered by two plugins is a :class:`~skillstate.errors.PluginConflictError`
naming both (and how to block one); there is no silent first-wins. The host
(:mod:`skillstate.host`) builds one per registry hook, on first use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Generic, TypeVar

from skillstate.errors import PluginConflictError

if TYPE_CHECKING:
    from skillstate.manager import SkillstatePluginManager

__all__ = ["CORE", "Registry"]

T = TypeVar("T")

CORE = "skillstate"
"""The owner name of what the core registers itself (its own commands)."""


class Registry(Generic[T]):
    """Records registered by plugins under unique names, in registration order."""

    def __init__(
        self, kind: str, pm: SkillstatePluginManager, reserved: Mapping[str, str] | None = None
    ) -> None:
        self.kind = kind
        self._pm = pm
        self._items: dict[str, T] = {}
        self._owners: dict[str, str] = dict(reserved or {})

    def _describe(self, owner: str) -> str:
        return "skillstate itself" if owner == CORE else self._pm.describe(owner)

    def add(self, key: str, item: T, plugin: str) -> None:
        if key in self._owners:
            first, second = self._owners[key], plugin
            block = second if first == CORE else f"{second} (or {first})"
            raise PluginConflictError(
                f"{self.kind} '{key}' is registered by two plugins: {self._describe(first)} and "
                f"{self._describe(second)}; block one with SKILLSTATE_DISABLE_PLUGINS={block}, "
                "or disable_plugins in skillstate.toml"
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
