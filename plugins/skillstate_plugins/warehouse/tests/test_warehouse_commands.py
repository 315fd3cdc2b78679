"""Warehouse command mode: the reference's exact texts, its gaps fixed, per-session worlds."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from skillstate_testing import EnvironmentConformance, make_host

from skillstate.plugin import InvalidInput
from skillstate.plugin.runtime import Runtime


class TestWarehouseCommandConformance(EnvironmentConformance):
    @pytest.fixture
    def environment_name(self) -> str:
        return "warehouse"

    @pytest.fixture
    def environment_actions(self) -> list[Any]:
        return ["Store item_A shelf_10", "Move item_A shelf_10 shelf_11", "Wait", "Complete"]

    @pytest.fixture
    def rejected_action(self) -> Any:
        return "Ship item_A shelf_10"


class TestWarehouseEpisodeConformance(EnvironmentConformance):
    @pytest.fixture
    def environment_name(self) -> str:
        return "warehouse"

    @pytest.fixture
    def environment_options(self) -> dict[str, Any]:
        return {"mode": "episode", "seed": 42, "horizon": 4, "noise": 5, "scenario": None}

    @pytest.fixture
    def environment_actions(self) -> list[Any]:
        # seed 42: receive item_0, maintenance on item_0's shelf, receive item_1, maintenance
        return [
            "Store item_0 shelf_0",
            "Move item_0 shelf_0 shelf_1",
            "Store item_1 shelf_0",
            "Wait",
        ]

    @pytest.fixture
    def rejected_action(self) -> Any:
        return "Store item_0 shelf_500"


def _env(options: dict[str, Any] | None = None, snapshot: Any = None) -> Any:
    host = make_host()
    try:
        return host.environment("warehouse").factory({} if options is None else options, snapshot)
    finally:
        host.close()


def P(n: int) -> str:
    return f"[WAREHOUSE · step {n}]"


def _run(actions: list[Any]) -> list[tuple[str, str]]:
    env = _env()
    return [(r.status, r.observation) for r in (env.execute(a, {}) for a in actions)]


@pytest.mark.parametrize(
    ("setup", "action", "status", "text"),
    [
        ([], "Store item_A shelf_10", "accepted", 'Success: Stored "item_A" on shelf_10.'),
        ([], "  sToRe item_A shelf_0 ", "accepted", 'Success: Stored "item_A" on shelf_0.'),
        ([], {"command": "Wait"}, "accepted", "Wait acknowledged; warehouse inventory unchanged."),
        ([], "Complete", "completed", "TASK COMPLETE."),
        ([], "Store item_A", "rejected", "Error: Usage: Store <item_id> <shelf_id>"),
        ([], "Store item_A shelf_1 extra", "rejected", "Error: Usage: Store <item_id> <shelf_id>"),
        ([], "Ship item_A", "rejected", "Error: Usage: Ship <item_id> <shelf_id>"),
        ([], "Move a b", "rejected", "Error: Usage: Move <item_id> <old_shelf> <new_shelf>"),
        ([], "Wait now", "rejected", "Error: Usage: Wait"),
        ([], "Store item_A shelf_500", "rejected", 'Error: Shelf "shelf_500" does not exist.'),
        ([], "Store item_A Shelf_1", "rejected", 'Error: Shelf "Shelf_1" does not exist.'),
        ([], "Store item_A shelf_07", "rejected", 'Error: Shelf "shelf_07" does not exist.'),
        (
            ["Store item_A shelf_10"],
            "Store item_B shelf_10",
            "rejected",
            'REJECTED: Shelf "shelf_10" is already occupied by "item_A". Cannot store "item_B". '
            "State transition rejected.",
        ),
        (
            ["Store item_A shelf_10"],
            "Store item_A shelf_11",
            "rejected",
            'REJECTED: Item "item_A" is already stored on shelf_10; an item cannot be stored '
            "twice. State transition rejected.",
        ),
        (
            ["Store item_A shelf_10"],
            "Ship item_A shelf_10",
            "accepted",
            'Success: Shipped "item_A" from shelf_10.',
        ),
        (
            [],
            "Ship item_A shelf_10",
            "rejected",
            'REJECTED: Shelf "shelf_10" does not contain "item_A" (contains "empty"). '
            "State transition rejected.",
        ),
        ([], "Ship item_A shelf_9999", "rejected", 'Error: Shelf "shelf_9999" does not exist.'),
        (
            ["Store item_A shelf_1"],
            "Move item_A shelf_1 shelf_2",
            "accepted",
            'Success: Moved "item_A" from shelf_1 to shelf_2.',
        ),
        (
            ["Store item_A shelf_1"],
            "Move item_A shelf_1 shelf_1",
            "rejected",
            'REJECTED: Old and new shelf are both "shelf_1"; a move needs two different shelves. '
            "State transition rejected.",
        ),
        (
            ["Store item_A shelf_1"],
            "Move item_A shelf_1 shelf_900",
            "rejected",
            'Error: Shelf "shelf_900" does not exist.',
        ),
        (
            [],
            "Move item_A shelf_1 shelf_2",
            "rejected",
            'REJECTED: Old shelf "shelf_1" does not contain "item_A". State transition rejected.',
        ),
        (
            ["Store item_A shelf_1", "Store item_B shelf_2"],
            "Move item_A shelf_1 shelf_2",
            "rejected",
            'REJECTED: New shelf "shelf_2" is already occupied. State transition rejected.',
        ),
        (
            [],
            "Dance around",
            "rejected",
            'Unknown action "Dance around". Allowed actions: Store, Ship, Move, Wait, Complete.',
        ),
        (
            [],
            "",
            "rejected",
            'Unknown action "". Allowed actions: Store, Ship, Move, Wait, Complete.',
        ),
        (
            [],
            {"type": "x"},
            "rejected",
            'Unknown action "". Allowed actions: Store, Ship, Move, Wait, Complete.',
        ),
        (
            [],
            "Skip",
            "rejected",
            'Unknown action "Skip". Allowed actions: Store, Ship, Move, Wait, Complete.',
        ),
    ],
)
def test_command_texts(setup: list[str], action: Any, status: str, text: str) -> None:
    results = _run([*setup, action])
    assert all(s == "accepted" for s, _ in results[:-1])
    assert results[-1] == (status, f"{P(len(setup) + 1)} {text}")


def test_all_500_shelves_exist_and_start_empty() -> None:
    env = _env()
    assert env.snapshot() == {"mode": "command", "executed": 0, "shelves": {}}
    for k in (0, 1, 99, 499):
        assert env.execute(f"Store item_{k} shelf_{k}", {}).status == "accepted"
    assert env.execute("Store item_x shelf_500", {}).status == "rejected"


def _runtime() -> Runtime:
    return Runtime(f"memory:wh-{uuid.uuid4().hex}")


def test_the_reference_example_through_the_runtime_rolls_back_the_patch() -> None:
    with _runtime() as rt:
        rt.initialize_skill("s", "warehouse", environment="warehouse")
        one = rt.execute_step("s", "r", {"inv": {"shelf_10": "item_A"}}, "Store item_A shelf_10")
        assert one["step"] == 1 and one["prompt_payload"]["current_state"] == {
            "inv": {"shelf_10": "item_A"}
        }
        two = rt.execute_step("s", "r", {"inv": {"shelf_10": "item_B"}}, "Store item_B shelf_10")
        assert two["step"] == 1 and two["meta"]["rolled_back"] is True
        assert two["meta"]["action_status"] == "failed"
        assert (
            two["meta"]["warning"] == "Action was rejected by environment; state patch rolled back."
        )
        assert two["prompt_payload"]["latest_observation"] == (
            f'{P(2)} REJECTED: Shelf "shelf_10" is already occupied by "item_A". '
            'Cannot store "item_B". State transition rejected.'
        )
        assert two["prompt_payload"]["current_state"] == {"inv": {"shelf_10": "item_A"}}
        three = rt.execute_step("s", "r", {"inv": {"shelf_10": None}}, "Ship item_A shelf_10")
        assert three["prompt_payload"]["current_state"] == {"inv": {}}
        assert rt.get_session("s")["metadata"]["environmentState"]["shelves"] == {}


def test_sessions_have_their_own_warehouse_and_a_recreated_id_starts_empty() -> None:
    with _runtime() as rt:
        rt.initialize_skill("a", "p", environment="warehouse")
        rt.initialize_skill("b", "p", environment="warehouse")
        rt.execute_step("a", "", {}, "Store item_A shelf_1")
        # the same shelf in another session is free (the reference shares one warehouse)
        out = rt.execute_step("b", "", {}, "Store item_Z shelf_1")
        assert out["meta"]["rolled_back"] is False
        shelves = rt.get_session("a")["metadata"]["environmentState"]["shelves"]
        assert shelves == {"shelf_1": "item_A"}


def test_noise_in_command_mode_is_appended_to_successes_and_rejections() -> None:
    env = _env({"noise": 2})
    ok = env.execute("Wait", {})
    assert ok.observation.startswith(f"{P(1)} Wait acknowledged; warehouse inventory unchanged.")
    assert (
        ok.observation.count("\n") == 4 and "\n\n--- BACKGROUND TELEMETRY ---\n" in ok.observation
    )
    bad = env.execute("Ship x shelf_1", {})
    assert bad.status == "rejected" and "--- BACKGROUND TELEMETRY ---" in bad.observation
    assert env.snapshot()["shelves"] == {}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ([], "warehouse environment options must be a JSON object, got list"),
        ({"colour": 1}, "unknown warehouse option colour; known options: mode, seed, horizon"),
        ({"mode": "chaos"}, "warehouse option mode must be command or episode, got 'chaos'"),
        ({"horizon": 5}, "warehouse option horizon applies only to mode episode"),
        ({"mode": "episode", "horizon": 0}, "warehouse option horizon must be an integer from 1"),
        ({"mode": "episode", "seed": "42"}, "warehouse option seed must be an integer from 0"),
        (
            {"noise": 7.5},
            "warehouse option noise must be a number of telemetry lines from 0 to 100",
        ),
        ({"noise": 101}, "warehouse option noise must be a number of telemetry lines"),
        (
            {"mode": "episode", "scenario": "heist"},
            "warehouse option scenario must be one of audit",
        ),
    ],
)
def test_bad_options_are_named(options: Any, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        _env(options)
    assert message in str(caught.value)


def test_bad_options_through_the_runtime_create_no_session() -> None:
    with _runtime() as rt:
        with pytest.raises(InvalidInput, match="unknown warehouse option"):
            rt.initialize_skill("s", "p", environment="warehouse", environment_options={"x": 1})
        assert rt.list_sessions(include_closed=True)["sessions"] == []


def test_noise_level_names() -> None:
    text = _env({"noise": "medium"}).execute("Wait", {}).observation
    assert len(text.split("--- BACKGROUND TELEMETRY ---\n")[1].splitlines()) == 20


@pytest.mark.parametrize(
    "shelves",
    [
        {"shelf_500": "x"},
        {"shelf_01": "x"},
        {"shelf_-1": "x"},
        {" shelf_1": "x"},
        {"shelf_1": 5},
        {"shelf_1": None},
        {"shelf_1": ["x"]},
        ["shelf_1"],
    ],
)
def test_a_tampered_snapshot_is_refused_with_a_reason(shelves: Any) -> None:
    with pytest.raises(InvalidInput, match="shelves must map shelf ids to item ids"):
        _env({}, {"mode": "command", "executed": 0, "shelves": shelves})


def test_a_snapshot_of_every_shelf_restores() -> None:
    full = {f"shelf_{n}": f"item_{n}" for n in range(500)}
    env = _env({}, {"mode": "command", "executed": 3, "shelves": full})
    assert env.snapshot()["shelves"] == full


def test_a_snapshot_of_the_wrong_mode_is_refused() -> None:
    with pytest.raises(InvalidInput, match="expected a command-mode snapshot"):
        _env({}, {"mode": "episode"})
