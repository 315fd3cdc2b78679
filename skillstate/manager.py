"""Building a plugin manager: discovery, block and allow lists, and the plugin table.

There is no import-time global: :func:`make_plugin_manager` builds a fresh manager
(:class:`~skillstate.plugin_manager.SkillstatePluginManager`) each time. The
essential plugins (merge, schema, budgets) are the core's and are always registered;
every other plugin, bundled or not, is an entry point of the ``skillstate`` group
found by :func:`importlib.metadata.entry_points` (so any installed form is found: a
wheel's ``*.dist-info``, an editable install, an unversioned ``*.egg-info``), loaded
the same way.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from skillstate.errors import PluginError
from skillstate.isolation import HookFailure
from skillstate.markers import PROJECT
from skillstate.plugin_cache import Entry, entry_points
from skillstate.plugin_manager import HOOK_PREFIX, SkillstatePluginManager, unknown_hooks

if TYPE_CHECKING:
    from skillstate.plugin_table import PluginInfo

__all__ = [
    "HOOK_PREFIX",
    "HookFailure",
    "PluginInfo",
    "PluginLoadWarning",
    "SkillstatePluginManager",
    "make_plugin_manager",
    "normalize_name",
    "parse_name_list",
]


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


Row = tuple[str, str | None, str | None, str, tuple[str, ...], str | None, str | None]
"""A plugin table row as kept while loading: :class:`PluginInfo`'s fields, in order."""


def normalize_name(name: str) -> str:
    """PEP 503 normalisation: lowercase, runs of ``-_.`` become ``-``."""
    return re.sub(r"[-_.]+", "-", name).lower().strip()


def parse_name_list(value: str | None) -> tuple[str, ...] | None:
    """``"a, b"`` → ``("a", "b")``; ``""`` → ``()``; ``None`` → ``None``."""
    if value is None:
        return None
    return tuple(part.strip() for part in value.split(",") if part.strip())


class EntryRef(NamedTuple):
    """An entry point as found (or remembered): loaded as ``EntryPoint.load`` would."""

    name: str
    value: str

    def load(self) -> Any:
        """Import ``module`` of ``module:attr.path [extras]`` and return the attribute."""
        import importlib

        match = re.fullmatch(r"\s*([\w.]+)\s*(?::\s*([\w.]+)\s*)?(\[.*\]\s*)?", self.value)
        if match is None:
            raise ValueError(f"entry point value {self.value!r} is not 'module:attribute'")
        obj = importlib.import_module(match.group(1))
        for part in filter(None, (match.group(2) or "").split(".")):
            obj = getattr(obj, part)
        return obj


class Found(NamedTuple):
    """An installed entry point with its distribution's name and version."""

    ep: EntryRef
    dist: str | None
    version: str | None

    def keys(self) -> set[str]:
        """The names that select it: its own, and its distribution's."""
        keys = {normalize_name(self.ep.name)}
        if self.dist:
            keys.add(normalize_name(self.dist))
        return keys


def _scan() -> list[Entry]:
    """Every ``skillstate`` entry point by :mod:`importlib.metadata`. A distribution's
    metadata is parsed once (``Distribution.metadata`` reads its file on every access)."""
    from importlib.metadata import entry_points

    metadata: dict[int, tuple[str | None, str | None]] = {}
    found: list[Entry] = []
    for ep in entry_points(group=PROJECT):
        if ep.dist is None:
            found.append((ep.name, ep.value, None, None))
            continue
        if id(ep.dist) not in metadata:
            meta = ep.dist.metadata
            metadata[id(ep.dist)] = (meta["Name"], meta["Version"])
        found.append((ep.name, ep.value, *metadata[id(ep.dist)]))
    return found


def _entry_points() -> list[Found]:
    """Every ``skillstate`` entry point (remembered while nothing installed changed:
    :mod:`skillstate.plugin_cache`), sorted by (distribution, name)."""
    found = [Found(EntryRef(n, v), d, ver) for n, v, d, ver in entry_points(PROJECT, _scan)]
    found.sort(key=lambda f: (normalize_name(f.dist or ""), f.ep.name))
    return found


def _check_names(
    blocked: set[str], allowed: set[str] | None, eps: list[Found], strict: bool
) -> None:
    """Refuse blocking an essential plugin; report names that select nothing (typos)."""
    from skillstate.essentials import ESSENTIAL

    essential = sorted(blocked & set(ESSENTIAL))
    if essential:
        raise PluginError(  # the block list names it: the caller's mistake
            f"plugin '{essential[0]}' cannot be disabled: merge, schema and budgets are the "
            "core's own checks (essential plugins); to change what one does, register a "
            "plugin that replaces it (docs/plugins.md, 'Replacing a default')",
            kind="usage",
        )
    known: set[str] = set(ESSENTIAL)
    for found in eps:
        known |= found.keys()
    for names, what in ((blocked, "disable_plugins"), (allowed or set(), "load_plugins")):
        unknown = sorted(names - known)
        if not unknown:
            continue
        available = ", ".join(sorted({normalize_name(f.ep.name) for f in eps})) or "(none)"
        message = (
            f"{what} names no installed plugin: {', '.join(repr(n) for n in unknown)} "
            f"(misspelled? installed: {available})"
        )
        if strict:
            # a name the caller wrote, like an essential one
            raise PluginError(message + " (SKILLSTATE_STRICT_PLUGINS is set)", kind="usage")
        warnings.warn(message, PluginLoadWarning, stacklevel=3)


def make_plugin_manager(
    load_entrypoints: bool = True,
    disable: Iterable[str] = (),
    allow: Iterable[str] | None = None,
    strict: bool | None = None,
    trace: bool | None = None,
) -> SkillstatePluginManager:
    """A fresh plugin manager with the hook specs and essentials, and by default every plugin.

    - ``disable``: entry-point or distribution names never imported (status ``blocked``).
      Naming an essential plugin raises :class:`PluginError`; a name that selects no
      installed plugin is reported (a warning, an error when strict).
    - ``allow``: when not ``None``, only plugins named here are loaded; the others are
      not imported and not listed (``()`` loads none). Essentials always load.
    - ``strict``: a plugin that fails to load raises :class:`PluginError` instead of
      being reported with status ``error``; default from ``SKILLSTATE_STRICT_PLUGINS``.
    - ``trace``: print every hook call to stderr; default from ``SKILLSTATE_TRACE_PLUGINS``.

    Entry points are chosen in (distribution, entry-point name) order and registered in
    the reverse of it, so that pluggy's last-registered-first calls them in that order.
    """
    if strict is None:
        strict = _env_flag("SKILLSTATE_STRICT_PLUGINS")
    if trace is None:
        trace = _env_flag("SKILLSTATE_TRACE_PLUGINS")
    blocked = {normalize_name(n) for n in disable}
    allowed = None if allow is None else {normalize_name(n) for n in allow}
    eps = _entry_points() if load_entrypoints else []
    _check_names(blocked, allowed, eps, strict)
    pm = SkillstatePluginManager()
    if trace:
        import sys

        from skillstate.tracing import enable_tracing

        enable_tracing(pm, sys.stderr.write)
    chosen: list[tuple[Any, str | None, str | None]] = []
    seen: dict[str, str] = {}
    for found in eps:
        ep, dist, version = found
        keys = found.keys()
        if allowed is not None and not keys & allowed:
            continue
        if keys & blocked:
            pm.set_blocked(ep.name)
            pm.rows.append((ep.name, dist, version, "blocked", (), ep.value, None))
            continue
        if ep.name in seen:
            _fail(
                pm,
                strict,
                (ep.name, dist, version, "error", (), ep.value, None),
                f"entry-point name '{ep.name}' is already used by distribution {seen[ep.name]}; "
                f"block one with SKILLSTATE_DISABLE_PLUGINS={normalize_name(dist or ep.name)}",
            )
            continue
        seen[ep.name] = f"{dist} {version}"
        chosen.append((ep, dist, version))
    loaded: list[tuple[Any, Row]] = []
    for ep, dist, version in reversed(chosen):
        done = _load(pm, strict, ep, dist, version)
        if done is not None:
            loaded.append(done)
    # Unknown hooks are checked once all are in: a later plugin may add the spec (addhooks).
    for plugin, row in loaded:
        problem = unknown_hooks(pm, plugin)
        if problem:
            pm.unregister(plugin)
            _fail(pm, strict, (*row[:3], "error", (), row[5], None), problem)
        else:
            pm.rows.append(row)
    essentials = [r for r in pm.rows if r[3] == "essential"]
    others = [r for r in pm.rows if r[3] != "essential"]
    others.sort(key=lambda r: (normalize_name(r[1] or ""), r[0]))
    pm.rows[:] = essentials + others
    pm.check_pending()
    return pm


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def _load(
    pm: SkillstatePluginManager, strict: bool, ep: Any, dist: str | None, version: str | None
) -> tuple[Any, Row] | None:
    """Import and register one entry point: it and its table row (``None``: already reported)."""
    failed: Row = (ep.name, dist, version, "error", (), ep.value, None)
    try:
        plugin = ep.load()
    except Exception as exc:
        _fail(pm, strict, failed, f"{type(exc).__name__}: {exc}", exc)
        return None
    try:
        pm.register(plugin, name=ep.name)
    except Exception as exc:
        _fail(pm, strict, failed, str(exc), exc)
        return None
    return plugin, (ep.name, dist, version, "active", pm.hooks_of(plugin), ep.value, None)


def _fail(
    pm: SkillstatePluginManager,
    strict: bool,
    row: Row,
    error: str,
    cause: BaseException | None = None,
) -> None:
    name, distribution, version = row[:3]
    pm.rows.append((*row[:6], error))
    where = f" from {distribution} {version}" if distribution else ""
    message = f"plugin '{name}'{where} failed to load: {error}"
    if strict:
        raise PluginError(message + " (SKILLSTATE_STRICT_PLUGINS is set)") from cause
    warnings.warn(
        message + f"; skipped (block it with SKILLSTATE_DISABLE_PLUGINS={name})",
        PluginLoadWarning,
        stacklevel=3,
    )


def __getattr__(name: str) -> Any:
    if name == "PluginInfo":  # its record class is built when a table is read
        from skillstate.plugin_table import PluginInfo

        return PluginInfo
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
