"""Building a plugin manager: discovery, block and allow lists, and the plugin table.

There is no import-time global: :func:`make_plugin_manager` builds a fresh manager
each time. Bundled plugins are ordinary entry points of the ``skillstate``
distribution, loaded exactly like third-party ones.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable
from typing import Any

import attrs
import pluggy

from skillstate.errors import PluginError
from skillstate.markers import PROJECT

__all__ = [
    "HOOK_PREFIX",
    "PluginInfo",
    "PluginLoadWarning",
    "SkillstatePluginManager",
    "make_plugin_manager",
    "normalize_name",
    "parse_name_list",
]

HOOK_PREFIX = "skillstate_"


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


@attrs.frozen
class PluginInfo:
    """One row of ``skillstate plugins``.

    ``status`` is ``active``, ``blocked`` (by the block list) or ``error`` (it failed
    to import or declares a hook that does not exist; ``error`` says why).
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


def normalize_name(name: str) -> str:
    """PEP 503 normalisation: lowercase, runs of ``-_.`` become ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def parse_name_list(value: str | None) -> tuple[str, ...] | None:
    """``"a, b"`` → ``("a", "b")``; ``""`` → ``()``; ``None`` → ``None``."""
    if value is None:
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())


class SkillstatePluginManager(pluggy.PluginManager):
    """A pluggy manager that only considers ``skillstate_*`` attributes and keeps a plugin table."""

    def __init__(self) -> None:
        super().__init__(PROJECT)
        from skillstate import hookspecs

        self.add_hookspecs(hookspecs)
        self.plugin_table: list[PluginInfo] = []

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if not name.startswith(HOOK_PREFIX):
            return None
        return super().parse_hookimpl_opts(plugin, name)

    def hooks_of(self, plugin: Any) -> tuple[str, ...]:
        """The hook names (without prefix) a registered plugin implements, sorted."""
        names = []
        for caller in self.get_hookcallers(plugin) or []:
            names.append(caller.name.removeprefix(HOOK_PREFIX))
        return tuple(sorted(names))

    def info(self, name: str) -> PluginInfo | None:
        """The table row for a plugin name, if any."""
        for row in self.plugin_table:
            if row.name == name:
                return row
        return None

    def describe(self, name: str) -> str:
        """``'name' (distribution version)`` for messages."""
        row = self.info(name)
        if row is None or row.distribution is None:
            return f"'{name}'"
        return f"'{name}' ({row.distribution} {row.version})"

    def register_local(self, plugin: Any, name: str) -> None:
        """Register an in-process plugin (tests, embedding) with the same bookkeeping."""
        self.register(plugin, name=name)
        problem = _unknown_hooks(self, plugin)
        if problem:
            self.unregister(plugin)
            raise PluginError(f"plugin '{name}': {problem}")
        self.plugin_table.append(
            PluginInfo(
                name, None, None, "active", self.hooks_of(plugin), getattr(plugin, "__name__", None)
            )
        )


def _unknown_hooks(pm: SkillstatePluginManager, plugin: Any) -> str | None:
    """A message if ``plugin`` implements a ``skillstate_*`` hook that has no spec."""
    known = {
        name
        for name in dir(pm.hook)
        if name.startswith(HOOK_PREFIX) and getattr(pm.hook, name).spec is not None
    }
    bad = []
    for caller in pm.get_hookcallers(plugin) or []:
        if caller.spec is None:
            bad.append(caller.name)
    if not bad:
        return None
    return (
        f"implements unknown hook(s) {', '.join(sorted(bad))} (misspelled?); "
        f"known hooks: {', '.join(sorted(known))}"
    )


def _entry_points() -> list[Any]:
    from skillstate.entrypoints import entry_points

    eps = list(entry_points(group=PROJECT))

    def key(ep: Any) -> tuple[str, str]:
        dist = ep.dist.name if ep.dist is not None else ""
        return (normalize_name(dist), ep.name)

    eps.sort(key=key)
    return eps


def make_plugin_manager(
    load_entrypoints: bool = True,
    disable: Iterable[str] = (),
    allow: Iterable[str] | None = None,
    strict: bool | None = None,
) -> SkillstatePluginManager:
    """A fresh plugin manager with the hook specs added and, by default, every plugin loaded.

    - ``disable``: entry-point or distribution names never imported (status ``blocked``).
    - ``allow``: when not ``None``, only plugins named here are loaded; the others are
      not imported and not listed (``()`` loads none).
    - ``strict``: a plugin that fails to load raises :class:`PluginError` instead of
      being reported with status ``error``; default from ``SKILLSTATE_STRICT_PLUGINS``.
    """
    pm = SkillstatePluginManager()
    if not load_entrypoints:
        return pm
    if strict is None:
        strict = os.environ.get("SKILLSTATE_STRICT_PLUGINS", "") not in ("", "0", "false", "no")
    blocked = {normalize_name(n) for n in disable}
    allowed = None if allow is None else {normalize_name(n) for n in allow}
    seen: dict[str, str] = {}
    for ep in _entry_points():
        dist = ep.dist.name if ep.dist is not None else None
        version = ep.dist.version if ep.dist is not None else None
        keys = {normalize_name(ep.name)}
        if dist:
            keys.add(normalize_name(dist))
        if allowed is not None and not keys & allowed:
            continue
        if keys & blocked:
            pm.set_blocked(ep.name)
            pm.plugin_table.append(PluginInfo(ep.name, dist, version, "blocked", (), ep.value))
            continue
        if ep.name in seen:
            _fail(
                pm,
                strict,
                PluginInfo(ep.name, dist, version, "error", (), ep.value),
                f"entry-point name '{ep.name}' is already used by distribution {seen[ep.name]}; "
                f"block one with SKILLSTATE_DISABLE_PLUGINS={normalize_name(dist or ep.name)}",
            )
            continue
        try:
            plugin = ep.load()
        except Exception as exc:
            _fail(
                pm,
                strict,
                PluginInfo(ep.name, dist, version, "error", (), ep.value),
                f"{type(exc).__name__}: {exc}",
                exc,
            )
            continue
        try:
            pm.register(plugin, name=ep.name)
        except Exception as exc:
            _fail(
                pm, strict, PluginInfo(ep.name, dist, version, "error", (), ep.value), str(exc), exc
            )
            continue
        problem = _unknown_hooks(pm, plugin)
        if problem:
            pm.unregister(plugin)
            _fail(pm, strict, PluginInfo(ep.name, dist, version, "error", (), ep.value), problem)
            continue
        seen[ep.name] = f"{dist} {version}"
        pm.plugin_table.append(
            PluginInfo(ep.name, dist, version, "active", pm.hooks_of(plugin), ep.value)
        )
    pm.check_pending()
    return pm


def _fail(
    pm: SkillstatePluginManager,
    strict: bool,
    row: PluginInfo,
    error: str,
    cause: BaseException | None = None,
) -> None:
    row = attrs.evolve(row, error=error)
    pm.plugin_table.append(row)
    where = f" from {row.distribution} {row.version}" if row.distribution else ""
    message = f"plugin '{row.name}'{where} failed to load: {error}"
    if strict:
        raise PluginError(message + " (SKILLSTATE_STRICT_PLUGINS is set)") from cause
    warnings.warn(
        message + f"; skipped (block it with SKILLSTATE_DISABLE_PLUGINS={row.name})",
        PluginLoadWarning,
        stacklevel=3,
    )
