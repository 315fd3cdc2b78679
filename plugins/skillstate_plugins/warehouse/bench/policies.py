"""Policies: what answers each turn. A policy sees a :class:`TurnView` and returns a
:class:`Reply` — the raw text a model would write in the runtime's response format.

Bundled: ``oracle`` (correct for every event; keeps the inventory in Σ via patches
when the runtime has a Σ, otherwise replays what it can still see), ``stale`` (the
oracle, ignoring alerts — shows recovery lag), ``wait`` (always ``Wait``) and ``llm``
(``skillstate.bench.llm``). Any object with ``name`` and ``respond(view)`` is a policy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import attrs

from . import belief
from .belief import WarehouseEvent

__all__ = [
    "POLICIES",
    "OraclePolicy",
    "Policy",
    "PolicyError",
    "Reply",
    "TurnView",
    "WaitPolicy",
    "format_reply",
    "make_policy",
]


class PolicyError(Exception):
    """A policy could not answer (e.g. the model endpoint failed after its retries)."""


@attrs.frozen
class TurnView:
    """What one turn offers a policy.

    ``runtime`` — skill-state, react, memory, stateful or window; ``prompt`` — the
    rendered prompt (what a model reads); ``observation`` — O_t; ``state`` — Σ_t, or
    ``None`` for runtimes without one; ``history`` — the visible past turns
    ``(observation, response)``; ``summary`` — the memory runtime's summary;
    ``call`` — how many calls came before this one.
    """

    runtime: str
    prompt: str
    observation: str
    state: Mapping[str, Any] | None
    history: tuple[tuple[str, str], ...] = ()
    summary: str | None = None
    call: int = 0


@attrs.frozen
class Reply:
    """A policy's answer: the response ``text``; token counts when an API reported them."""

    text: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@runtime_checkable
class Policy(Protocol):
    name: str

    def respond(self, view: TurnView) -> Reply: ...


def format_reply(runtime: str, reasoning: str, patch: dict[str, Any], action: str) -> str:
    """A response in the runtime's format: A.4's fenced JSON, or ``Action:``/``StateUpdate:`` lines."""
    if runtime == "skill-state":
        block = json.dumps({"state_patch": patch, "action": action}, separators=(",", ":"))
        return f"Reasoning: {reasoning}\n\n```json\n{block}\n```"
    lines = [f"Reasoning: {reasoning}"]
    if runtime == "stateful" and patch:
        lines.append("StateUpdate: " + json.dumps(patch, separators=(",", ":")))
    lines.append(f"Action: {action}")
    return "\n".join(lines)


def _free_shelf(inventory: Mapping[str, str], avoid: str | None = None) -> str:
    for k in range(500):
        shelf = f"shelf_{k}"
        if shelf not in inventory and shelf != avoid:
            return shelf
    raise PolicyError("every shelf is occupied")


class OraclePolicy:
    """Answers every event correctly from what it knows.

    ``use_alerts`` — apply corrective alerts (``False``: the ``stale`` policy);
    ``collide_at`` — at the first Receive on or after this call, store on an occupied
    shelf once (a deliberate collision, for the demo and tests).
    """

    def __init__(self, *, use_alerts: bool = True, collide_at: int | None = None) -> None:
        self.name = "oracle" if use_alerts else "stale"
        self.use_alerts = use_alerts
        self.collide_at = collide_at
        self._collided = False

    def _inventory(self, view: TurnView) -> dict[str, str]:
        if view.state is not None:
            return belief.inventory_of(view.state)
        texts = [view.summary or ""] + [obs for obs, _ in view.history] + [view.observation]
        return belief.replay(texts, alerts=self.use_alerts)

    def respond(self, view: TurnView) -> Reply:
        inventory = self._inventory(view)
        patch: dict[str, Any] = {}
        notes: list[str] = []
        if view.state is not None:
            for placed in belief.find_put_away(view.observation):
                patch.update(belief.apply_alert(inventory, placed))
                notes.append(f"the floor staff put {placed.item} on {placed.shelf}")
            for alert in belief.find_alerts(view.observation) if self.use_alerts else []:
                patch.update(belief.apply_alert(inventory, alert))
                notes.append(f"an alert says {alert.item} is on {alert.shelf}")
        event = belief.find_event(view.observation)
        action, reason, change = self._answer(event, inventory, view.call)
        patch.update(change)
        reasoning = "; ".join([*notes, reason]) + "."
        inv_patch = {"inventory": patch} if patch and view.state is not None else {}
        return Reply(format_reply(view.runtime, reasoning, inv_patch, action))

    def _answer(
        self, event: WarehouseEvent | None, inventory: dict[str, str], call: int
    ) -> tuple[str, str, dict[str, Any]]:
        if event is None:
            return "Wait", "No event to handle", {}
        if event.kind == "receive":
            shelf = _free_shelf(inventory)
            if (
                self.collide_at is not None
                and not self._collided
                and call >= self.collide_at
                and inventory
            ):
                self._collided = True
                shelf = min(inventory, key=lambda s: int(s[6:]))
            return (
                f"Store {event.subject} {shelf}",
                f"{event.subject} arrived; {shelf} is empty",
                {shelf: event.subject},
            )
        if event.kind == "order":
            found = next((s for s, i in inventory.items() if i == event.subject), None)
            if found is None:
                return "Wait", f"I do not know where {event.subject} is", {}
            return (
                f"Ship {event.subject} {found}",
                f"{event.subject} is on {found}",
                {found: None},
            )
        held = inventory.get(event.subject)
        if held is None:
            return "Wait", f"I do not know what is on {event.subject}", {}
        item = held
        new = _free_shelf(inventory, avoid=event.subject)
        return (
            f"Move {item} {event.subject} {new}",
            f"{item} on {event.subject} needs maintenance; {new} is empty",
            {event.subject: None, new: item},
        )


class WaitPolicy:
    """Always ``Wait`` with an empty patch: the floor of the score."""

    name = "wait"

    def respond(self, view: TurnView) -> Reply:
        return Reply(format_reply(view.runtime, "Waiting", {}, "Wait"))


POLICIES = ("oracle", "stale", "wait", "llm")


def make_policy(name: str, **options: Any) -> Policy:
    """A bundled policy by name (``llm`` takes the adapter's options)."""
    if name == "oracle":
        return OraclePolicy(collide_at=options.get("collide_at"))
    if name == "stale":
        return OraclePolicy(use_alerts=False)
    if name == "wait":
        return WaitPolicy()
    if name == "llm":
        from .llm import ChatCompletionsPolicy

        return ChatCompletionsPolicy.from_environment(**options)
    raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}")
