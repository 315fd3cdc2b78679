"""The seeded event generator: the paper's Algorithm 2, plus the drift scenarios' forced events.

Algorithm 2, as implemented (``random.Random(seed)``; shelves sorted by number, so the
stream depends only on the seed and the horizon)::

    for i in 0 .. horizon-1:
        possible = [receive] + ([order, maintenance] if a shelf is occupied)
        kind = rng.choice(possible)
        receive:     item_{n} (n = 0, 1, …) goes to rng.choice(empty shelves)
        order:       the item on rng.choice(occupied shelves) leaves the ground truth
        maintenance: the item on rng.choice(occupied shelves) moves to rng.choice(empty shelves)

The generator keeps its own ground-truth world; the agent's actions change a
separate live world (``environment.py``), so the stream is the same for every
runtime and policy. An :class:`Event` names its item; a maintenance event's shelf
is resolved against the live world when it is delivered.

A drift scenario (``drift.py``) forces three events from the drift point ``at``
(postponed until a shelf is occupied): ``at`` and ``at + 1`` are Receives (the
alert rides on ``at + 1``), ``at + 2`` is the follow-up on the drifted item. For
``canceled-order``, ``at`` is an Order of the item and ``at + 2`` a Maintenance on
the shelf it silently returns to.
"""

from __future__ import annotations

import functools
import random

import attrs

from .commands import SHELF_COUNT, shelf_number

__all__ = ["DriftDoesNotFit", "DriftPlan", "Episode", "Event", "generate"]

ALL_SHELVES = tuple(f"shelf_{k}" for k in range(SHELF_COUNT))


class DriftDoesNotFit(ValueError):
    """A drift scenario that cannot be placed within the horizon (never skipped silently)."""


@attrs.frozen
class Event:
    """One event: ``kind`` (receive/order/maintenance), its ``item``, the ground-truth ``shelf``."""

    kind: str
    item: str
    shelf: str


@attrs.frozen
class DriftPlan:
    """Where a scenario's drift happens in the ground truth.

    ``at`` — the event before which the world drifts (``canceled-order``: after which);
    ``item`` — the drifted item; ``stale`` / ``true`` — its shelf before and after;
    ``new_item`` — the relabelled id (``barcode``); ``follow_up`` — the event about it.
    """

    scenario: str
    at: int
    item: str
    stale: str
    true: str
    new_item: str | None
    follow_up: int


@attrs.frozen
class Episode:
    events: tuple[Event, ...]
    drift: DriftPlan | None


class _World:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.gt: dict[str, str] = {}
        self.counter = 0

    def occupied(self) -> list[str]:
        return sorted(self.gt, key=shelf_number)

    def empty_shelf(self) -> str:
        return self.rng.choice([s for s in ALL_SHELVES if s not in self.gt])

    def receive(self) -> Event:
        item = f"item_{self.counter}"
        self.counter += 1
        shelf = self.empty_shelf()
        self.gt[shelf] = item
        return Event("receive", item, shelf)

    def order(self, shelf: str) -> Event:
        return Event("order", self.gt.pop(shelf), shelf)

    def maintenance(self, shelf: str) -> Event:
        item = self.gt.pop(shelf)
        self.gt[self.empty_shelf()] = item
        return Event("maintenance", item, shelf)

    def random_event(self) -> Event:
        occupied = self.occupied()
        possible = ["receive"] + (["order", "maintenance"] if occupied else [])
        kind = self.rng.choice(possible)
        if kind == "receive":
            return self.receive()
        shelf = self.rng.choice(occupied)
        return self.order(shelf) if kind == "order" else self.maintenance(shelf)


def _drift(world: _World, scenario: str, at: int) -> tuple[list[Event], DriftPlan]:
    stale = world.rng.choice(world.occupied())
    item = world.gt[stale]
    if scenario == "canceled-order":
        first = world.order(stale)
        true = world.empty_shelf()
        world.gt[true] = item  # the canceled order's item comes back, silently
        events = [first, world.receive(), Event("maintenance", item, true)]
        world.gt[world.empty_shelf()] = world.gt.pop(true)
        return events, DriftPlan(scenario, at, item, stale, true, None, at + 2)
    new_item = None
    true = stale
    if scenario == "barcode":
        new_item = f"item_{world.counter}"
        world.counter += 1
        world.gt[stale] = new_item
    else:  # audit, move: the item is somewhere else
        true = world.empty_shelf()
        world.gt[true] = world.gt.pop(stale)
    events = [world.receive(), world.receive()]
    if scenario == "move":
        events.append(world.maintenance(true))
    else:
        events.append(world.order(true))
    return events, DriftPlan(scenario, at, item, stale, true, new_item, at + 2)


@functools.lru_cache(maxsize=64)
def generate(seed: int, horizon: int, scenario: str | None = None, at: int = 0) -> Episode:
    """The event stream for ``seed`` and ``horizon`` (``len(events) == horizon``), cached."""
    world = _World(random.Random(seed))
    events: list[Event] = []
    plan: DriftPlan | None = None
    while len(events) < horizon:
        i = len(events)
        if scenario and plan is None and i >= at and world.gt and i + 3 <= horizon:
            forced, plan = _drift(world, scenario, i)
            events.extend(forced)
            continue
        events.append(world.random_event())
    if scenario and plan is None:
        raise DriftDoesNotFit(
            f"warehouse scenario {scenario} does not fit: its 3 forced events start at the first "
            f"event at or after drift_at={at} with an occupied shelf, and must end by the horizon "
            f"({horizon}); use a smaller drift_at or a longer horizon"
        )
    return Episode(tuple(events), plan)
