"""Isolation: one plugin's failing hook implementation never takes the others down.

Every hook is called the pluggy way, once, through ``pm.hook.<name>(...)``: pluggy
passes each implementation only the arguments it declares, orders them (``tryfirst``,
LIFO, ``trylast``), runs new-style wrappers around them, and reports the call to
hook-call monitoring (``SKILLSTATE_TRACE_PLUGINS``). What pluggy does not do is keep
going when one implementation raises. So before a plugin is registered, the manager
(:mod:`skillstate.plugin_manager`) wraps the function of each of its hook
implementations in a guard made here, and pluggy registers the guarded functions.
A guard:

- runs a registry hook's implementation (``skillstate_register_*``), and every
  wrapper, with :data:`CURRENT_PLUGIN` set to the plugin's name (the registries use
  it to know who registered what);
- turns an exception into a :class:`HookFailure` returned in the implementation's
  place (a value, so a ``firstresult`` hook stops there rather than silently falling
  through to the next implementation);
- runs generator results (``yield Problem(...)`` guards) inside the guard, and checks
  the result's type (:data:`POLICIES`), so that a bad return value is that plugin's
  failure too.

The host decides what a failure means per hook (its **Isolation** line in
``docs/hooks.md``): policy hooks fail closed (the transition is rejected), observers
and registries fail open (a one-line warning names the plugin).
:class:`~skillstate.errors.PluginConflictError` is never swallowed: a name
registered twice is a configuration error, not one plugin's failure.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Generator
from typing import Any, NamedTuple

from skillstate.errors import PluginConflictError, PluginError

__all__ = ["CURRENT_PLUGIN", "POLICIES", "HookFailure", "HookPolicy", "guard_impl"]

CURRENT_PLUGIN: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "skillstate_current_plugin", default=None
)
"""The name of the plugin whose registry hook implementation (``skillstate_register_*``) or
wrapper is running (``None`` outside one)."""


class HookFailure(PluginError):
    """Returned (never raised) in place of a hook implementation's result when it raised
    or returned garbage: a :class:`~skillstate.errors.PluginError` as a value, as
    ``asyncio.gather(..., return_exceptions=True)`` returns exceptions. A wrapper
    recognises one with ``isinstance(result, PluginError)``."""

    def __init__(self, plugin: str, hook: str, error: BaseException | str) -> None:
        self.plugin = plugin
        self.hook = hook
        self.error = error
        super().__init__(f"plugin '{plugin}' failed in {hook}: {self.reason}")

    @property
    def reason(self) -> str:
        """``ValueError: boom`` (an exception) or the message (a bad return value)."""
        if isinstance(self.error, BaseException):
            return f"{type(self.error).__name__}: {self.error}"
        return self.error

    def __repr__(self) -> str:
        return f"HookFailure(plugin={self.plugin!r}, hook={self.hook!r}, reason={self.reason!r})"


def _record_class(kind: str) -> type:
    """The record class named ``kind`` (imported on first use: records are built lazily)."""
    cls = _RECORDS.get(kind)
    if cls is None:
        from skillstate import records

        cls = _RECORDS[kind] = getattr(records, kind)
    return cls


_RECORDS: dict[str, type] = {}


def _each(kind: str) -> Callable[[Any], str | None]:
    def check(result: Any) -> str | None:
        cls = _RECORDS.get(kind) or _record_class(kind)
        for item in result:
            if not isinstance(item, cls):
                return (
                    f"returned a {type(item).__name__} among its results, expected {kind} records"
                )
        return None

    return check


def _one(kind: str, *, optional: bool = True) -> Callable[[Any], str | None]:
    def check(result: Any) -> str | None:
        if result is None and optional:
            return None
        if kind == "dict":
            ok = isinstance(result, dict)
        else:
            ok = isinstance(result, _RECORDS.get(kind) or _record_class(kind))
        return None if ok else f"returned a {type(result).__name__}, expected a {kind} or None"

    return check


class HookPolicy(NamedTuple):
    """How one hook's implementations are guarded.

    ``iterable`` — the result is an iterable of records, materialised inside the guard
    (so a generator's exception is caught there); ``check`` — ``None`` when a result is
    acceptable, else why not; ``firstresult`` — a failure replaces the hook's single
    result instead of joining a list (for wrappers).
    """

    iterable: bool = False
    check: Callable[[Any], str | None] | None = None
    firstresult: bool = False


POLICIES: dict[str, HookPolicy] = {
    "skillstate_merge": HookPolicy(check=_one("dict"), firstresult=True),
    "skillstate_validate": HookPolicy(iterable=True, check=_each("Problem")),
    "skillstate_budget": HookPolicy(check=_one("Budget"), firstresult=True),
    "skillstate_guards": HookPolicy(iterable=True, check=_each("Problem")),
    "skillstate_doctor": HookPolicy(iterable=True, check=_each("DoctorFinding")),
}
"""Hooks not listed are guarded with the default policy (exceptions only)."""

_DEFAULT = HookPolicy()


def _with_failure(result: Any, failure: HookFailure, policy: HookPolicy) -> Any:
    if policy.firstresult:
        return failure
    return [*(result if isinstance(result, list) else []), failure]


def _wrapper_result(value: Any, policy: HookPolicy) -> str | None:
    """Why a wrapper's return value is not a valid result of its hook (``None``: it is).

    A ``firstresult`` hook's result is one value (or ``None``); a collected hook's is a
    list whose items are each an implementation's result: ``None``, a
    :class:`HookFailure`, or what the hook returns (checked as an implementation's is).
    """
    if policy.firstresult:
        if value is None or isinstance(value, HookFailure) or policy.check is None:
            return None
        return policy.check(value)
    if not isinstance(value, list):
        return f"the wrapper returned a {type(value).__name__}, expected the list of results"
    for item in value:
        if item is None or isinstance(item, HookFailure):
            continue
        if policy.iterable:
            if isinstance(item, str | bytes) or not hasattr(item, "__iter__"):
                return (
                    f"the wrapper's results hold a {type(item).__name__}, expected lists of records"
                )
            problem = policy.check(list(item)) if policy.check is not None else None
            if problem is not None:
                return problem
    return None


def _guard_wrapper(
    plugin: str, hook: str, policy: HookPolicy, fn: Callable[..., Any]
) -> Callable[..., Generator[None, Any, Any]]:
    """A new-style wrapper, delegating to ``fn``'s generator; its own failures become results.

    What the wrapper returns is checked like an implementation's result: a wrapper that
    forgets ``return results`` (``None``) or returns garbage fails, by its hook's policy,
    and the other implementations' results stand.
    """

    def finish(result: Any, value: Any) -> Any:
        problem = _wrapper_result(value, policy)
        if problem is None:
            return value
        return _with_failure(result, HookFailure(plugin, hook, problem), policy)

    @functools.wraps(fn)
    def guarded(*args: Any) -> Generator[None, Any, Any]:
        failure: HookFailure | None = None
        token = CURRENT_PLUGIN.set(plugin)
        try:
            gen = fn(*args)
            next(gen)
        except StopIteration:
            failure = HookFailure(plugin, hook, "the wrapper returned without yielding")
        except PluginConflictError:
            raise
        except Exception as exc:
            failure = HookFailure(plugin, hook, exc)
        finally:
            CURRENT_PLUGIN.reset(token)
        try:
            result = yield
        except BaseException as exc:  # pluggy throws an inner error into the wrappers
            if failure is not None:
                raise
            token = CURRENT_PLUGIN.set(plugin)
            try:
                gen.throw(exc)
            except StopIteration as stop:  # the wrapper handled it and gave a result
                return stop.value
            except BaseException as own:
                if own is exc:
                    raise
                raise exc from own  # the wrapper's handler failed: the original error stands
            finally:
                CURRENT_PLUGIN.reset(token)
            gen.close()
            raise
        if failure is not None:
            return _with_failure(result, failure, policy)
        token = CURRENT_PLUGIN.set(plugin)
        try:
            gen.send(result)
        except StopIteration as stop:
            return finish(result, stop.value)
        except PluginConflictError:
            raise
        except Exception as exc:
            return _with_failure(result, HookFailure(plugin, hook, exc), policy)
        finally:
            CURRENT_PLUGIN.reset(token)
        gen.close()
        return _with_failure(result, HookFailure(plugin, hook, "the wrapper yielded twice"), policy)

    return guarded


REGISTRY_PREFIX = "skillstate_register_"
"""The hooks whose implementations register records through a ``register`` callback."""


def _naming(plugin: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with :data:`CURRENT_PLUGIN` set to ``plugin`` (the registries read it)."""
    set_plugin, reset_plugin = CURRENT_PLUGIN.set, CURRENT_PLUGIN.reset

    def named(*args: Any) -> Any:
        token = set_plugin(plugin)
        try:
            return fn(*args)
        finally:
            reset_plugin(token)

    return named


def guard_impl(plugin: str, hook: str, fn: Callable[..., Any], wrapper: bool) -> Callable[..., Any]:
    """The guarded replacement for one hook implementation's function (see the module doc).

    Built once, when the plugin is registered, and specialised to the hook's policy:
    every hook call runs one guard frame per implementation, with the policy's
    choices already made (this is on the path of every transition, five hook calls).
    :data:`CURRENT_PLUGIN` is set around the registry hooks' implementations (and
    every wrapper's), which are what reads it: setting a context variable costs
    more than a guard's other work.
    """
    policy = POLICIES.get(hook, _DEFAULT)
    if wrapper:
        return _guard_wrapper(plugin, hook, policy, fn)
    call = _naming(plugin, fn) if hook.startswith(REGISTRY_PREFIX) else fn
    check = policy.check

    if policy.iterable:  # validate, guards, doctor: a list of records (or None)

        def guarded_list(*args: Any) -> Any:
            try:
                result = call(*args)
                if result is not None and not isinstance(result, list):
                    result = list(result)  # a generator runs here, inside the guard
            except PluginConflictError:
                raise
            except Exception as exc:
                return HookFailure(plugin, hook, exc)
            if result and check is not None:  # an empty list has nothing to check
                problem = check(result)
                if problem is not None:
                    return HookFailure(plugin, hook, problem)
            return result

        return functools.wraps(fn)(guarded_list)

    if check is not None:  # merge, budget: one value (or None), type-checked

        def guarded_one(*args: Any) -> Any:
            try:
                result = call(*args)
            except PluginConflictError:
                raise
            except Exception as exc:
                return HookFailure(plugin, hook, exc)
            if result is not None:
                problem = check(result)
                if problem is not None:
                    return HookFailure(plugin, hook, problem)
            return result

        return functools.wraps(fn)(guarded_one)

    def guarded(*args: Any) -> Any:  # observers and registries: exceptions only
        try:
            return call(*args)
        except PluginConflictError:
            raise
        except Exception as exc:
            return HookFailure(plugin, hook, exc)

    return functools.wraps(fn)(guarded)
