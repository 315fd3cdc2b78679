"""The episode runner: oracle scores, the always-Wait floor, rejections, retries, drift
recovery, and the structural Table 1 / Table 5 results (no LLM)."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from skillstate.plugin.runtime import Runtime
from skillstate_plugins.bench import (
    EpisodeConfig,
    EpisodeResult,
    Reply,
    TurnView,
    format_reply,
    run_episode,
)

from ..bench.policies import OraclePolicy
from ..benchmark import WAREHOUSE_BENCHMARK


class WaitPolicy:
    """Always ``Wait`` with an empty patch: the floor of the score (``--policy wait``)."""

    name = "wait"

    def respond(self, view: TurnView) -> Reply:
        return Reply(format_reply(view.runtime, "Waiting", {}, "Wait"))


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(f"memory:bench-{uuid.uuid4().hex}") as rt:
        yield rt


def _run(rt: Runtime, policy: Any = None, **config: Any) -> EpisodeResult:
    return run_episode(WAREHOUSE_BENCHMARK, EpisodeConfig(**config), policy or OraclePolicy(), rt)


@pytest.mark.parametrize("horizon", [10, 25, 50, 100, 200])
def test_oracle_scores_one_at_every_horizon(runtime: Runtime, horizon: int) -> None:
    result = _run(runtime, horizon=horizon)
    assert result.score == 1.0 and result.calls == horizon and result.rejections == {}
    session = runtime.get_session(result.session_id)
    assert session["metadata"]["status"] == "completed"
    assert session["metadata"]["stepCount"] == horizon
    # Σ is the live world: the oracle kept the inventory in Σ through patches
    world = session["metadata"]["environmentState"]["shelves"]
    assert session["execution_state"]["inventory"] == world


@pytest.mark.parametrize("noise", [0, 5, 20, 50])
@pytest.mark.parametrize("kind", ["skill-state", "react", "memory", "stateful"])
def test_oracle_scores_one_at_every_noise_level_and_runtime(
    runtime: Runtime, noise: int, kind: str
) -> None:
    result = _run(runtime, runtime=kind, horizon=30, noise=noise, seed=43)
    assert result.score == 1.0
    if noise:
        assert all(
            t.observation.count("\n") >= noise for t in result.turns
        )  # every observation carried its telemetry


def test_noise_never_enters_sigma(runtime: Runtime) -> None:
    result = _run(runtime, horizon=40, noise=50)
    state = runtime.get_session(result.session_id)["execution_state"]
    assert "Battery" not in str(state) and "Sensor" not in str(state)


def test_always_wait_scores_zero(runtime: Runtime) -> None:
    result = _run(runtime, WaitPolicy(), horizon=25)
    assert result.score == 0.0 and result.successes == 0 and result.calls == 25


def test_one_rejected_store_loses_exactly_one_event(runtime: Runtime) -> None:
    result = _run(runtime, OraclePolicy(collide_at=2), horizon=50)
    assert result.rejections == {"env_rejected": 1} and result.skipped == 1
    assert result.successes == 49 and result.score == pytest.approx(0.98)
    rejected = [t for t in result.turns if t.outcome == "rejected"]
    assert len(rejected) == 1 and rejected[0].skipped
    assert rejected[0].action is not None and rejected[0].action.startswith("Store ")


def test_with_env_retries_the_policy_gets_another_attempt(runtime: Runtime) -> None:
    result = _run(runtime, OraclePolicy(collide_at=2), horizon=50, env_retries=1)
    assert result.score == 1.0 and result.calls == 51 and result.skipped == 0
    retry = next(t for t in result.turns if t.outcome == "rejected")
    nxt = result.turns[retry.call + 1]
    assert nxt.event == retry.event and nxt.outcome == "accepted"
    assert nxt.observation.startswith("REJECTED: Shelf")


class Scripted:
    """Replies from a list, then falls back to the oracle."""

    name = "scripted"

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.views: list[TurnView] = []
        self.oracle = OraclePolicy()

    def respond(self, view: TurnView) -> Reply:
        self.views.append(view)
        if self.replies:
            return Reply(self.replies.pop(0))
        return self.oracle.respond(view)


def test_bad_replies_are_rolled_back_and_retried_with_the_error(runtime: Runtime) -> None:
    bad_json = 'Thinking.\n```json\n{"state_patch": {"inventory": {}}, "action": "Wait",,}\n```'
    wrong_keys = '```json\n{"state_patch": {}, "action": "Wait", "x": 1}\n```'
    policy = Scripted([bad_json, wrong_keys])
    result = _run(runtime, policy, horizon=10)
    assert result.rejections == {"json_parse_error": 1, "wrong_key_set": 1}
    assert result.score == 1.0 and result.calls == 12
    retry_view = policy.views[1]
    assert retry_view.observation.startswith("[TURN REJECTED: json_parse_error]")
    assert retry_view.observation.endswith("Shipment arrived containing item_0.")
    assert policy.views[2].observation.startswith("[TURN REJECTED: wrong_key_set]")
    assert retry_view.state == {"inventory": {}}
    # the session's own O is the retry text: a restarted client would see the same prompt
    assert result.turns[0].result == retry_view.observation


def test_schema_violations_roll_back_and_count(runtime: Runtime) -> None:
    drop = '```json\n{"state_patch": {"inventory": null}, "action": "Store item_0 shelf_0"}\n```'
    policy = Scripted([drop])
    result = _run(runtime, policy, horizon=5)
    assert result.rejections == {"schema_violation": 1}
    assert policy.views[1].observation.startswith("[STATE SCHEMA VIOLATION]")
    assert "Shipment arrived containing item_0." in policy.views[1].observation
    assert result.score == 1.0


def test_retries_exhausted_give_the_event_up(runtime: Runtime) -> None:
    policy = Scripted(["no json here"] * 3)
    result = _run(runtime, policy, horizon=5, retries=2)
    assert result.rejections == {"no_json_block": 3}
    assert result.skipped == 1 and result.successes == 4
    assert result.turns[2].skipped


def test_with_no_retries_the_next_observation_still_says_why_the_reply_was_refused(
    runtime: Runtime,
) -> None:
    drop = '```json\n{"state_patch": {"inventory": null}, "action": "Store item_0 shelf_0"}\n```'
    policy = Scripted(["no json here", drop])
    result = _run(runtime, policy, horizon=5, retries=0)
    assert result.turns[0].skipped and result.turns[1].skipped  # each given up at once
    after = policy.views[1].observation
    assert after.startswith("[TURN REJECTED: no_json_block] ")  # why, then the skip
    assert "\nSkipped: the event was not handled.\n" in after
    assert policy.views[2].observation.startswith("[STATE SCHEMA VIOLATION]")
    assert result.turns[0].result == after  # the session's O says so too


def test_baselines_send_no_state_and_history_grows(runtime: Runtime) -> None:
    policy = Scripted([])
    _run(runtime, policy, runtime="react", horizon=6)
    assert [v.state for v in policy.views] == [None] * 6
    assert [len(v.history) for v in policy.views] == [0, 1, 2, 3, 4, 5]
    assert "Observation: Shipment arrived containing item_0." in policy.views[5].prompt


def test_skill_state_prompt_is_only_p_sigma_o(runtime: Runtime) -> None:
    policy = Scripted([])
    result = _run(runtime, policy, horizon=12)
    for view in policy.views[1:]:
        assert view.prompt.count("Latest Observation:") == 1
        assert view.history == ()
        assert policy.views[0].observation not in view.prompt
    assert result.score == 1.0


def _ratio(values: list[float]) -> float:
    return max(values) / min(values)


def test_table_1_shape_flat_skill_state_linear_history_quadratic_totals(runtime: Runtime) -> None:
    horizons = [10, 25, 50, 100, 200]
    avg: dict[str, list[float]] = {}
    total: dict[str, dict[int, int]] = {}
    for kind in ("skill-state", "react", "stateful"):
        for horizon in horizons:
            data = _run(runtime, runtime=kind, horizon=horizon).to_dict()
            avg.setdefault(kind, []).append(data["avg_prompt_chars"])
            total.setdefault(kind, {})[horizon] = data["total_prompt_chars"]
    assert _ratio(avg["skill-state"]) <= 1.1
    for kind in ("react", "stateful"):
        assert avg[kind][-1] > 5 * avg[kind][0]
        assert 3.0 < total[kind][200] / total[kind][100] < 4.5
    assert 1.8 < total["skill-state"][200] / total["skill-state"][100] < 2.3


def test_history_prompts_grow_by_about_a_constant_per_step(runtime: Runtime) -> None:
    sizes = _run(runtime, runtime="react", horizon=100).prompt_chars
    steps = [b - a for a, b in itertools.pairwise(sizes)]
    assert min(steps) > 0
    mean = sum(steps) / len(steps)
    assert 100 < mean < 300


def test_sliding_window_loses_early_allocations(runtime: Runtime) -> None:
    scores = {h: _run(runtime, runtime="window", horizon=h).score for h in (10, 50, 200)}
    assert scores[10] == 1.0
    assert scores[50] < 0.8 and scores[200] < scores[50]
    for h in (50, 200):
        result = _run(runtime, runtime="window", horizon=h)
        assert max(result.prompt_chars) <= 2600
        assert _run(runtime, horizon=h).score == 1.0  # SKILL.state under the same budget


@pytest.mark.parametrize("scenario", ["audit", "barcode", "move"])
def test_oracle_recovers_from_drift_with_zero_lag(runtime: Runtime, scenario: str) -> None:
    for kind in ("skill-state", "react"):
        result = _run(runtime, runtime=kind, horizon=30, scenario=scenario, drift_at=10)
        assert result.recovery is not None
        assert result.recovery["recovered"] is True and result.recovery["lag"] == 0
        assert result.score == 1.0


def test_a_policy_that_ignores_the_alert_keeps_hallucinating(runtime: Runtime) -> None:
    result = _run(
        runtime,
        OraclePolicy(use_alerts=False),
        horizon=30,
        scenario="audit",
        drift_at=10,
        env_retries=3,
    )
    assert result.recovery == {
        "scenario": "audit",
        "drift_event": result.recovery["drift_event"],
        "follow_up_event": result.recovery["drift_event"] + 2,
        "recovered": False,
        "lag": None,
        "stale_turns": 4,
    }
    assert result.rejections["env_rejected"] == 4 and result.skipped == 1


def test_canceled_order_cannot_be_recovered_by_anyone(runtime: Runtime) -> None:
    result = _run(runtime, horizon=30, scenario="canceled-order", drift_at=10)
    assert result.recovery is not None and result.recovery["recovered"] is False
    assert result.recovery["lag"] is None and result.score < 1.0


def test_json_report_has_separate_char_and_token_columns(runtime: Runtime) -> None:
    data = _run(runtime, horizon=10).to_dict(turns=True)
    assert data["avg_prompt_tokens_est"] == pytest.approx(data["avg_prompt_chars"] / 4, abs=1)
    assert data["calls"] == 10 and len(data["turns"]) == 10
    assert data["usage_prompt_tokens"] is None


def test_the_stateful_baseline_takes_a_t_3_flat_update_and_keeps_its_action(
    runtime: Runtime,
) -> None:
    flat = 'Reasoning: stored.\nStateUpdate: {"shelf_0": "item_0"}\nAction: Store item_0 shelf_0'
    policy = Scripted([flat])
    result = _run(runtime, policy, runtime="stateful", horizon=5)
    assert result.turns[0].outcome == "accepted" and result.turns[0].category is None
    state = runtime.get_session(result.session_id)["execution_state"]
    assert state["shelf_0"] == "item_0"  # A.3's flat shape is merged as written (no strict schema)


def test_with_no_env_retries_the_next_observation_still_says_why(runtime: Runtime) -> None:
    policy = Scripted([])
    policy.oracle = OraclePolicy(collide_at=2)
    result = _run(runtime, policy, horizon=10)
    rejected = next(t for t in result.turns if t.outcome == "rejected")
    assert rejected.skipped
    after = policy.views[rejected.call + 1].observation
    assert after.startswith('REJECTED: Shelf "shelf_')  # B.1's message, then the skip
    assert "\nSkipped: the event was not handled.\n" in after


@pytest.mark.parametrize("scenario", ["audit", "barcode", "move"])
def test_an_alert_comes_before_a_floor_staff_note_that_follows_it(
    runtime: Runtime, scenario: str
) -> None:
    seen = 0
    for seed in range(42, 50):
        result = _run(runtime, WaitPolicy(), horizon=30, seed=seed, scenario=scenario, drift_at=8)
        for turn in result.turns:
            lines = turn.result.splitlines()
            alerts = [i for i, line in enumerate(lines) if line.startswith("ALERT")]
            staff = [i for i, line in enumerate(lines) if line.startswith("Floor staff")]
            if alerts and staff:
                seen += 1
                assert max(alerts) < min(staff), lines
    assert seen  # the case happened
