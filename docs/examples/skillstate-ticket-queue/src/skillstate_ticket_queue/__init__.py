"""A skillstate domain environment: a support-ticket queue an agent works through.

Registered as the environment ``tickets``. One instance per session, built from
options and restored from its own JSON snapshot, as every environment is.

Options (all optional): ``{"tickets": [{"id": "T-1", "title": "...", "priority": "high"}, ...]}``
(default: three sample tickets). Actions:

- ``"list"`` — the open and claimed tickets;
- ``{"type": "claim", "id": "T-1"}`` — take an open ticket (one at a time);
- ``{"type": "comment", "id": "T-1", "text": "..."}`` — on the claimed ticket;
- ``{"type": "resolve", "id": "T-1", "resolution": "..."}`` — close the claimed ticket;
  resolving the last one completes the session.

Anything else is **rejected** with an observation saying why, and the runtime rolls
the whole step back (the patch to Σ included) by discarding this instance.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any

from skillstate import ActionResult, Environment, EnvironmentSpec, hookimpl
from skillstate.errors import InvalidInput

__all__ = ["DEFAULT_TICKETS", "TicketQueue", "skillstate_register_environments"]

__version__ = "0.1.0"

DEFAULT_TICKETS = (
    {"id": "T-1", "title": "Login page times out", "priority": "high"},
    {"id": "T-2", "title": "Typo on the pricing page", "priority": "low"},
    {"id": "T-3", "title": "Export to CSV drops accents", "priority": "medium"},
)
PRIORITIES = ("high", "medium", "low")
ACTIONS = ("claim", "comment", "resolve")


def _tickets_from_options(options: Any) -> list[dict[str, Any]]:
    if not isinstance(options, Mapping):
        raise InvalidInput(f"tickets options must be a JSON object, got {type(options).__name__}")
    unknown = sorted(set(options) - {"tickets"})
    if unknown:
        raise InvalidInput(f"unknown tickets option(s) {', '.join(unknown)}; known: tickets")
    given = options.get("tickets", DEFAULT_TICKETS)
    if not isinstance(given, list | tuple) or not given:
        raise InvalidInput("tickets option 'tickets' must be a non-empty list")
    tickets, seen = [], set()
    for index, ticket in enumerate(given):
        where = f"tickets[{index}]"
        if not isinstance(ticket, Mapping) or not isinstance(ticket.get("id"), str):
            raise InvalidInput(f"{where} must be an object with a string id")
        if ticket["id"] in seen:
            raise InvalidInput(f"{where}: duplicate ticket id '{ticket['id']}'")
        priority = ticket.get("priority", "medium")
        if priority not in PRIORITIES:
            raise InvalidInput(f"{where}: priority must be one of {', '.join(PRIORITIES)}")
        seen.add(ticket["id"])
        tickets.append(
            {
                "id": ticket["id"],
                "title": str(ticket.get("title", "")),
                "priority": priority,
                "status": "open",
                "comments": [],
                "resolution": None,
            }
        )
    return tickets


class TicketQueue(Environment):
    """The queue of one session. Its whole state is :meth:`snapshot`."""

    def __init__(self, options: Mapping[str, Any], snapshot: Any = None) -> None:
        fresh = _tickets_from_options(options)
        if snapshot is None:
            self._tickets = fresh
        else:
            if not isinstance(snapshot, Mapping) or not isinstance(snapshot.get("tickets"), list):
                raise InvalidInput(
                    f'a tickets snapshot must be {{"tickets": [...]}}, got {snapshot!r}'
                )
            self._tickets = copy.deepcopy(list(snapshot["tickets"]))  # never alias the caller's

    def snapshot(self) -> dict[str, Any]:
        return {"tickets": copy.deepcopy(self._tickets)}

    def initial_observation(self) -> str:
        return self._listing()

    def _find(self, ticket_id: Any) -> dict[str, Any] | None:
        return next((t for t in self._tickets if t["id"] == ticket_id), None)

    def _listing(self) -> str:
        waiting = [t for t in self._tickets if t["status"] != "resolved"]
        if not waiting:
            return "No open tickets."
        lines = [f"{len(waiting)} ticket(s) waiting:"]
        lines += [f"- {t['id']} [{t['priority']}, {t['status']}] {t['title']}" for t in waiting]
        return "\n".join(lines)

    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        if action == "list":
            return ActionResult("accepted", self._listing())
        if not isinstance(action, Mapping) or action.get("type") not in ACTIONS:
            return ActionResult(
                "rejected",
                f'unknown action {action!r}: use "list" or an object whose type is '
                "claim, comment or resolve",
            )
        ticket = self._find(action.get("id"))
        if ticket is None:
            known = ", ".join(t["id"] for t in self._tickets)
            return ActionResult("rejected", f"no ticket {action.get('id')!r}; tickets: {known}")
        return getattr(self, f"_{action['type']}")(ticket, action)

    def _claim(self, ticket: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        held = next((t for t in self._tickets if t["status"] == "claimed"), None)
        if held is not None:
            return ActionResult("rejected", f"finish {held['id']} before claiming another ticket")
        if ticket["status"] != "open":
            return ActionResult("rejected", f"{ticket['id']} is {ticket['status']}, not open")
        ticket["status"] = "claimed"
        return ActionResult("accepted", f"claimed {ticket['id']}: {ticket['title']}")

    def _comment(self, ticket: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        text = action.get("text")
        if ticket["status"] != "claimed":
            return ActionResult("rejected", f"claim {ticket['id']} before commenting on it")
        if not isinstance(text, str) or not text.strip():
            return ActionResult("rejected", "a comment needs a non-empty text")
        ticket["comments"].append(text)
        return ActionResult("accepted", f"commented on {ticket['id']} ({len(ticket['comments'])})")

    def _resolve(self, ticket: dict[str, Any], action: Mapping[str, Any]) -> ActionResult:
        resolution = action.get("resolution")
        if ticket["status"] != "claimed":
            return ActionResult("rejected", f"claim {ticket['id']} before resolving it")
        if not isinstance(resolution, str) or not resolution.strip():
            return ActionResult("rejected", "resolving needs a non-empty resolution")
        ticket["status"], ticket["resolution"] = "resolved", resolution
        left = sum(t["status"] != "resolved" for t in self._tickets)
        if left == 0:
            return ActionResult("completed", f"resolved {ticket['id']}. Queue empty: all done.")
        return ActionResult("accepted", f"resolved {ticket['id']}; {left} ticket(s) left")


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    """Provide the ``tickets`` environment."""
    register(
        EnvironmentSpec(
            name="tickets",
            factory=TicketQueue,
            description="a support-ticket queue: list, claim, comment, resolve (example plugin)",
        )
    )
