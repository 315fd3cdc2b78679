"""A pluggy manager that counts the changes to what its hook calls do.

The host keeps a few answers between hook calls (a skill's budget, whether anyone
observes commits: :mod:`skillstate.host`). Each is kept for one **generation**: the
number grows whenever a plugin is registered or unregistered (``set_blocked``
included), hook specs are added, or a hook-call monitor is added or removed, so
what a plugin registered mid-run answers is asked for at the next call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

__all__ = ["CountingPluginManager"]


class CountingPluginManager(pluggy.PluginManager):
    """pluggy's manager, with :attr:`generation` and :attr:`monitors` counted.

    ``generation`` — see the module doc. ``monitors`` — the hook-call monitors added
    and not undone (``add_hookcall_monitoring``, which pluggy's ``enable_tracing`` and
    ``SKILLSTATE_TRACE_PLUGINS`` use); whether one is in effect is :attr:`monitored`.
    """

    generation: int = 0
    monitors: int = 0

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._unmonitored = self._inner_hookexec
        """pluggy's hook executor with no monitor: what every monitor's undo comes back to."""

    # Each change starts a generation before and after: what was kept while it was under
    # way (a historic hook's new implementation runs inside ``register``, another thread
    # may ask meanwhile) belongs to a generation that ends with it.

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        """Register ``plugin`` as pluggy does (and start a new :attr:`generation`)."""
        self.generation += 1
        try:
            return super().register(plugin, name)
        finally:
            self.generation += 1  # also when it fails: pluggy may have added some of it

    def unregister(self, plugin: Any | None = None, name: str | None = None) -> Any | None:
        """Unregister a plugin as pluggy does (and start a new :attr:`generation`)."""
        self.generation += 1
        try:
            return super().unregister(plugin, name)
        finally:
            self.generation += 1

    def add_hookspecs(self, module_or_class: Any) -> None:
        """Add hook specs as pluggy does (and start a new :attr:`generation`)."""
        self.generation += 1
        try:
            super().add_hookspecs(module_or_class)
        finally:
            self.generation += 1

    @property
    def monitored(self) -> bool:
        """Whether a hook-call monitor is in place (pluggy's executor is not its plain one).

        Not ``monitors > 0``: pluggy's undo puts back the executor its monitor found, so
        undoing an earlier monitor before a later one drops both, and the later one's
        undo then brings the earlier back, which pluggy then calls at every hook call.
        """
        return self._inner_hookexec is not self._unmonitored

    def add_hookcall_monitoring(self, before: Any, after: Any) -> Callable[[], None]:
        """pluggy's hook-call monitoring, counted in :attr:`monitors` (its undo too).

        Each call of ``before`` or ``after`` counts as plugin code running
        (:data:`~skillstate.isolation.PLUGIN_RUNS`): a monitor is handed the states.
        """
        from skillstate.isolation import PLUGIN_RUNS

        def counted_before(*args: Any) -> Any:
            PLUGIN_RUNS[0] += 1
            return before(*args)

        def counted_after(*args: Any) -> Any:
            PLUGIN_RUNS[0] += 1
            return after(*args)

        undo = super().add_hookcall_monitoring(counted_before, counted_after)
        self.monitors += 1
        self.generation += 1
        done = False

        def counted_undo() -> None:
            nonlocal done
            undo()
            if not done:
                done = True
                self.monitors -= 1
                self.generation += 1

        return counted_undo
