"""The warehouse skill: the instructions P every runtime gets, Σ's schema and Σ_0.

The paper injects "the agent's persona, the available action space, and the
environment rules" as ``{skill.instructions}``, the same for all four runtimes; its
text is not published, so this is ours. It states the ⊕ contract (a third-party
replication found that declaring it matters) and Σ's shape from App. B.3.
"""

from __future__ import annotations

from typing import Any

__all__ = ["INITIAL_STATE", "STATE_SCHEMA", "WAREHOUSE_INSTRUCTIONS"]

WAREHOUSE_INSTRUCTIONS = """\
You are the inventory controller of a warehouse with 500 shelves, shelf_0 to shelf_499.
Each shelf holds at most one item (an id such as item_7) or is empty. Every turn brings
one event; answer it with exactly one command:

- "Shipment arrived containing <item>." -> Store <item> <empty_shelf>
  Pick any shelf that is empty; storing on an occupied shelf is rejected.
- "Customer ordered <item>." -> Ship <item> <shelf the item is on>
  Shipping removes the item from the warehouse for good.
- "Maintenance required on <shelf>." -> Move <item on that shelf> <that shelf> <empty_shelf>
- Wait does nothing; use it only when an observation needs no action.

Commands are exact: a verb and its ids separated by spaces, nothing else
(e.g. "Store item_3 shelf_12"). Ids are case-sensitive. A rejected command changes
nothing and the same event stays pending; the observation will say why.

Alerts (lines starting with "ALERT") report changes made outside your control, such as
an audit finding an item on another shelf. They are authoritative: update your records.
Lines under "--- BACKGROUND TELEMETRY ---" are irrelevant sensor noise; ignore them.

Your only memory is the execution state. Keep it as {"inventory": {"<shelf>": "<item>"}}
holding the occupied shelves only. State patches merge recursively: keys you omit are
kept, a key set to null is deleted. After Store add the shelf, after Ship set the shelf
to null, after Move set the old shelf to null and add the new one. Never resend the
whole inventory; send only what changes."""
"""P: the warehouse instructions (persona, actions, rules, the state contract)."""

STATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "inventory": {
            "type": "object",
            "propertyNames": {"pattern": "^shelf_(0|[1-9][0-9]{0,2})$"},
            "additionalProperties": {"type": "string", "minLength": 1},
        }
    },
    "required": ["inventory"],
    "additionalProperties": False,
}
"""Σ's JSON Schema (the SKILL.state and Stateful runtimes): occupied shelves → item ids."""

INITIAL_STATE: dict[str, Any] = {"inventory": {}}
