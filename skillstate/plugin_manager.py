"""skillstate's plugin manager: pluggy's, with each plugin's hook functions guarded.

pluggy calls a hook's implementations one after another and stops at the first that
raises. skillstate keeps going (:mod:`skillstate.isolation`): each implementation's
function is wrapped in a guard that turns its failure into a
:class:`~skillstate.isolation.HookFailure` value. The guard is put in place **before
pluggy sees the plugin**: :meth:`SkillstatePluginManager.register` reads the
plugin's hook implementations with pluggy's own :meth:`parse_hookimpl_opts`, and
registers a :class:`StandIn` holding the guarded functions under the same attribute
names, with the same options (``specname``, ``optionalhook``, ``tryfirst``,
``trylast``, ``wrapper``). pluggy then validates, orders and calls them exactly as it
would the plugin's own; nothing writes to pluggy's ``HookImpl``.

The manager answers for the plugin, not its stand-in: ``register`` takes and
``get_plugin``, ``get_plugins``, ``list_name_plugin``, ``unregister``,
``is_registered``, ``get_name``, ``get_hookcallers`` and ``subset_hook_caller`` take
or give the object that was registered. A :class:`pluggy.HookImpl`'s ``plugin`` is the
stand-in, whose :attr:`StandIn.plugin` is the plugin (its other attributes read
through to it).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pluggy

from skillstate.errors import PluginError
from skillstate.isolation import guard_impl
from skillstate.markers import PROJECT

__all__ = ["HOOK_PREFIX", "SkillstatePluginManager", "StandIn", "unknown_hooks"]

HOOK_PREFIX = "skillstate_"
UNGUARDED = frozenset({"skillstate_addhooks"})
"""Hooks called without a guard: a failing ``skillstate_addhooks`` fails the plugin's
registration (its specs are missing, so nothing of it could run as written)."""


class StandIn:
    """What pluggy registers for a plugin: its hook functions, guarded, and their options."""

    def __init__(self, plugin: Any, name: str, opts: dict[str, dict[str, Any]]) -> None:
        self.skillstate_plugin = plugin
        self.skillstate_opts = opts
        for attr, options in opts.items():
            function = getattr(plugin, attr)
            hook = options.get("specname") or attr
            if hook not in UNGUARDED:
                function = guard_impl(name, hook, function, bool(options.get("wrapper")))
            vars(self)[attr] = function

    @property
    def plugin(self) -> Any:
        """The plugin this stands in for."""
        return self.skillstate_plugin

    def __getattr__(self, name: str) -> Any:  # only for names the stand-in lacks
        return getattr(self.skillstate_plugin, name)

    def __dir__(self) -> Iterable[str]:
        return list(self.skillstate_opts)

    def __repr__(self) -> str:
        return f"<stand-in for {self.skillstate_plugin!r}>"


class SkillstatePluginManager(pluggy.PluginManager):
    """A pluggy manager for the ``skillstate`` project; every plugin's hooks guarded.

    Built with the core's hook specs (:mod:`skillstate.hookspecs`), the historic
    ``skillstate_addhooks`` call (a plugin adds specs of its own, as
    ``pytest_addhooks``), and the essential plugins registered. A plugin with an
    old-style ``hookwrapper=True`` implementation is refused with a
    :class:`~skillstate.errors.PluginError` naming it.
    """

    def __init__(self) -> None:
        super().__init__(PROJECT)
        from skillstate import hookspecs
        from skillstate._version import __version__
        from skillstate.essentials import ESSENTIAL

        self.standins: dict[int, StandIn] = {}
        """id(plugin) → its stand-in, for every plugin registered."""
        self.rows: list[tuple[Any, ...]] = []
        """The plugin table as loaded: :class:`~skillstate.plugin_table.PluginInfo`'s fields."""
        self.add_hookspecs(hookspecs)
        self.hook.skillstate_addhooks.call_historic(kwargs={"pluginmanager": self})
        for name, cls in ESSENTIAL.items():
            plugin = cls()
            self.register(plugin, name=name)
            module = f"skillstate.essentials:{cls.__name__}"
            row = (name, "skillstate", __version__, "essential", self.hooks_of(plugin), module)
            self.rows.append((*row, None))

    # -- the plugin, not its stand-in ------------------------------------------------
    def _standin(self, plugin: Any) -> Any:
        found = self.standins.get(id(plugin))
        return found if found is not None and found.plugin is plugin else plugin

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        """Register ``plugin`` as pluggy does, its hook functions guarded (module doc).

        A ``skillstate_addhooks`` that raises unregisters the plugin again: a
        :class:`PluginError` naming it."""
        if plugin is None:
            return None
        name = name or self.get_canonical_name(plugin)
        if self.is_registered(plugin):
            raise ValueError(f"Plugin already registered under a different name: {name}={plugin}")
        opts: dict[str, dict[str, Any]] = {}
        for attr in dir(plugin):
            found = self.parse_hookimpl_opts(plugin, attr)
            if found is None:
                continue
            if found.get("hookwrapper"):
                raise PluginError(
                    f"plugin '{name}': {attr} is an old-style hookwrapper (hookwrapper=True); "
                    "skillstate hooks take new-style wrappers only: @hookimpl(wrapper=True)"
                )
            opts[attr] = dict(found)
        standin = StandIn(plugin, name, opts)
        try:
            registered = super().register(standin, name)
        except Exception as exc:
            if not super().is_registered(standin):
                raise  # pluggy refused it (validation, a taken name): nothing registered
            super().unregister(standin)
            raise PluginError(
                f"plugin '{name}' failed in skillstate_addhooks: {type(exc).__name__}: {exc}"
            ) from exc
        if registered is not None:
            self.standins[id(plugin)] = standin
        return registered

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> Any:
        if isinstance(plugin, StandIn):
            return plugin.skillstate_opts.get(name)
        return super().parse_hookimpl_opts(plugin, name)

    def unregister(self, plugin: Any | None = None, name: str | None = None) -> Any | None:
        # pluggy's unregister looks a name up with self.get_plugin, which answers with the
        # plugin: hand it the stand-in itself (also what set_blocked reaches).
        if plugin is None:
            plugin = super().get_plugin(name) if name is not None else None
            if plugin is None:
                return None
        standin = super().unregister(self._standin(plugin), name)
        if isinstance(standin, StandIn):
            self.standins.pop(id(standin.plugin), None)
            return standin.plugin
        return standin

    def is_registered(self, plugin: Any) -> bool:
        return super().is_registered(self._standin(plugin))

    def get_name(self, plugin: Any) -> str | None:
        return super().get_name(self._standin(plugin))

    def get_plugin(self, name: str) -> Any | None:
        found = super().get_plugin(name)
        return found.plugin if isinstance(found, StandIn) else found

    def get_plugins(self) -> set[Any]:
        return {p.plugin if isinstance(p, StandIn) else p for p in super().get_plugins()}

    def list_name_plugin(self) -> list[tuple[str, Any]]:
        return [
            (name, p.plugin if isinstance(p, StandIn) else p)
            for name, p in super().list_name_plugin()
        ]

    def get_hookcallers(self, plugin: Any) -> list[pluggy.HookCaller] | None:
        return super().get_hookcallers(self._standin(plugin))

    def subset_hook_caller(self, name: str, remove_plugins: Iterable[Any]) -> pluggy.HookCaller:
        return super().subset_hook_caller(name, [self._standin(p) for p in remove_plugins])

    # -- skillstate's own bookkeeping -------------------------------------------------
    def hooks_of(self, plugin: Any) -> tuple[str, ...]:
        """The hook names (without prefix) a registered plugin implements, sorted."""
        return tuple(
            sorted(c.name.removeprefix(HOOK_PREFIX) for c in self.get_hookcallers(plugin) or [])
        )

    @property
    def plugin_table(self) -> list[Any]:
        """One :class:`~skillstate.plugin_table.PluginInfo` per plugin, in load order."""
        from skillstate.plugin_table import PluginInfo

        return [PluginInfo(*row) for row in self.rows]

    def info(self, name: str) -> Any | None:
        """The table row for a plugin name, if any."""
        return next((row for row in self.plugin_table if row.name == name), None)

    def describe(self, name: str) -> str:
        """``'name' (distribution version)`` for messages."""
        for row_name, distribution, version, *_ in self.rows:
            if row_name == name and distribution is not None:
                return f"'{name}' ({distribution} {version})"
        return f"'{name}'"

    def register_local(self, plugin: Any, name: str) -> None:
        """Register an in-process plugin (tests, embedding), checked as an installed one is."""
        self.register(plugin, name=name)
        problem = unknown_hooks(self, plugin)
        if problem:
            self.unregister(plugin)
            raise PluginError(f"plugin '{name}': {problem}")
        module = getattr(plugin, "__name__", None)
        self.rows.append((name, None, None, "active", self.hooks_of(plugin), module, None))


def unknown_hooks(pm: SkillstatePluginManager, plugin: Any) -> str | None:
    """Why ``plugin``'s hooks do not load, or ``None``: an implementation (not
    ``optionalhook=True``) of a hook no spec declares, named with the nearest spec."""
    bad = []
    standin = pm.standins.get(id(plugin))
    for caller in pm.get_hookcallers(plugin) or []:
        mine = [impl for impl in caller.get_hookimpls() if impl.plugin is standin]
        if caller.spec is None and not all(impl.optionalhook for impl in mine):
            bad.append(caller.name)
    if not bad:
        return None
    import difflib  # only for the message: every start-up checks, few find a bad hook

    known = sorted(name for name in vars(pm.hook) if getattr(pm.hook, name).spec is not None)
    described = []
    for name in sorted(bad):
        near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        described.append(f"{name} (did you mean {near[0]}?)" if near else name)
    return (
        f"implements hook(s) no spec declares: {', '.join(described)}; "
        f"known hooks: {', '.join(known)}"
    )
