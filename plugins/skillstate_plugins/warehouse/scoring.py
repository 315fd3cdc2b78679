"""Scoring: which action answers an event, and the episode's score.

Score = successful actions / actionable events (§4.3). Rules (the paper leaves them
open; ``docs/warehouse.md`` records them):

- every generated event is actionable: Receive → ``Store <item> <any empty shelf>``,
  Order → ``Ship <item> <its shelf>``, Maintenance on a shelf → ``Move <the item on
  it> <that shelf> <any empty shelf>``, each checked against the live world;
- an event is scored once, by the first action the environment **accepts** while it
  is pending; ``Wait``, ``Skip`` and any other accepted action score 0;
- a rejected action changes nothing (the event stays pending); the episode runner
  decides how many rejections an event may take before it gives the event up with
  ``Skip`` (default: none — one rejected Store loses exactly one event);
- an arrival the agent did not store is shelved by the floor staff on the lowest free
  shelf, and the next observation says so (``Floor staff stored item_1 on shelf_0.``):
  a missed Receive costs that one event, not every later event about the item — as
  long as the agent records what it is told;
- an event the live world cannot satisfy (e.g. after a drift the agent never learnt
  about) is simply lost.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .commands import Command
from .generator import Event

__all__ = ["event_text", "is_correct", "score_summary"]


def event_text(event: Event, target: str | None) -> str:
    """The observation line announcing ``event`` (``target``: its live maintenance shelf)."""
    if event.kind == "receive":
        return f"Shipment arrived containing {event.item}."
    if event.kind == "order":
        return f"Customer ordered {event.item}."
    return f"Maintenance required on {target or event.shelf}."


def is_correct(event: Event, target: str | None, command: Command) -> bool:
    """Whether an accepted ``command`` answers ``event``."""
    if event.kind == "receive":
        return command.verb == "store" and command.args[0] == event.item
    if event.kind == "order":
        return command.verb == "ship" and command.args[0] == event.item
    return command.verb == "move" and command.args[1] == (target or event.shelf)


def score_summary(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """The score of an episode-mode snapshot: events, successes, score, failed event indices."""
    results = str(snapshot.get("results", ""))
    horizon = int(snapshot.get("horizon", len(results)))
    successes = results.count("1")
    return {
        "events": horizon,
        "handled": len(results),
        "actionable": horizon,
        "successes": successes,
        "score": successes / horizon if horizon else 0.0,
        "failed_events": [i for i, r in enumerate(results) if r != "1"],
    }
