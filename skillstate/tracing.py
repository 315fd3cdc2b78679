"""``SKILLSTATE_TRACE_PLUGINS=1``: every hook call, its implementations and results, on stderr.

Built on pluggy's hook-call monitoring (``PluginManager.add_hookcall_monitoring``), so it
sees exactly the calls pluggy makes. Arguments and results are summarised (a state is
shown as ``{…12 keys}``, a string cut at 60 characters), never printed whole::

    skillstate: trace: skillstate_guards(skill=<SkillDefinition rig-task>, before={…9 keys},
        after={…9 keys}) → my-rules, rig
    skillstate: trace: skillstate_guards ← [[], [<Problem guard: phase 'pr-open' requires…>]]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pluggy

__all__ = ["brief", "enable_tracing"]

_TEXT = 60


def brief(value: Any, depth: int = 0) -> str:
    """A short, one-line picture of ``value`` for a trace line."""
    if isinstance(value, Mapping):
        return f"{{…{len(value)} keys}}"
    if isinstance(value, str):
        shown = value if len(value) <= _TEXT else value[:_TEXT] + "…"
        return repr(shown)
    if isinstance(value, list | tuple):
        if depth > 1 or len(value) > 8:
            return f"[…{len(value)} items]"
        return "[" + ", ".join(brief(v, depth + 1) for v in value) + "]"
    name = (
        getattr(value, "name", None) or getattr(value, "scheme", None) or getattr(value, "id", None)
    )
    if isinstance(name, str):
        return f"<{type(value).__name__} {name}>"
    reason = getattr(value, "reason", None)
    if isinstance(reason, str):  # a HookFailure
        return f"<{type(value).__name__} {getattr(value, 'plugin', '?')}: {brief(reason)[1:-1]}>"
    message = getattr(value, "message", None)
    if isinstance(message, str):
        code = getattr(value, "code", "")
        return f"<{type(value).__name__} {code}: {brief(message)[1:-1]}>"
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if callable(value):
        return f"<{getattr(value, '__name__', type(value).__name__)}>"
    return f"<{type(value).__name__}>"


def enable_tracing(pm: pluggy.PluginManager, write: Callable[[str], Any]) -> Callable[[], None]:
    """Trace every hook call of ``pm`` through ``write``; returns the function that stops it."""

    def before(hook_name: str, impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]) -> None:
        args = ", ".join(f"{k}={brief(v)}" for k, v in kwargs.items())
        order = ", ".join(impl.plugin_name for impl in reversed(impls)) or "(no implementation)"
        write(f"skillstate: trace: {hook_name}({args}) → {order}\n")

    def after(
        outcome: pluggy.Result[Any],
        hook_name: str,
        impls: Sequence[pluggy.HookImpl],
        kwargs: Mapping[str, Any],
    ) -> None:
        error = outcome.exception
        if error is not None:
            write(f"skillstate: trace: {hook_name} raised {type(error).__name__}: {error}\n")
        else:
            write(f"skillstate: trace: {hook_name} ← {brief(outcome.get_result())}\n")

    return pm.add_hookcall_monitoring(before, after)
