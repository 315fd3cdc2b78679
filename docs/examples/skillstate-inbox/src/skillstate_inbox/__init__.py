"""A skillstate domain environment: an e-mail inbox an agent triages until it is empty.

Registered as the environment ``inbox``. One instance per session, built from options
and restored from its own JSON snapshot, as every environment is.

Options (all optional): ``{"messages": [{"id": "M-1", "from": "...", "subject": "...",
"urgent": true}, ...]}`` (default: three sample messages). Actions:

- ``"list"`` — the messages still in the inbox;
- ``{"type": "read", "id": "M-1"}`` — open a message (its body is the observation);
- ``{"type": "reply", "id": "M-1", "text": "..."}`` — answer a message you have read;
- ``{"type": "archive", "id": "M-1"}`` — file a message you have read; an urgent one
  must have been answered first. Archiving the last message completes the session.

Anything else is **rejected** with an observation saying why, and the runtime rolls
the whole step back (the patch to Σ included) by discarding this instance.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from skillstate.plugin import ActionResult, Environment, EnvironmentSpec, InvalidInput, hookimpl

__all__ = ["DEFAULT_MESSAGES", "Inbox", "skillstate_register_environments"]

__version__ = "0.1.0"

DEFAULT_MESSAGES = (
    {"id": "M-1", "from": "ops", "subject": "Disk almost full on db-2", "urgent": True},
    {"id": "M-2", "from": "hr", "subject": "Team lunch on Friday", "urgent": False},
    {"id": "M-3", "from": "client", "subject": "Invoice 1042 question", "urgent": False},
)
ACTIONS = ("read", "reply", "archive")


def _messages_from_options(options: Any) -> list[dict[str, Any]]:
    if not isinstance(options, Mapping):
        raise InvalidInput(f"inbox options must be a JSON object, got {type(options).__name__}")
    unknown = sorted(set(options) - {"messages"})
    if unknown:
        raise InvalidInput(f"unknown inbox option(s) {', '.join(unknown)}; known: messages")
    given = options.get("messages", DEFAULT_MESSAGES)
    if not isinstance(given, list | tuple) or not given:
        raise InvalidInput("inbox option 'messages' must be a non-empty list")
    messages, seen = [], set()
    for index, message in enumerate(given):
        where = f"messages[{index}]"
        if not isinstance(message, Mapping) or not isinstance(message.get("id"), str):
            raise InvalidInput(f"{where} must be an object with a string id")
        if message["id"] in seen:
            raise InvalidInput(f"{where}: duplicate message id '{message['id']}'")
        if not isinstance(message.get("urgent", False), bool):
            raise InvalidInput(f"{where}: urgent must be true or false")
        seen.add(message["id"])
        messages.append(
            {
                "id": message["id"],
                "from": str(message.get("from", "unknown")),
                "subject": str(message.get("subject", "")),
                "urgent": message.get("urgent", False),
                "read": False,
                "replies": [],
                "archived": False,
            }
        )
    return messages


class Inbox(Environment):
    """The inbox of one session. Its whole state is :meth:`snapshot`."""

    def __init__(self, options: Mapping[str, Any], snapshot: Any = None) -> None:
        fresh = _messages_from_options(options)  # options are checked on restore too
        if snapshot is None:
            self._messages = fresh
        else:
            if not isinstance(snapshot, Mapping) or not isinstance(snapshot.get("messages"), list):
                raise InvalidInput(
                    f'an inbox snapshot must be {{"messages": [...]}}, got {snapshot!r}'
                )
            self._messages = copy.deepcopy(list(snapshot["messages"]))  # never alias the caller's

    def snapshot(self) -> dict[str, Any]:
        return {"messages": copy.deepcopy(self._messages)}

    def initial_observation(self) -> str:
        return self._listing()

    def _listing(self) -> str:
        waiting = [m for m in self._messages if not m["archived"]]
        if not waiting:
            return "Inbox zero."
        lines = [f"{len(waiting)} message(s) in the inbox:"]
        for m in waiting:
            flags = ", ".join(f for f, on in (("urgent", m["urgent"]), ("read", m["read"])) if on)
            lines.append(
                f"- {m['id']} from {m['from']}: {m['subject']}" + (f" [{flags}]" if flags else "")
            )
        return "\n".join(lines)

    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        if action == "list":
            return ActionResult("accepted", self._listing())
        if not isinstance(action, Mapping) or action.get("type") not in ACTIONS:
            return ActionResult(
                "rejected",
                f'unknown action {action!r}: use "list" or an object whose type is '
                "read, reply or archive",
            )
        message = next((m for m in self._messages if m["id"] == action.get("id")), None)
        if message is None or message["archived"]:
            waiting = ", ".join(m["id"] for m in self._messages if not m["archived"])
            return ActionResult(
                "rejected", f"no message {action.get('id')!r} in the inbox; there are: {waiting}"
            )
        handler: Callable[[dict[str, Any], Mapping[str, Any]], ActionResult] = getattr(
            self, f"_{action['type']}"
        )
        return handler(message, action)

    def _read(self, message: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        message["read"] = True
        return ActionResult(
            "accepted", f"{message['id']} from {message['from']}: {message['subject']}"
        )

    def _reply(self, message: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        text = action.get("text")
        if not message["read"]:
            return ActionResult("rejected", f"read {message['id']} before replying to it")
        if not isinstance(text, str) or not text.strip():
            return ActionResult("rejected", "a reply needs a non-empty text")
        message["replies"].append(text)
        return ActionResult("accepted", f"replied to {message['id']}")

    def _archive(self, message: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        if not message["read"]:
            return ActionResult("rejected", f"read {message['id']} before archiving it")
        if message["urgent"] and not message["replies"]:
            return ActionResult(
                "rejected", f"{message['id']} is urgent: reply to it before archiving it"
            )
        message["archived"] = True
        left = sum(not m["archived"] for m in self._messages)
        if left == 0:
            return ActionResult("completed", f"archived {message['id']}. Inbox zero.")
        return ActionResult("accepted", f"archived {message['id']}; {left} message(s) left")


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    """Provide the ``inbox`` environment."""
    register(
        EnvironmentSpec(
            name="inbox",
            factory=Inbox,
            description="an e-mail inbox to triage: list, read, reply, archive (example plugin)",
        )
    )
