"""The session runtime through its public API: payloads, semantics, bad input, concurrency."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from skillstate import Runtime
from skillstate.errors import InvalidInput, SkillstateError
from skillstate.journal import verify_record
from skillstate.jsondoc import compact
from skillstate.runtime.errors import (
    InvalidSessionId,
    SessionCorrupt,
    SessionExists,
    SessionNotActive,
    SessionNotFound,
    StateRejected,
)
from skillstate.runtime.payloads import DRIFT_WARNING, ENV_REJECTED_WARNING

SCHEMA = {
    "type": "object",
    "required": ["ticket_id", "attempts"],
    "properties": {"ticket_id": {"type": "string"}, "attempts": {"type": "number"}},
}


@pytest.fixture
def rt() -> Iterator[Runtime]:
    runtime = Runtime(f"memory:rt-{uuid.uuid4().hex}")
    yield runtime
    runtime.close()


def _obs(payload: dict[str, Any]) -> str:
    return str(payload["prompt_payload"]["latest_observation"])


def _snapshot(rt: Runtime, sid: str) -> tuple[Any, ...]:
    record = rt.store.get(sid)
    return record.state, record.step, record.environment, record.status


def test_initialize_payload_matches_the_reference(rt: Runtime) -> None:
    payload = rt.initialize_skill("s1", "Do step A then B", {"step": 0, "items": ["apple"]})
    assert payload == {
        "session_id": "s1",
        "environment": "mock",
        "prompt_payload": {
            "skill_spec": "Do step A then B",
            "current_state": {"step": 0, "items": ["apple"]},
            "latest_observation": 'Session "s1" initialized (step 0). Awaiting the first execute_step call.',
        },
        "meta": {"step": 0, "status": "active", "reasoning_retained": False},
    }
    assert list(payload) == ["session_id", "environment", "prompt_payload", "meta"]


def test_initial_state_nulls_are_kept_as_the_reference_keeps_them(tmp_path: Any) -> None:
    """Σ_0 is ``initial_state`` as given: a null is a value there (a placeholder), not a
    deletion as in a patch; it survives a restart and replays from the journal."""
    initial = {"current_task": None, "plan": {"owner": None, "steps": []}, "seen": [None]}
    store = f"file:{tmp_path / 'state'}"
    first = Runtime(store)
    try:
        payload = first.initialize_skill("n1", "Track a task.", initial)
        assert payload["prompt_payload"]["current_state"] == initial
        done = first.execute_step("n1", "", {"current_task": {"id": 7}}, "go", _obs(payload))
        assert done["prompt_payload"]["current_state"]["current_task"] == {"id": 7}
        assert done["prompt_payload"]["current_state"]["plan"] == {"owner": None, "steps": []}
    finally:
        first.close()
    again = Runtime(store)
    try:
        record = again.store.get("n1")
        assert record.state["plan"] == {"owner": None, "steps": []}
        assert record.state["seen"] == [None]
        assert verify_record(record, again.store.journal("n1")) == []
    finally:
        again.close()


def test_the_session_owns_what_it_was_given(rt: Runtime) -> None:
    """The memory store keeps records as objects: nothing the caller passed may stay shared."""
    initial: dict[str, Any] = {"plan": {"steps": ["a"]}, "owner": None}
    schema: dict[str, Any] = {"type": "object", "properties": {"plan": {"type": "object"}}}
    rt.initialize_skill("own", "P.", initial, state_schema=schema)
    initial["plan"]["steps"].append("changed afterwards")
    initial["owner"] = "someone else"
    schema["properties"]["plan"]["type"] = "string"  # would reject every later step
    session = rt.get_session("own")
    assert session["execution_state"] == {"plan": {"steps": ["a"]}, "owner": None}
    assert session["metadata"]["stateSchema"]["properties"]["plan"] == {"type": "object"}
    action: dict[str, Any] = {"type": "noop", "items": [1]}
    patch: dict[str, Any] = {"plan": {"steps": ["a", "b"]}}
    done = rt.execute_step("own", "", patch, action, session["metadata"]["lastObservation"])
    assert done["meta"]["rolled_back"] is False
    action["items"].append(2)
    patch["plan"]["steps"].append("c")
    after = rt.get_session("own")
    assert after["metadata"]["lastAction"] == {"type": "noop", "items": [1]}
    assert after["execution_state"]["plan"] == {"steps": ["a", "b"]}
    options: dict[str, Any] = {"mode": "command"}
    rt.initialize_skill("own-w", "P.", environment="warehouse", environment_options=options)
    options["mode"] = "episode"
    assert rt.get_session("own-w")["metadata"]["environmentOptions"] == {"mode": "command"}


def test_numbers_are_kept_as_every_store_reads_them_back(rt: Runtime) -> None:
    """``1.0`` is ``1`` in an action, options and a schema, as in Σ: the memory store
    must hold what the file, SQLite and PostgreSQL stores read back from their JSON."""
    schema = {"type": "object", "properties": {"n": {"type": "number", "minimum": 0.0}}}
    first = rt.initialize_skill("num", "P.", {"n": 1.0}, state_schema=schema)
    rt.execute_step("num", "", {"m": 2.0}, {"type": "noop", "x": 1.0}, _obs(first))
    text = compact(rt.get_session("num"))
    assert '"lastAction":{"type":"noop","x":1}' in text
    assert '"minimum":0}' in text and '"n":1' in text and '"m":2' in text
    assert compact(rt.store.journal("num")[-1].action) == '{"type":"noop","x":1}'


def test_step_payload_keys_and_commit(rt: Runtime) -> None:
    boot = rt.initialize_skill("s1", "P", {"count": 0})
    payload = rt.execute_step("s1", "thinking", {"count": 1}, "do it", _obs(boot))
    assert list(payload) == ["session_id", "step", "prompt_payload", "meta"]
    assert payload["step"] == 1
    assert payload["prompt_payload"]["current_state"] == {"count": 1}
    assert _obs(payload) == (
        '[MOCK ENV · step 1] Generic action executed successfully: "do it". No side effects. (mock)'
    )
    assert payload["meta"] == {
        "step": 1,
        "status": "active",
        "reasoning_retained": False,
        "action_status": "ok",
        "rolled_back": False,
        "rejection": None,
        "problems": [],
    }


def test_schema_violation_is_a_rollback_retry(rt: Runtime) -> None:
    boot = rt.initialize_skill("s1", "P", {"ticket_id": "TCK-1", "attempts": 1}, SCHEMA)
    before = _snapshot(rt, "s1")
    payload = rt.execute_step("s1", "", {"attempts": "invalid"}, "go", _obs(boot))
    meta = payload["meta"]
    assert (meta["step"], meta["action_status"], meta["rolled_back"], meta["rejection"]) == (
        0,
        "failed",
        True,
        "schema",
    )
    assert [p["path"] for p in meta["problems"]] == ["attempts"]
    assert _obs(payload).startswith("[STATE SCHEMA VIOLATION] attempts: ")
    assert _obs(payload).endswith(". State Σ_0 remains unchanged (rollback-retry).")
    assert meta["warning"].startswith("State schema violation: attempts: ")
    assert _snapshot(rt, "s1") == before  # Σ, step, environment, status
    assert rt.get_session("s1")["metadata"]["lastAction"] is None  # no action ran
    # the rollback observation is the one issued: echoing it is not drift
    again = rt.execute_step("s1", "", {"attempts": 2}, "go", _obs(payload))
    assert "warning" not in again["meta"] and again["step"] == 1


def test_deleting_a_required_key_is_caught_on_the_resulting_state(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"ticket_id": "T", "attempts": 1}, SCHEMA)
    payload = rt.execute_step("s1", "", {"ticket_id": None}, "go")
    assert payload["meta"]["rolled_back"] and "ticket_id" in _obs(payload)
    assert rt.get_session("s1")["execution_state"] == {"ticket_id": "T", "attempts": 1}


def test_environment_rejection_rolls_back_state_and_environment(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    rt.execute_step("s1", "", {"count": 1}, "first")
    before = _snapshot(rt, "s1")
    action = {"type": "fail", "reason": "Shelf full", "reject_transition": True}
    payload = rt.execute_step("s1", "", {"count": 2}, action)
    assert payload["step"] == 1 and payload["meta"]["rolled_back"] is True
    assert payload["meta"]["rejection"] == "environment"
    assert payload["meta"]["warning"] == ENV_REJECTED_WARNING
    assert _obs(payload) == (
        "[MOCK ENV · step 2] ACTION FAILED — Shelf full. Recover per skill procedure P. (mock)"
    )
    assert _snapshot(rt, "s1") == before
    assert rt.get_session("s1")["metadata"]["lastAction"] == action
    # the next accepted step still says step 2: the environment rolled back too
    nxt = rt.execute_step("s1", "", {}, "again", _obs(payload))
    assert _obs(nxt).startswith("[MOCK ENV · step 2]") and nxt["step"] == 2


def test_fail_without_reject_commits_with_failed_status(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    payload = rt.execute_step("s1", "", {"count": 1}, {"type": "fail", "reason": "meh"})
    assert payload["meta"]["action_status"] == "failed"
    assert payload["meta"]["rolled_back"] is False and payload["step"] == 1


def test_drift_warning_never_blocks(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    payload = rt.execute_step("s1", "", {"count": 1}, "go", "I made this up")
    assert payload["meta"]["warning"] == DRIFT_WARNING
    assert payload["step"] == 1 and payload["prompt_payload"]["current_state"] == {"count": 1}
    rejected = rt.execute_step("s1", "", {}, {"type": "fail", "reject_transition": True}, "wrong")
    assert rejected["meta"]["warning"] == f"{DRIFT_WARNING}; {ENV_REJECTED_WARNING}"
    assert "prompt_payload.latest_observation.; Action was rejected" in rejected["meta"]["warning"]


def test_inject_validates_and_does_not_advance(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"ticket_id": "T", "attempts": 1}, SCHEMA)
    payload = rt.inject_observation(
        "s1", "External alert: Shipment arrived", {"external_event": "shipment_1"}
    )
    assert payload == {
        "session_id": "s1",
        "prompt_payload": {
            "skill_spec": "P",
            "current_state": {"ticket_id": "T", "attempts": 1, "external_event": "shipment_1"},
            "latest_observation": "External alert: Shipment arrived",
        },
        "meta": {"step": 0, "status": "active", "reasoning_retained": False},
    }
    before = rt.store.get("s1")
    with pytest.raises(StateRejected, match="state_patch rejected") as info:
        rt.inject_observation("s1", "bad alert", {"attempts": "many"})
    assert info.value.problems and info.value.problems[0].path == "attempts"
    assert rt.store.get("s1") == before  # state and observation unchanged, nothing written
    # the next step must echo the injected observation to avoid drift
    step = rt.execute_step("s1", "", {}, "ack", "External alert: Shipment arrived")
    assert "warning" not in step["meta"]


def test_completed_and_closed_sessions_refuse_steps(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    done = rt.execute_step("s1", "", {"count": 1}, {"type": "complete", "summary": "ok"})
    assert done["meta"]["status"] == "completed" and done["meta"]["action_status"] == "completed"
    with pytest.raises(SessionNotActive, match='session "s1" is completed'):
        rt.execute_step("s1", "", {}, "more")
    with pytest.raises(SessionNotActive):
        rt.inject_observation("s1", "late news")
    closed = rt.close_session("s1")
    assert closed == {
        "session_id": "s1",
        "closed": True,
        "final_step": 1,
        "final_state": {"count": 1},
    }
    with pytest.raises(SessionNotActive, match="is closed"):
        rt.execute_step("s1", "", {}, "more")
    with pytest.raises(SessionNotActive, match="is closed"):
        rt.close_session("s1")
    assert rt.get_session("s1")["metadata"]["status"] == "closed"
    assert rt.list_sessions()["sessions"] == []
    assert [s["session_id"] for s in rt.list_sessions(include_closed=True)["sessions"]] == ["s1"]


def test_unknown_session_reveals_no_other_ids(rt: Runtime) -> None:
    rt.initialize_skill("secret-one", "P")
    rt.initialize_skill("secret-two", "P")
    calls = [
        lambda: rt.execute_step("nope", "", {}, "go"),
        lambda: rt.inject_observation("nope", "x"),
        lambda: rt.close_session("nope"),
        lambda: rt.get_session("nope"),
    ]
    for call in calls:
        with pytest.raises(SessionNotFound) as info:
            call()
        assert str(info.value) == 'Unknown session "nope". Call initialize_skill first.'
        assert "secret" not in str(info.value)


def test_existing_id_is_refused(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"a": 1})
    with pytest.raises(SessionExists, match="already exists"):
        rt.initialize_skill("s1", "Q", {"a": 2})
    assert rt.get_session("s1")["skill_spec"] == "P"


def test_spec_is_immutable(rt: Runtime) -> None:
    spec = {"instructions": "Do step A then B", "version": 1, "rules": ["x"]}
    boot = rt.initialize_skill("s1", spec, {"step": 0})
    spec["version"] = 2
    boot["prompt_payload"]["skill_spec"]["rules"].append("y")
    got = rt.get_session("s1")["skill_spec"]
    assert got == {"instructions": "Do step A then B", "version": 1, "rules": ["x"]}
    got["version"] = 99
    step = rt.execute_step("s1", "", {}, "go")
    assert step["prompt_payload"]["skill_spec"]["version"] == 1
    assert rt.list_sessions()["sessions"][0]["spec_preview"] == "(structured JSON spec)"


def test_tampered_spec_is_detected(rt: Runtime) -> None:
    import attrs

    from skillstate.records import JournalEntry

    rt.initialize_skill("s1", "Original P")
    record = rt.store.get("s1")
    forged = attrs.evolve(record, spec="Evil P", version=record.version + 1)
    rt.store.commit(
        forged, JournalEntry(ts="t", step="x", patch={}, version=forged.version), record.version
    )
    with pytest.raises(SessionCorrupt, match="no longer matches its hash"):
        rt.execute_step("s1", "", {}, "go")


def test_initial_state_must_satisfy_the_schema(rt: Runtime) -> None:
    with pytest.raises(StateRejected, match=r"^Initial state violates state_schema: "):
        rt.initialize_skill("s1", "P", {"attempts": 1}, SCHEMA)
    with pytest.raises(SessionNotFound):
        rt.get_session("s1")  # nothing was created


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"skill_specification": ""}, "skill_specification must be a non-empty string"),
        (
            {"skill_specification": 5},
            "skill_specification must be a non-empty string or a JSON object, got a number",
        ),
        (
            {"skill_specification": "x" * 70000},
            "skill_specification is 70000 bytes, over the 65536-byte limit",
        ),
        ({"initial_state": [1]}, "initial_state must be a JSON object, got an array"),
        ({"state_schema": {"type": "nonsense"}}, "state_schema is not a valid JSON Schema"),
        ({"state_schema": "object"}, "state_schema must be a JSON object, got a string"),
        ({"environment_options": {"noise": 1}}, "the mock environment takes no options"),
        ({"environment": "mars"}, "unknown environment 'mars'. Available: "),
        ({"skill": "no-such-skill"}, "unknown skill 'no-such-skill'"),
    ],
)
def test_bad_initialize_arguments(rt: Runtime, kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"session_id": "s1", "skill_specification": "P", **kwargs}
    with pytest.raises(SkillstateError, match=message.replace("(", r"\(").replace(")", r"\)")):
        rt.initialize_skill(**args)
    assert rt.list_sessions(include_closed=True)["sessions"] == []


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "a" * 81, "a\x00b", 5, "a..b"])
def test_session_ids_follow_the_run_id_rule(rt: Runtime, bad: Any) -> None:
    with pytest.raises(InvalidSessionId, match="is not valid"):
        rt.initialize_skill(bad, "P")


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"k": value}
    return value


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("r", [1], "go"), "state_update must be a JSON object, got an array"),
        (("r", None, "go"), "state_update must be a JSON object, got null"),
        (("r", {}, ""), "action must be a non-empty string .* got an empty string"),
        (("r", {}, "   "), "action must be a non-empty string .* got a string of only whitespace"),
        (("r", {}, 5), "action must be a non-empty string .* got a number"),
        (("r", {}, ["a"]), "got an array"),
        (("r", _deep(150), "go"), "nested too deeply"),
        (("r", {}, {"type": "echo", "m": _deep(150)}), "nested too deeply"),
        ((None, {}, "go"), "reasoning_trace must be a string"),
        (("r", {}, "go", 5), "environment_observation must be a string"),
        (("r", {"x": float("nan")}, "go"), "not a JSON number"),
    ],
)
def test_bad_step_arguments_change_nothing(
    rt: Runtime, args: tuple[Any, ...], message: str
) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    before, journal = rt.store.get("s1"), rt.store.journal("s1")
    with pytest.raises(InvalidInput, match=message):
        rt.execute_step("s1", *args)
    assert rt.store.get("s1") == before and rt.store.journal("s1") == journal


def test_oversized_patch_and_state_are_refused_by_budget(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    big = rt.execute_step("s1", "", {"blob": ["x" * 400] * 40}, "go")
    assert big["meta"]["rolled_back"] and big["meta"]["problems"][0]["code"] == "budget"
    assert "over the 8192-byte state budget" in big["meta"]["problems"][0]["message"]
    long = rt.execute_step("s1", "", {"note": "y" * 600}, "go")
    assert long["meta"]["rolled_back"] and "600 chars exceeds the 500-char limit" in _obs(long)
    with pytest.raises(InvalidInput, match="observation is 20000 bytes, over the 16384-byte limit"):
        rt.inject_observation("s1", "z" * 20000)
    assert rt.get_session("s1")["execution_state"] == {"count": 0}


def test_named_skill_gets_its_schema_and_guards(register_plugin: Any, skillstate_pm: Any) -> None:
    from skillstate.config import load_config
    from skillstate.host import Host
    from skillstate.markers import hookimpl
    from skillstate.records import FieldSpec, Problem, SkillDefinition

    skill = SkillDefinition(
        name="counter-task",
        fields={"count": FieldSpec("number"), "phase": FieldSpec("string")},
        phases=("open", "done"),
        terminal_phases=("done",),
    )

    class Plugin:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(skill)

        @hookimpl
        def skillstate_guards(self, skill: Any, before: Any, after: Any) -> Any:
            if (
                skill.name == "counter-task"
                and before
                and after.get("count", 0) < before.get("count", 0)
            ):
                return [Problem("guard", "count never goes down", "count", "test")]
            return []

    register_plugin(Plugin(), "counter-plugin")
    host = Host(
        skillstate_pm, load_config(env={}, overrides={"store": f"memory:{uuid.uuid4().hex}"})
    )
    rt = Runtime(host=host)
    boot = rt.initialize_skill("s1", "Count up", {"count": 1}, skill="counter-task")
    assert boot["prompt_payload"]["current_state"] == {"phase": "open", "count": 1}
    down = rt.execute_step("s1", "", {"count": 0}, "go")
    assert down["meta"]["rolled_back"] and "count never goes down" in _obs(down)
    unknown = rt.execute_step("s1", "", {"bogus": 1}, "go")
    assert (
        unknown["meta"]["rolled_back"] and unknown["meta"]["problems"][0]["code"] == "unknown-key"
    )
    up = rt.execute_step("s1", "", {"count": 2}, "go")
    assert up["step"] == 1 and rt.get_session("s1")["metadata"]["skill"] == "counter-task"
    host.close()


def test_environment_that_raises_fails_closed(register_plugin: Any, skillstate_pm: Any) -> None:
    from skillstate.config import load_config
    from skillstate.environment import Environment
    from skillstate.host import Host
    from skillstate.markers import hookimpl
    from skillstate.records import ActionResult, EnvironmentSpec

    class Boom(Environment):
        def __init__(self, options: Any, snapshot: Any) -> None:
            pass

        def execute(self, action: Any, state: Any) -> ActionResult:
            raise RuntimeError("the robot arm jammed")

        def snapshot(self) -> Any:
            return {}

    class Plugin:
        @hookimpl
        def skillstate_register_environments(self, register: Any) -> None:
            register(EnvironmentSpec(name="boom", factory=Boom))

    register_plugin(Plugin(), "boom-plugin")
    host = Host(
        skillstate_pm, load_config(env={}, overrides={"store": f"memory:{uuid.uuid4().hex}"})
    )
    rt = Runtime(host=host)
    rt.initialize_skill("s1", "P", {"n": 0}, environment="boom")
    payload = rt.execute_step("s1", "", {"n": 1}, "go")
    assert payload["meta"]["rolled_back"] and payload["meta"]["rejection"] == "execution_error"
    assert _obs(payload) == "Action execution error: the robot arm jammed"
    assert rt.get_session("s1")["execution_state"] == {"n": 0}
    host.close()


def test_concurrent_steps_on_one_session_lose_nothing(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0})
    workers, per_worker = 4, 10
    results: list[dict[str, Any]] = []

    def work() -> None:
        for _ in range(per_worker):
            results.append(rt.execute_step("s1", "", {}, "tick"))

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["step"] for r in results) == list(range(1, workers * per_worker + 1))
    session = rt.get_session("s1")
    assert session["metadata"]["stepCount"] == workers * per_worker
    assert session["metadata"]["environmentState"] == {"executed": workers * per_worker}


def test_independent_sessions_do_not_interfere(rt: Runtime) -> None:
    for sid in ("a", "b"):
        rt.initialize_skill(sid, f"P-{sid}", {"owner": sid})
    rt.execute_step("a", "", {"x": 1}, "go")
    rt.execute_step("a", "", {"x": 2}, "go")
    b = rt.get_session("b")
    assert b["execution_state"] == {"owner": "b"} and b["metadata"]["stepCount"] == 0
    assert b["metadata"]["environmentState"] == {"executed": 0}


def test_journal_replays_to_the_session_state(rt: Runtime) -> None:
    rt.initialize_skill("s1", "P", {"count": 0, "o": {"x": 1}})
    rt.execute_step("s1", "", {"o": {"x": None, "y": 2}}, "go")
    rt.execute_step("s1", "", {"count": "bad"}, {"type": "fail", "reject_transition": True})
    rt.inject_observation("s1", "news", {"alert": True})
    rt.execute_step("s1", "", {"count": 3}, "go")
    rt.close_session("s1")
    assert verify_record(rt.store.get("s1"), rt.store.journal("s1")) == []


def test_prompts_render_the_session(rt: Runtime) -> None:
    rt.initialize_skill("s1", "Spec text", {"k": "é"})
    paper = rt.paper_prompt("s1")
    assert '{"k":"é"}' in paper and "Instructions:\nSpec text\n" in paper
    assert '{"k":"\\u00e9"}' in rt.paper_prompt("s1", literal=True)
    tool = rt.turn_prompt("s1")
    assert tool.startswith('You are executing skill session "s1" under the SKILL.state protocol')
    assert "## Σ_0 — Current Execution State (step 0, status: active)" in tool


def test_runtime_can_be_imported_lazily_from_the_package() -> None:
    import skillstate

    assert "Runtime" in skillstate.__all__
    assert skillstate.Runtime is Runtime


def test_rig_task_session_gets_rig_guards_and_immutable_keys(rt: Runtime) -> None:
    import os

    if rt.host.skills.get("rig-task") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("the bundled rig plugin is not installed")
        pytest.skip("the rig plugin is not installed")
    boot = rt.initialize_skill("rig-1", "Ship the feature.", skill="rig-task")
    state = boot["prompt_payload"]["current_state"]
    assert (state["runId"], state["skill"], state["phase"]) == ("rig-1", "rig-task", "spec")
    guarded = rt.execute_step("rig-1", "", {"phase": "pr-open"}, "push")
    assert guarded["meta"]["rolled_back"] and guarded["meta"]["rejection"] == "schema"
    assert "requires tests.status = green" in guarded["prompt_payload"]["latest_observation"]
    immutable = rt.execute_step("rig-1", "", {"runId": "other"}, "rename")
    assert immutable["meta"]["problems"][0]["code"] == "immutable"
    assert rt.get_session("rig-1")["execution_state"]["runId"] == "rig-1"
    assert rt.get_session("rig-1")["metadata"]["stepCount"] == 0


def test_a_step_deep_checks_its_patch_once_and_words_a_refusal_by_argument(
    rt: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    import skillstate.checks
    import skillstate.runtime.inputs

    rt.initialize_skill("once", "P")
    patch = {"notes": {"deep": ["x" * 10]}}
    walked: list[Any] = []
    for module in (skillstate.checks, skillstate.runtime.inputs):
        real = module.check_document

        def counting(value: Any, *args: Any, _real: Any = real) -> Any:
            walked.append(value)
            return _real(value, *args)

        monkeypatch.setattr(module, "check_document", counting)
    rt.execute_step("once", "", patch, "do something")
    assert sum(value is patch for value in walked) == 1  # the pipeline's check, nothing else
    with pytest.raises(InvalidInput) as refused:
        rt.execute_step("once", "", {"notes": {"deep": "\ud800"}}, "do something")
    assert str(refused.value).startswith("state_update: notes.deep: text is not valid Unicode")
    with pytest.raises(InvalidInput, match=r"^action: a: nan is not a JSON number"):
        rt.execute_step("once", "", {}, {"a": float("nan")})
    assert rt.get_session("once")["metadata"]["stepCount"] == 1  # the refusals changed nothing
