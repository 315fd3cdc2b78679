"""The ``mock`` environment: the reference runtime's mock executor, one instance per session.

Observations are the reference's exact texts, prefixed ``[MOCK ENV · step N]`` where
N is the prospective step number (accepted actions so far + 1, kept in the
environment's own snapshot ``{"executed": n}``):

- any string action: ``Generic action executed successfully: "{action}". No side effects. (mock)``
- ``{"type": "echo", "message"?}``, ``{"type": "noop"}``, ``{"type": "complete", "summary"?}``
- ``{"type": "fail", "reason"?, "reject_transition"?}``: status ``failed``; the step is
  rolled back only when ``reject_transition`` is the JSON boolean ``true`` (the
  reference also rolls back on ``"false"`` or ``1``, JavaScript truthiness);
  a non-boolean ``reject_transition`` is itself rejected with a clear observation.
- any other object: ``Structured action executed: {pretty JSON}. (mock)``
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.plugin import ActionResult, Environment, InvalidInput, js_string, pretty

__all__ = ["MockEnvironment"]


class MockEnvironment(Environment):
    """Acknowledges every action; ``fail`` and ``complete`` objects change the outcome."""

    def __init__(self, options: Mapping[str, Any], snapshot: Any = None) -> None:
        if not isinstance(options, Mapping):
            raise InvalidInput(
                f"mock environment options must be a JSON object, got {type(options).__name__}"
            )
        if options:
            raise InvalidInput(
                f"the mock environment takes no options; got {', '.join(sorted(options))}"
            )
        executed = 0
        if snapshot is not None:
            value = snapshot.get("executed") if isinstance(snapshot, Mapping) else None
            if type(value) is not int or value < 0:
                raise InvalidInput(
                    f'mock environment snapshot must be {{"executed": <count>}}, got {snapshot!r}'
                )
            executed = value
        self._executed = executed

    def snapshot(self) -> dict[str, int]:
        return {"executed": self._executed}

    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        prefix = f"[MOCK ENV · step {self._executed + 1}]"
        result = _dispatch(prefix, action)
        if result.status != "rejected":
            self._executed += 1
        return result


def _dispatch(prefix: str, action: Any) -> ActionResult:
    if isinstance(action, str):
        return ActionResult(
            "accepted",
            f'{prefix} Generic action executed successfully: "{action}". No side effects. (mock)',
        )
    if not isinstance(action, Mapping):
        return ActionResult(
            "rejected",
            f"{prefix} ACTION FAILED — an action must be a string or a JSON object, "
            f"got {type(action).__name__}. (mock)",
        )
    kind = action.get("type")
    if kind == "echo":
        message = action.get("message")
        shown = "(empty message)" if message is None else js_string(message)
        return ActionResult("accepted", f"{prefix} echo → {shown}. (mock)")
    if kind == "noop":
        return ActionResult(
            "accepted", f"{prefix} no-op action acknowledged; environment unchanged. (mock)"
        )
    if kind == "fail":
        return _fail(prefix, action)
    if kind == "complete":
        summary = action.get("summary")
        shown = "all objectives met" if summary is None else js_string(summary)
        return ActionResult("completed", f"{prefix} SKILL COMPLETE — {shown}. (mock)")
    return ActionResult(
        "accepted", f"{prefix} Structured action executed: {pretty(dict(action))}. (mock)"
    )


def _fail(prefix: str, action: Mapping[str, Any]) -> ActionResult:
    reject = action.get("reject_transition", False)
    if type(reject) is not bool:
        return ActionResult(
            "rejected",
            f"{prefix} ACTION FAILED — reject_transition must be true or false, got "
            f"{pretty(reject)}. Recover per skill procedure P. (mock)",
            {"action_status": "failed"},
        )
    reason = action.get("reason")
    shown = "unspecified mock failure" if reason is None else js_string(reason)
    observation = f"{prefix} ACTION FAILED — {shown}. Recover per skill procedure P. (mock)"
    return ActionResult(
        "rejected" if reject else "accepted", observation, {"action_status": "failed"}
    )
