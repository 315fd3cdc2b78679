"""The warehouse's command grammar, world rules and exact observation texts.

The world is a mapping of **occupied** shelves (``shelf_k`` → item id) over the 500
shelves ``shelf_0`` … ``shelf_499`` (no zero padding; ids are case-sensitive,
verbs are not). Commands (exact arity — extra tokens are a usage error):

- ``Store <item> <shelf>``, ``Ship <item> <shelf>``, ``Move <item> <old> <new>``,
  ``Wait``; ``Complete`` (command mode) and ``Skip`` (episode mode).

Rejection texts are the reference runtime's (``REJECTED: … State transition
rejected.``, ``Error: Usage: …``), plus our own for the gaps it leaves open (a
missing shelf on Ship and Move, a Move onto the same shelf, an item stored twice,
and — in episode mode — an item that is not waiting at the dock). Success texts
come in two wordings: the reference runtime's (``Success: Stored "item_1" on
shelf_3.``) in command mode and the paper's B.3 wording (``Success: Shipped
item_12 from shelf_42.``) in episode mode.
"""

from __future__ import annotations

from collections.abc import Mapping

from skillstate_plugins.bench import Command, Outcome, raw_action

__all__ = [
    "SHELF_COUNT",
    "SHELF_IDS",
    "Command",
    "Outcome",
    "apply_command",
    "is_shelf",
    "parse_command",
    "raw_action",
    "shelf_number",
]

SHELF_COUNT = 500
_USAGE = {
    "store": "Store <item_id> <shelf_id>",
    "ship": "Ship <item_id> <shelf_id>",
    "move": "Move <item_id> <old_shelf> <new_shelf>",
    "wait": "Wait",
    "complete": "Complete",
    "skip": "Skip",
}
_ARITY = {"store": 2, "ship": 2, "move": 3, "wait": 0, "complete": 0, "skip": 0}


SHELF_IDS = frozenset(f"shelf_{n}" for n in range(SHELF_COUNT))
"""Every shelf id: ``shelf_0`` … ``shelf_499`` (no leading zeros)."""


def is_shelf(name: str) -> bool:
    """``shelf_0`` … ``shelf_499`` exactly."""
    return name in SHELF_IDS


def shelf_number(name: str) -> int:
    """The number of a shelf id (``shelf_42`` → 42); for sorting shelves numerically."""
    return int(name[6:])


def parse_command(raw: str, verbs: tuple[str, ...]) -> Command | Outcome:
    """``raw`` split on whitespace; an :class:`Outcome` (rejected) when it is not a command."""
    parts = raw.split()
    verb = parts[0].lower() if parts else ""
    if verb not in verbs:
        allowed = ", ".join(v.capitalize() for v in verbs)
        return Outcome("rejected", f'Unknown action "{raw}". Allowed actions: {allowed}.')
    args = tuple(parts[1:])
    if len(args) != _ARITY[verb]:
        return Outcome("rejected", f"Error: Usage: {_USAGE[verb]}")
    return Command(verb, args)


def _missing_shelf(*shelves: str) -> Outcome | None:
    for shelf in shelves:
        if not is_shelf(shelf):
            return Outcome("rejected", f'Error: Shelf "{shelf}" does not exist.')
    return None


def _where(shelves: Mapping[str, str], item: str) -> str | None:
    for shelf, held in shelves.items():
        if held == item:
            return shelf
    return None


def apply_command(
    shelves: dict[str, str],
    command: Command,
    *,
    paper_wording: bool,
    dock: list[str] | None = None,
) -> Outcome:
    """Check ``command`` against the world and, when valid, change ``shelves`` (and ``dock``).

    ``dock`` (episode mode) holds items that have arrived and are not stored yet: Store
    takes its item from there. A rejected command changes nothing.
    """
    verb, args = command.verb, command.args
    quote = (lambda s: s) if paper_wording else (lambda s: f'"{s}"')
    if verb == "store":
        item, shelf = args
        problem = _missing_shelf(shelf)
        if problem:
            return problem
        if shelf in shelves:
            return Outcome(
                "rejected",
                f'REJECTED: Shelf "{shelf}" is already occupied by "{shelves[shelf]}". '
                f'Cannot store "{item}". State transition rejected.',
            )
        elsewhere = _where(shelves, item)
        if elsewhere is not None:
            return Outcome(
                "rejected",
                f'REJECTED: Item "{item}" is already stored on {elsewhere}; an item cannot be '
                "stored twice. State transition rejected.",
            )
        if dock is not None:
            if item not in dock:
                return Outcome(
                    "rejected",
                    f'REJECTED: Item "{item}" is not waiting at the dock (only arrived, unstored '
                    "items can be stored). State transition rejected.",
                )
            dock.remove(item)
        shelves[shelf] = item
        return Outcome("accepted", f"Success: Stored {quote(item)} on {shelf}.", command)
    if verb == "ship":
        item, shelf = args
        problem = _missing_shelf(shelf)
        if problem:
            return problem
        if shelves.get(shelf) != item:
            current = shelves.get(shelf, "empty")
            return Outcome(
                "rejected",
                f'REJECTED: Shelf "{shelf}" does not contain "{item}" (contains "{current}"). '
                "State transition rejected.",
            )
        del shelves[shelf]
        return Outcome("accepted", f"Success: Shipped {quote(item)} from {shelf}.", command)
    if verb == "move":
        item, old, new = args
        problem = _missing_shelf(old, new)
        if problem:
            return problem
        if old == new:
            return Outcome(
                "rejected",
                f'REJECTED: Old and new shelf are both "{old}"; a move needs two different '
                "shelves. State transition rejected.",
            )
        if shelves.get(old) != item:
            return Outcome(
                "rejected",
                f'REJECTED: Old shelf "{old}" does not contain "{item}". State transition rejected.',
            )
        if new in shelves:
            return Outcome(
                "rejected",
                f'REJECTED: New shelf "{new}" is already occupied. State transition rejected.',
            )
        del shelves[old]
        shelves[new] = item
        return Outcome("accepted", f"Success: Moved {quote(item)} from {old} to {new}.", command)
    if verb == "wait":
        return Outcome("accepted", "Wait acknowledged; warehouse inventory unchanged.", command)
    if verb == "complete":
        return Outcome("completed", "TASK COMPLETE.", command)
    return Outcome("accepted", "Skipped: the event was not handled.", command)
