"""Warehouse episode mode: Algorithm 2's generator, scoring, telemetry noise, drift scenarios."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from skillstate_testing import make_host

from ..generator import generate
from ..noise import telemetry_lines

HEADER = "--- BACKGROUND TELEMETRY ---"  # App. C's header, as the paper writes it


def _env(**options: Any) -> Any:
    host = make_host()
    try:
        return host.environment("warehouse").factory({"mode": "episode", **options}, None)
    finally:
        host.close()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), horizon=st.integers(1, 120))
def test_generator_properties(seed: int, horizon: int) -> None:
    episode = generate(seed, horizon)
    assert len(episode.events) == horizon
    assert episode == generate(seed, horizon)  # same seed → identical stream
    assert generate(seed, horizon + 5).events[:horizon] == episode.events  # a prefix
    items = [e.item for e in episode.events if e.kind == "receive"]
    assert items == [f"item_{n}" for n in range(len(items))]


def test_generator_ground_truth_follows_algorithm_2() -> None:
    for seed in range(42, 47):
        events = generate(seed, 200).events
        assert events[0].kind == "receive"
        where: dict[str, str | None] = {}  # item -> its shelf (None: moved somewhere unknown)
        for event in events:
            if event.kind == "receive":
                assert event.item not in where and event.shelf not in where.values()
                where[event.item] = event.shelf
                continue
            assert where, "Order and Maintenance only when a shelf is occupied"
            assert event.item in where and where[event.item] in (None, event.shelf)
            if event.kind == "order":
                del where[event.item]
            else:
                where[event.item] = None  # maintenance moved it to an empty shelf
        assert {e.kind for e in events} == {"receive", "order", "maintenance"}


def test_five_seeds_give_five_streams() -> None:
    streams = {generate(42 + i, 50).events for i in range(5)}
    assert len(streams) == 5


def test_observation_texts_and_the_paper_wording() -> None:
    env = _env(seed=42, horizon=3)
    assert env.initial_observation() == "Shipment arrived containing item_0."
    first = env.execute("Store item_0 shelf_15", {})
    assert first.status == "accepted" and first.details == {"event": 0, "correct": True}
    assert first.observation == (
        "Success: Stored item_0 on shelf_15.\nMaintenance required on shelf_15."
    )
    second = env.execute("Move item_0 shelf_15 shelf_16", {})
    assert second.observation == (
        "Success: Moved item_0 from shelf_15 to shelf_16.\nShipment arrived containing item_1."
    )
    last = env.execute("Store item_1 shelf_3", {})
    assert last.status == "completed"
    assert last.observation == (
        "Success: Stored item_1 on shelf_3.\nEpisode complete: 3 events, 3 handled correctly "
        "(score 1.00)."
    )
    assert env.score()["score"] == 1.0


def _oracle_actions(env: Any) -> None:
    """Answer every event from the environment's own live world (a test-side oracle)."""
    while env.cursor < env.options.horizon:
        event = env.episode.events[env.cursor]
        free = next(f"shelf_{k}" for k in range(500) if f"shelf_{k}" not in env.shelves)
        if event.kind == "receive":
            action = f"Store {event.item} {free}"
        elif event.kind == "order":
            shelf = next(s for s, i in env.shelves.items() if i == event.item)
            action = f"Ship {event.item} {shelf}"
        else:
            action = f"Move {env.shelves[env.target]} {env.target} {free}"
        assert env.execute(action, {}).status in ("accepted", "completed")


def test_a_correct_answer_to_every_event_scores_one_and_wait_scores_zero() -> None:
    env = _env(seed=7, horizon=60)
    _oracle_actions(env)
    assert env.score() == {
        "events": 60,
        "handled": 60,
        "actionable": 60,
        "successes": 60,
        "score": 1.0,
        "failed_events": [],
    }
    waiter = _env(seed=7, horizon=60)
    for _ in range(60):
        waiter.execute("Wait", {})
    assert waiter.score()["score"] == 0.0 and waiter.score()["handled"] == 60


def test_a_rejected_action_changes_nothing_and_restates_the_event() -> None:
    env = _env(seed=42, horizon=5)
    env.execute("Store item_0 shelf_1", {})
    env.execute("Move item_0 shelf_1 shelf_2", {})
    before = env.snapshot()
    rejected = env.execute("Store item_1 shelf_2", {})  # occupied
    assert rejected.status == "rejected"
    assert rejected.observation == (
        'REJECTED: Shelf "shelf_2" is already occupied by "item_0". Cannot store "item_1". '
        "State transition rejected.\nShipment arrived containing item_1."
    )
    assert env.snapshot() == before  # this instance is discarded anyway; nothing changed
    assert env.execute("Store item_7 shelf_9", {}).observation.startswith(
        'REJECTED: Item "item_7" is not waiting at the dock'
    )
    assert env.execute("Complete", {}).observation.startswith(
        'Unknown action "Complete". Allowed actions: Store, Ship, Move, Wait, Skip.'
    )


def test_an_accepted_but_wrong_action_loses_the_event() -> None:
    env = _env(seed=42, horizon=3)
    env.execute("Store item_0 shelf_1", {})
    wrong = env.execute("Wait", {})  # maintenance needed
    assert wrong.details == {"event": 1, "correct": False}
    skipped = env.execute("Skip", {})  # event 2: item_1 arrived; nobody stored it
    assert skipped.status == "completed"
    assert skipped.observation.splitlines()[:2] == [
        "Skipped: the event was not handled.",
        "Floor staff stored item_1 on shelf_0.",
    ]
    assert env.shelves == {"shelf_1": "item_0", "shelf_0": "item_1"} and env.dock == []
    assert env.score()["failed_events"] == [1, 2]


@pytest.mark.parametrize("level", [0, 5, 20, 50])
def test_noise_adds_exactly_k_lines_and_never_changes_the_world(level: int) -> None:
    quiet = _env(seed=11, horizon=40)
    noisy = _env(seed=11, horizon=40, noise=level, noise_seed=99)
    assert noisy.episode == quiet.episode
    first = noisy.initial_observation()
    for env in (quiet, noisy):
        _oracle_actions(env)
    assert noisy.snapshot() == quiet.snapshot()
    assert noisy.score() == quiet.score()
    if level == 0:
        assert HEADER not in first
    else:
        head, tail = first.split(f"\n\n{HEADER}\n")
        assert head == "Shipment arrived containing item_0."
        assert len(tail.splitlines()) == level


def test_noise_is_seeded_separately_and_per_observation() -> None:
    a = telemetry_lines(1, "0", 20)
    assert a == telemetry_lines(1, "0", 20)
    assert a != telemetry_lines(2, "0", 20) and a != telemetry_lines(1, "1", 20)
    templates = (
        r"Battery: \d+%, Temperature: \d+C, CPU Load: \d+%, Speed: \d+\.\d m/s, "
        r"Nav Confidence: \d+\.\d%",
        r"\[Sensor\] Humidity: \d+%, Temp: \d+\.\dC, Light: \d+ lux, CO2: \d+ ppm",
        r"\[Camera OCR\] (Forklift parked\.|Worker entered Zone A\.|Safety Vest Detected\.)",
    )
    for line in telemetry_lines(5, "x", 200):
        assert any(re.fullmatch(t, line) for t in templates), line


@pytest.mark.parametrize("scenario", ["audit", "barcode", "move", "canceled-order"])
def test_drift_scenarios_force_three_events_and_keep_the_horizon(scenario: str) -> None:
    episode = generate(42, 30, scenario, 10)
    assert len(episode.events) == 30
    plan = episode.drift
    assert plan is not None and plan.scenario == scenario and plan.at >= 10
    assert plan.follow_up == plan.at + 2
    follow = episode.events[plan.follow_up]
    expected = {"audit": "order", "barcode": "order", "move": "maintenance"}
    assert follow.kind == expected.get(scenario, "maintenance")
    if scenario == "barcode":
        assert follow.item == plan.new_item != plan.item
    else:
        assert follow.item == plan.item


def _answer(env: Any, free_from: int = 0) -> str:
    event = env.episode.events[env.cursor]
    free = next(f"shelf_{k}" for k in range(free_from, 500) if f"shelf_{k}" not in env.shelves)
    if event.kind == "receive":
        return f"Store {event.item} {free}"
    if event.kind == "order":
        shelf = next(s for s, i in env.shelves.items() if i == event.item)
        return f"Ship {event.item} {shelf}"
    return f"Move {env.shelves[env.target]} {env.target} {free}"


def _drive_to(env: Any, index: int) -> None:
    while env.cursor < index:
        assert env.execute(_answer(env), {}).status in ("accepted", "completed")


def test_audit_drift_is_silent_then_alerted_and_the_stale_shelf_is_rejected() -> None:
    env = _env(seed=42, horizon=30, scenario="audit", drift_at=10)
    plan = env.episode.drift
    _drive_to(env, plan.at - 1)
    silent = env.execute(_answer(env), {})  # delivers event `at`, after the silent drift
    assert "ALERT" not in silent.observation
    drift = env.drift
    assert drift["applied"] is True and drift["item"] == plan.item
    assert env.shelves.get(drift["true"]) == plan.item and drift["stale"] != drift["true"]
    assert env.shelves.get(drift["stale"]) != plan.item
    alerted = env.execute(_answer(env, 400), {})  # delivers event at + 1 with the alert
    assert alerted.observation.splitlines()[1] == (
        f"ALERT (cycle count audit): {plan.item} is not on {drift['stale']}. "
        f"Floor scanner: {plan.item} is on {drift['true']}."
    )
    env.execute(_answer(env, 400), {})
    assert env.cursor == plan.follow_up
    assert env.episode.events[env.cursor].kind == "order"
    assert env.execute(f"Ship {plan.item} {drift['stale']}", {}).status == "rejected"
    right = env.execute(f"Ship {plan.item} {drift['true']}", {})
    assert right.details == {"event": plan.follow_up, "correct": True}


@pytest.mark.parametrize(
    ("scenario", "pattern"),
    [
        (
            "barcode",
            r"ALERT \(barcode correction\): the item on shelf_\d+ is item_\d+, not item_\d+; "
            r"its label was misread at receiving\.",
        ),
        (
            "move",
            r"ALERT \(floor log\): a worker moved item_\d+ from shelf_\d+ to shelf_\d+ "
            r"outside the system\.",
        ),
    ],
)
def test_barcode_and_move_alerts(scenario: str, pattern: str) -> None:
    env = _env(seed=5, horizon=30, scenario=scenario, drift_at=8)
    plan = env.episode.drift
    _drive_to(env, plan.at + 1)
    assert re.fullmatch(pattern, env._pending_text().splitlines()[0])
    _drive_to(env, 30)
    assert env.score()["score"] == 1.0  # answered from the live world: all correct


def test_canceled_order_returns_the_item_silently() -> None:
    env = _env(seed=3, horizon=20, scenario="canceled-order", drift_at=5)
    plan = env.episode.drift
    _drive_to(env, plan.at + 1)  # the order was shipped; the item comes back unannounced
    assert env.drift["applied"] is True
    assert env.shelves[env.drift["true"]] == plan.item
    text = env._pending_text()
    assert "ALERT" not in text
    env.execute(f"Store {env.episode.events[env.cursor].item} shelf_450", {})
    assert env.target == env.drift["true"]
