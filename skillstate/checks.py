"""The checks of the transition pipeline (:mod:`skillstate.pipeline`), one function each.

The caller's values are copied (:func:`own`) and checked as documents first
(:func:`prechecks`, :func:`text_problems`); the merged candidate then goes through
the plugins' validation, the budget and the guards (:meth:`Host.check
<skillstate.host.Host.check>`); an
action runs in its environment (:func:`run_action`). Each returns its problems rather
than raising: a rejected transition writes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillstate.changes import NO_ACTION
from skillstate.errors import PluginError
from skillstate.host import HookFailed, Host
from skillstate.jsondoc import check_document, unicode_problem
from skillstate.records import Problem, RunRecord, SkillDefinition

if TYPE_CHECKING:
    from skillstate.records import ActionResult

__all__ = [
    "digest",
    "merged",
    "own",
    "prechecks",
    "replacement",
    "restamped",
    "run_action",
    "text_problems",
]


def own(value: Any) -> Any:
    """A copy of a caller's JSON value, its numbers as JavaScript writes them (``1.0`` → ``1``).

    A store that keeps objects (memory) then holds what one that keeps text (file, SQLite,
    PostgreSQL) reads back, and the caller can change its own value afterwards.
    ``js_numbers(copy_json(value))`` in one walk: every dict and list copied (subclasses
    become plain ones), integral floats made ints.
    """
    if isinstance(value, dict):
        return {key: own(item) for key, item in value.items()}
    if isinstance(value, list):
        return [own(item) for item in value]
    if type(value) is float and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def prechecks(
    skill: SkillDefinition, current: Mapping[str, Any] | None, patch: Any, force: bool, what: str
) -> tuple[list[Problem], Any]:
    """Problems of the patch itself, and the patch with JavaScript's numbers (see js_numbers)."""
    problems = check_document(patch, what)
    if problems:
        return problems, patch
    if type(patch) is not dict:
        return [Problem("patch", "patch: expected a JSON object", "")], patch
    for key in skill.immutable_keys:
        if key in patch:
            return [Problem("immutable", f"{key} is set at init and never patched", key)], patch
    patch = own(patch)  # the journal's own: the caller may change its dict
    if current is not None and not force and skill.phases:
        key = skill.phase_key
        phase = current.get(key)
        if phase in skill.terminal_phases and key in patch and patch[key] != phase:
            message = f"run is at terminal {key} '{phase}'; start a new run rather than reopening it (--force overrides)"
            return [Problem("terminal", message, key)], patch
    return [], patch


def text_problems(**values: Any) -> list[Problem]:
    """Problems of the values that travel with a patch (label, action, observation, meta...).

    They reach the journal and the record as they are, so they follow the rules of a
    patch: plain JSON, valid Unicode (``jsondoc``'s module docstring).
    """
    problems: list[Problem] = []
    for name, value in values.items():
        if value is None or value is NO_ACTION or (type(value) is str and value.isascii()):
            continue  # nothing to check, or ASCII text: valid Unicode
        what = name.replace("_", " ")
        if isinstance(value, str):
            message = unicode_problem(value, what)
            if message is not None:
                problems.append(Problem("input", message, ""))
        else:
            problems.extend(check_document(value, what))
    return problems


def merged(
    host: Host, state: Mapping[str, Any], patch: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, list[Problem]]:
    """``(Σ ⊕ patch, [])``, or ``(None, [problem])`` when the merge plugin failed."""
    try:
        return host.merge(state, patch), []
    except HookFailed as failed:
        return None, [failed.problem]


OBSERVATION_KEPT = 16384
"""A journal entry keeps an observation's text up to this many UTF-8 bytes (the runtime's
default observation limit), a longer one its digest only."""


def kept(text: str | None) -> str | None:
    """``text`` if a journal entry keeps it (:data:`OBSERVATION_KEPT`), else ``None``."""
    return text if text is not None and len(text.encode("utf-8")) <= OBSERVATION_KEPT else None


def digest(text: str | None) -> str | None:
    if text is None:
        return None
    import hashlib  # lazily: most transitions carry no observation (CLI start-up time)

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def restamped(
    skill: SkillDefinition, run_id: str, start: Any, stamp: str
) -> tuple[list[Problem], dict[str, Any]]:
    """A fork's first state: ``start`` with this run's stamps, its immutable keys kept."""
    if type(start) is not dict:
        return [Problem("patch", "initial state: expected a JSON object", "")], {}
    values = (run_id, skill.name, stamp, stamp)
    keys = (skill.run_id_key, skill.skill_key, skill.created_key, skill.updated_key)
    stamps = {key: value for key, value in zip(keys, values, strict=True) if key}
    kept = set(stamps) | set(skill.immutable_keys)
    problems, checked = prechecks(
        skill, None, {k: v for k, v in start.items() if k not in kept}, False, "initial state"
    )
    if problems:
        return problems, {}
    base = {
        key: stamps[key] if key in stamps else checked[key] if key in checked else own(value)
        for key, value in start.items()
    }
    base.update({key: value for key, value in stamps.items() if key not in base})
    return [], base


def replacement(
    skill: SkillDefinition, current: Mapping[str, Any], target: Any, force: bool
) -> tuple[list[Problem], Any]:
    """The problems of replacing ``current`` by the whole state ``target`` (a rewind)."""
    problems = check_document(target, "state")
    if problems:
        return problems, target
    if type(target) is not dict:
        return [Problem("patch", "state: expected a JSON object", "")], target
    for key in skill.immutable_keys:
        if (key in target) != (key in current) or target.get(key) != current.get(key):
            return [Problem("immutable", f"{key} is set at init and never patched", key)], target
    key = skill.phase_key
    phase = current.get(key)
    if not force and skill.phases and phase in skill.terminal_phases and target.get(key) != phase:
        message = f"run is at terminal {key} '{phase}'; start a new run rather than reopening it (--force overrides)"
        return [Problem("terminal", message, key)], target
    return [], own(target)


def run_action(
    host: Host, record: RunRecord, action: Any, candidate: Mapping[str, Any]
) -> tuple[ActionResult, Any]:
    from skillstate.records import ActionResult

    env_info = record.environment
    if not env_info or not isinstance(env_info.get("name"), str):
        raise PluginError(f"run '{record.id}' has no environment to execute an action in")
    spec = host.environment(env_info["name"])
    env = spec.factory(env_info.get("options") or {}, env_info.get("state"))
    try:
        result = env.execute(action, candidate)
    except Exception as exc:  # an environment that raises fails closed, like a guard
        message = f"Action execution error: {exc}"
        return ActionResult("rejected", message, {"rejection": "execution_error"}), None
    if not isinstance(result, ActionResult):
        raise PluginError(
            f"environment '{spec.name}' returned a {type(result).__name__} from execute, expected an ActionResult"
        )
    return result, env.snapshot()
