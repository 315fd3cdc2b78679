"""Reading warehouse observations: events, confirmed changes and alerts (telemetry ignored).

Scripted policies use this to act: from Σ when the runtime keeps one, otherwise by
replaying the confirmations and alerts they can still see (history, summary, the
latest observation). Whatever scrolled out of view is gone — which is exactly how
a budget-capped sliding window loses early allocations.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from skillstate_plugins.bench import relevant_lines

__all__ = [
    "Alert",
    "WarehouseEvent",
    "apply_alert",
    "changes",
    "find_alerts",
    "find_event",
    "find_put_away",
    "inventory_of",
    "notes",
    "relevant_lines",
    "replay",
]

_STORED = re.compile(r"Success: Stored (\S+) on (\S+)\.")
_SHIPPED = re.compile(r"Success: Shipped (\S+) from (\S+)\.")
_MOVED = re.compile(r"Success: Moved (\S+) from (\S+) to (\S+)\.")
_AUDIT = re.compile(
    r"ALERT \(cycle count audit\): (\S+) is not on (\S+)\. Floor scanner: \S+ is on (\S+)\."
)
_BARCODE = re.compile(r"ALERT \(barcode correction\): the item on (\S+) is (\S+), not (\S+);.*")
_STAFF = re.compile(r"Floor staff stored (\S+) on (\S+)\.")
_FLOOR = re.compile(
    r"ALERT \(floor log\): a worker moved (\S+) from (\S+) to (\S+) outside the system\."
)
_EVENTS = (
    ("receive", re.compile(r"Shipment arrived containing (\S+)\.")),
    ("order", re.compile(r"Customer ordered (\S+)\.")),
    ("maintenance", re.compile(r"Maintenance required on (\S+)\.")),
)


@attrs.frozen
class WarehouseEvent:
    """A pending event: ``kind`` receive/order/maintenance and its item or shelf."""

    kind: str
    subject: str


@attrs.frozen
class Alert:
    """A corrective alert: ``shelf`` now holds ``item`` (and ``vacated`` is empty, if any)."""

    item: str
    shelf: str
    vacated: str | None


def find_event(observation: str) -> WarehouseEvent | None:
    """The last event line of ``observation`` (``None`` when it announces none)."""
    found = None
    for line in relevant_lines(observation):
        for kind, pattern in _EVENTS:
            match = pattern.fullmatch(line)
            if match:
                found = WarehouseEvent(kind, match.group(1))
    return found


def _alert(line: str) -> Alert | None:
    match = _AUDIT.fullmatch(line)
    if match:
        return Alert(match.group(1), match.group(3), match.group(2))
    match = _FLOOR.fullmatch(line)
    if match:
        return Alert(match.group(1), match.group(3), match.group(2))
    match = _BARCODE.fullmatch(line)
    if match:
        return Alert(match.group(2), match.group(1), None)
    return None


def find_alerts(observation: str) -> list[Alert]:
    """The corrective ``ALERT`` lines of ``observation``."""
    return [a for a in (_alert(line) for line in relevant_lines(observation)) if a is not None]


def find_put_away(observation: str) -> list[Alert]:
    """Arrivals the floor staff shelved (``Floor staff stored item on shelf.``)."""
    found = []
    for line in relevant_lines(observation):
        match = _STAFF.fullmatch(line)
        if match:
            found.append(Alert(match.group(1), match.group(2), None))
    return found


def notes(observation: str, *, alerts: bool = True) -> list[tuple[str, Alert]]:
    """Floor-staff notes (``staff``) and corrective alerts (``alert``), in the order listed."""
    found: list[tuple[str, Alert]] = []
    for line in relevant_lines(observation):
        match = _STAFF.fullmatch(line)
        if match:
            found.append(("staff", Alert(match.group(1), match.group(2), None)))
            continue
        alert = _alert(line) if alerts else None
        if alert is not None:
            found.append(("alert", alert))
    return found


def apply_alert(inventory: dict[str, str], alert: Alert) -> dict[str, Any]:
    """Apply ``alert`` to ``inventory``; return the matching Σ patch of the inventory."""
    patch: dict[str, Any] = {}
    if alert.vacated is not None and inventory.get(alert.vacated) == alert.item:
        del inventory[alert.vacated]
        patch[alert.vacated] = None
    for shelf, held in list(inventory.items()):
        if held == alert.item and shelf != alert.shelf:
            del inventory[shelf]
            patch[shelf] = None
    inventory[alert.shelf] = alert.item
    patch[alert.shelf] = alert.item
    return patch


def changes(observation: str, *, alerts: bool = True) -> Iterable[tuple[str, tuple[str, ...]]]:
    """The confirmed changes (``stored``/``shipped``/``moved``/``alert``) in ``observation``."""
    for line in relevant_lines(observation):
        for name, pattern in (
            ("stored", _STORED),
            ("stored", _STAFF),
            ("shipped", _SHIPPED),
            ("moved", _MOVED),
        ):
            match = pattern.fullmatch(line)
            if match:
                yield name, match.groups()
        if alerts and _alert(line) is not None:
            yield "alert", (line,)


def replay(texts: Iterable[str], *, alerts: bool = True) -> dict[str, str]:
    """The inventory implied by the confirmations (and alerts) in ``texts``, in order."""
    inventory: dict[str, str] = {}
    for text in texts:
        for name, groups in changes(text, alerts=alerts):
            if name == "stored":
                inventory[groups[1]] = groups[0]
            elif name == "shipped":
                inventory.pop(groups[1], None)
            elif name == "moved":
                inventory.pop(groups[1], None)
                inventory[groups[2]] = groups[0]
            else:
                alert = _alert(groups[0])
                assert alert is not None
                apply_alert(inventory, alert)
    return inventory


def inventory_of(state: Mapping[str, Any] | None) -> dict[str, str]:
    """Σ's ``inventory`` as a plain dict (empty when absent or malformed)."""
    value = (state or {}).get("inventory")
    if not isinstance(value, Mapping):
        return {}
    return {str(k): str(v) for k, v in value.items() if isinstance(v, str)}
