"""State drift (§5.4): the world changes outside the agent's loop, then an alert corrects it.

Scenarios (Table 3's names; the texts are ours — the paper gives none):

- ``audit`` (A, Secret Audit): an item is found on another shelf. Alert:
  ``ALERT (cycle count audit): item_X is not on shelf_a. Floor scanner: item_X is on shelf_b.``
  Follow-up: ``Customer ordered item_X.`` (ship it from shelf_b).
- ``barcode`` (B, Secret Barcode): the item on a shelf was mislabelled. Alert:
  ``ALERT (barcode correction): the item on shelf_a is item_Y, not item_X; its label
  was misread at receiving.`` Follow-up: ``Customer ordered item_Y.``
- ``move`` (C, Secret Move): a worker moved an item. Alert:
  ``ALERT (floor log): a worker moved item_X from shelf_a to shelf_b outside the system.``
  Follow-up: ``Maintenance required on shelf_b.``
- ``canceled-order`` (D): an item just shipped comes back, silently, after its order is
  canceled — **no alert**. Follow-up: ``Maintenance required on shelf_b`` for a shelf
  the agent believes empty. No runtime can recover (the paper: "No, N/A" for all):
  the fact was never observed, so no state could hold it (§7's sufficient statistic).

The drift happens in the live world just before event ``at`` is delivered (for
``canceled-order``, before ``at + 1``); the alert rides on event ``at + 1``'s
observation; the follow-up is event ``at + 2``. Live shelves are used when the
agent's world holds the item; otherwise the ground truth's.
"""

from __future__ import annotations

from typing import Any

from skillstate_plugins.bench import scenario_name

from .commands import SHELF_COUNT
from .generator import DriftPlan

__all__ = ["ALIASES", "SCENARIOS", "alert_text", "apply_drift", "canonical_scenario", "drift_step"]

SCENARIOS = ("audit", "barcode", "move", "canceled-order")
ALIASES = {
    "a": "audit",
    "secret-audit": "audit",
    "b": "barcode",
    "secret-barcode": "barcode",
    "c": "move",
    "secret-move": "move",
    "d": "canceled-order",
}


def canonical_scenario(name: str) -> str | None:
    """The scenario's canonical name, or ``None`` when ``name`` is none of them."""
    return scenario_name(name, SCENARIOS, ALIASES)


def drift_step(plan: DriftPlan) -> int:
    """The event whose delivery the live drift precedes."""
    return plan.at + 1 if plan.scenario == "canceled-order" else plan.at


def _free(shelves: dict[str, str], preferred: str) -> str:
    if preferred not in shelves:
        return preferred
    return next(f"shelf_{k}" for k in range(SHELF_COUNT) if f"shelf_{k}" not in shelves)


def apply_drift(plan: DriftPlan, shelves: dict[str, str]) -> dict[str, Any]:
    """Change the live ``shelves`` as the scenario says; return the live facts (for the alert)."""
    live = next((s for s, held in shelves.items() if held == plan.item), None)
    facts: dict[str, Any] = {
        "scenario": plan.scenario,
        "item": plan.item,
        "stale": plan.stale,
        "true": plan.true,
        "new_item": plan.new_item,
        "applied": False,
    }
    if plan.scenario == "canceled-order":
        if live is None:
            true = _free(shelves, plan.true)
            shelves[true] = plan.item
            facts.update(true=true, applied=True)
        else:
            facts.update(stale=live, true=live)
        return facts
    if live is None:
        return facts
    if plan.scenario == "barcode":
        assert plan.new_item is not None
        shelves[live] = plan.new_item
        facts.update(stale=live, true=live, applied=True)
        return facts
    true = _free(shelves, plan.true)
    del shelves[live]
    shelves[true] = plan.item
    facts.update(stale=live, true=true, applied=True)
    return facts


def alert_text(facts: dict[str, Any]) -> str | None:
    """The corrective alert for the applied drift (``None`` for ``canceled-order``)."""
    scenario, item, stale, true = facts["scenario"], facts["item"], facts["stale"], facts["true"]
    if scenario == "audit":
        return (
            f"ALERT (cycle count audit): {item} is not on {stale}. "
            f"Floor scanner: {item} is on {true}."
        )
    if scenario == "barcode":
        return (
            f"ALERT (barcode correction): the item on {stale} is {facts['new_item']}, not "
            f"{item}; its label was misread at receiving."
        )
    if scenario == "move":
        return (
            f"ALERT (floor log): a worker moved {item} from {stale} to {true} outside the system."
        )
    return None
