"""The warehouse's scripted policies (the harness's ``wait`` and ``llm`` are the core's).

``oracle`` — correct for every event; keeps the inventory in Σ via patches when the
runtime has a Σ (applying floor-staff notes and alerts in the order the observation
lists them), otherwise replays what it can still see; ``stale`` — the oracle,
ignoring alerts (shows recovery lag).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate_plugins.bench import PolicyError, Reply, TurnView, format_reply

from . import belief
from .belief import WarehouseEvent

__all__ = ["OraclePolicy"]


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
            for kind, found in belief.notes(view.observation, alerts=self.use_alerts):
                patch.update(belief.apply_alert(inventory, found))
                if kind == "staff":
                    notes.append(f"the floor staff put {found.item} on {found.shelf}")
                else:
                    notes.append(f"an alert says {found.item} is on {found.shelf}")
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
