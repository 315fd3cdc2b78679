"""The rig plugin in process: rig-state's own test list (§11) on the real pipeline.

Runs on a ``memory:`` store with every installed plugin loaded. The same cases run
through the ``rig-state`` executable in ``test_rig_cli.py``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate.plugin import Change, Host, InvalidRunId, check_run_id, create_run, transition

from ..guards import phase_at_or_past
from ..render import render_compact
from ..skills import RIG_SKILL_NAMES

NOW = "2026-09-01T00:00:00.000Z"

TASK = {
    "spec": {"id": "ABC-18", "title": "Add rate limiting", "source": "linear"},
    "branch": "alice/abc-18-rate-limit",
    "base": "origin/main",
    "blockers": [],
    "decisions": ["Reuse TokenBucket rather than add a dependency"],
    "tests": {"command": "bun test", "status": "green", "pass": 412, "fail": 0},
}


@pytest.fixture
def host() -> Iterator[Host]:
    h = make_host("memory:")
    yield h
    h.close()


def init(host: Host, skill: str, seed: Any, run_id: str = "abc-18") -> Any:
    return create_run(host, host.open_store(), host.skill(skill), run_id, seed, now=NOW)


def reasons(outcome: Any) -> list[str]:
    return [p.message for p in outcome.problems]


def check(host: Host, skill: str, seed: Any) -> list[str]:
    """The reasons an init with ``seed`` is rejected (empty when accepted)."""
    return reasons(init(host, skill, seed))


def test_the_three_skills_are_registered_with_rig_phases(host: Host) -> None:
    assert [n for n in host.skills.names() if n.startswith("rig-")] == list(RIG_SKILL_NAMES)
    task = host.skill("rig-task")
    assert task.phases[0] == "spec" and task.phases[-2:] == ("done", "abandoned")
    assert task.terminal_phases == ("done", "abandoned")
    assert host.skill("rig-epic").phases == (
        "plan", "start", "run", "review", "finish", "done", "abandoned"
    )  # fmt: skip
    assert host.skill("rig-review").phases == ("find", "fix", "done", "abandoned")


# -- validateState: shape -------------------------------------------------------
def test_well_formed_task_is_accepted(host: Host) -> None:
    outcome = init(host, "rig-task", TASK)
    assert outcome.accepted, reasons(outcome)
    assert list(outcome.record.state)[:5] == ["runId", "skill", "phase", "createdAt", "updatedAt"]


@pytest.mark.parametrize(
    ("seed", "expected"),
    [
        (
            {"scratchpad": "x"},
            "scratchpad: unknown key. Known keys: base, blockers, branch, createdAt, decisions, "
            "nextAction, phase, pr, review, runId, skill, spec, tests, updatedAt, worktree",
        ),
        (
            {"tests": {"flakes": 1}},
            "tests.flakes: unknown key. Known keys: command, fail, failures, pass, status",
        ),
        ({"branch": 7}, "branch: expected a string, got 7"),
        (
            {"tests": {"status": "meh"}},
            'tests.status: "meh" is not one of not-run | red | green | error',
        ),
        (
            {"phase": "vibing"},
            'phase: "vibing" is not a rig-task phase. Declared: spec → spec-review → red → green '
            "→ refactor → self-review → pr-open → review-loop → done → abandoned",
        ),
        ({"blockers": ["ok", 3]}, 'blockers: expected an array of strings, got ["ok",3]'),
        ({"tests": {"pass": True}}, "tests.pass: expected a number, got true"),
        ({"pr": {"number": False}}, "pr.number: expected a number, got false"),
    ],
)
def test_shape_problems_have_rig_state_messages(host: Host, seed: Any, expected: str) -> None:
    assert check(host, "rig-task", seed) == [expected]


def test_object_array_element_is_reported_at_its_index(host: Host) -> None:
    seed = {
        "children": [{"id": "A", "status": "merged", "branch": "b"}, {"id": "B", "status": "x"}]
    }
    assert check(host, "rig-epic", seed) == [
        'children[1].status: "x" is not one of todo | in-progress | blocked | merged'
    ]


def test_unknown_nested_keys_come_in_state_order(host: Host) -> None:
    assert init(host, "rig-task", {"tests": {"status": "red"}}).accepted
    outcome = transition(
        host, host.open_store(), "abc-18", Change({"scratchpad": "x", "tests": {"flakes": 1}})
    )
    assert [m.split(":")[0] for m in reasons(outcome)] == ["tests.flakes", "scratchpad"]


def test_mixed_type_problems_in_state_order(host: Host) -> None:
    seed = {"tests": {"pass": True}, "pr": {"number": "9"}, "blockers": "x", "spec": [1]}
    assert check(host, "rig-task", seed) == [
        "tests.pass: expected a number, got true",
        'pr.number: expected a number, got "9"',
        'blockers: expected an array of strings, got "x"',
        "spec: expected an object, got [1]",
    ]


# -- validateState: budgets ------------------------------------------------------
def test_string_over_500_chars_says_summarize_it(host: Host) -> None:
    assert check(host, "rig-task", {"nextAction": "x" * 501}) == [
        "nextAction: 501 chars exceeds the 500-char limit — summarize it"
    ]
    assert check(host, "rig-task", {"nextAction": "x" * 500}) == []


def test_array_over_50_items_says_item_limit(host: Host) -> None:
    assert check(host, "rig-task", {"decisions": ["d"] * 51}) == [
        "decisions: 51 items exceeds the 50-item limit — keep what the next step needs"
    ]
    # object[]: rig-state's shorter text (quirk Q9, kept)
    children = [{"id": str(i)} for i in range(51)]
    assert check(host, "rig-epic", {"children": children}) == [
        "children: 51 items exceeds the 50-item limit"
    ]


def test_byte_budget_on_compact_json(host: Host) -> None:
    big = ["y" * 400] * 40
    (message,) = check(host, "rig-task", {"decisions": big, "blockers": big})
    assert message.endswith("bytes, over the 8192-byte budget — drop what no later step reads")
    twenty = ["y" * 400] * 20
    # the reference's figure, for a five-character run id
    outcome = init(host, "rig-task", {"decisions": twenty, "blockers": twenty}, run_id="big-1")
    assert reasons(outcome) == [
        "state is 16276 bytes, over the 8192-byte budget — drop what no later step reads"
    ]


def test_byte_budget_counts_compact_not_pretty_json(host: Host) -> None:
    """Exactly 8192 bytes of compact JSON is accepted (its pretty form is larger); 8193 is not."""
    from skillstate.plugin import compact, pretty

    decisions = ["z" * 500] * 15
    start = init(make_host("memory:"), "rig-task", {"decisions": decisions}).record.state
    room = 8192 - len(compact(start)) - len(',"nextAction":""')
    assert 0 < room <= 500
    ok = init(host, "rig-task", {"decisions": decisions, "nextAction": "n" * room})
    assert ok.accepted, reasons(ok)
    assert len(compact(ok.record.state)) == 8192 < len(pretty(ok.record.state))
    over = init(
        host, "rig-task", {"decisions": decisions, "nextAction": "n" * (room + 1)}, "abc-19"
    )
    assert reasons(over) == [
        "state is 8193 bytes, over the 8192-byte budget — drop what no later step reads"
    ]


def test_budgets_count_utf16_code_units_as_rig_state_does(host: Host) -> None:
    """Issue 16: rig's budgets count JavaScript's ``.length`` (UTF-16 units), as rig-state.

    Before, strings counted code points and the document UTF-8 bytes, so 251 emoji
    (502 units) passed here and failed in rig-state.
    """
    assert reasons(init(host, "rig-task", {"nextAction": "😀" * 250}, "e1")) == []  # 500 units
    assert reasons(init(host, "rig-task", {"nextAction": "😀" * 251}, "e2")) == [
        "nextAction: 502 chars exceeds the 500-char limit — summarize it"
    ]
    assert reasons(init(host, "rig-task", {"decisions": ["é" * 500]}, "e3")) == []  # 1000 bytes
    decisions = ["é" * 500] * 9  # 4500 units of text: under 8192, where UTF-8 bytes were over
    assert reasons(init(host, "rig-task", {"decisions": decisions}, "abc-19")) == []
    over = ["é" * 500] * 17  # 8500 units: over, as in rig-state
    (message,) = reasons(init(host, "rig-task", {"decisions": over}, "abc-20"))
    assert message.startswith("state is ") and "over the 8192-byte budget" in message


# -- guards ----------------------------------------------------------------------
def _task(phase: str, **extra: Any) -> dict[str, Any]:
    state = copy.deepcopy(TASK)
    state["phase"] = phase
    state.update(extra)
    return state


GREEN_TESTS = {"command": "bun test", "status": "green"}
RED_TESTS = {"command": "bun test", "status": "red"}
PR = {"number": 42, "url": "https://example.test/pr/42", "state": "open"}
G1 = "phase 'pr-open' requires tests.status = green (Step 4 must be GREEN before push)"
G2 = "phase 'pr-open' requires review.p0 = 0 and review.p1 = 0 (Step 4.5 is a gate)"
G3 = "phase 'done' requires pr.number (a finished task has a PR)"
G4 = "phase 'finish' requires every child at status 'merged'"
G5 = "phase 'review' requires at least one merged child (nothing to review yet)"
G6 = "a child at status 'merged' must record its branch"
G7 = "outcome 'clean' requires no finding still at status 'open'"
G8 = "round must not exceed maxRounds (hand back to a human instead)"


@pytest.mark.parametrize(
    ("skill", "seed", "expected"),
    [
        ("rig-task", _task("pr-open", tests=RED_TESTS), [G1]),
        ("rig-task", _task("review-loop", tests=RED_TESTS), [G1]),
        ("rig-task", _task("green", tests=RED_TESTS), []),
        ("rig-task", _task("pr-open", tests=GREEN_TESTS, review={"p0": 0, "p1": 1}), [G2]),
        ("rig-task", _task("pr-open", tests=GREEN_TESTS, review={"p0": 2}), [G2]),
        ("rig-task", _task("pr-open", tests=GREEN_TESTS, review={"p2": 5}), []),
        (
            "rig-task",
            _task("done", tests=GREEN_TESTS, review={"p0": 0, "p1": 0, "outcome": "clean"}, pr=PR),
            [],
        ),
        ("rig-task", _task("done", tests=GREEN_TESTS), [G3]),
        ("rig-task", {"phase": "done"}, [G1, G3]),
        ("rig-task", _task("abandoned", tests=RED_TESTS), []),
        (
            "rig-epic",
            {
                "phase": "finish",
                "children": [
                    {"id": "A", "status": "merged", "branch": "a"},
                    {"id": "B", "status": "todo"},
                ],
            },
            [G4],
        ),
        ("rig-epic", {"phase": "finish", "children": []}, []),
        (
            "rig-epic",
            {"phase": "finish", "children": [{"id": "A", "status": "merged", "branch": "a"}]},
            [],
        ),
        ("rig-epic", {"phase": "review", "children": [{"id": "A", "status": "todo"}]}, [G5]),
        (
            "rig-epic",
            {"phase": "review", "children": [{"id": "A", "status": "merged", "branch": "a"}]},
            [],
        ),
        ("rig-epic", {"phase": "run", "children": [{"id": "A", "status": "merged"}]}, [G6]),
        (
            "rig-epic",
            {"phase": "abandoned", "children": [{"id": "A", "status": "merged", "branch": ""}]},
            [G6],
        ),
        (
            "rig-review",
            {"phase": "fix", "outcome": "clean", "findings": [{"id": "1", "status": "open"}]},
            [G7],
        ),
        (
            "rig-review",
            {
                "phase": "fix",
                "outcome": "clean",
                "findings": [{"id": "1", "status": "fixed"}, {"id": "2", "status": "deferred"}],
            },
            [],
        ),
        ("rig-review", {"phase": "fix", "round": 6, "maxRounds": 5}, [G8]),
        ("rig-review", {"phase": "fix", "round": 5, "maxRounds": 5}, []),
        ("rig-review", {"phase": "fix", "round": 6}, []),
    ],
)
def test_each_guard_fires_and_passes(
    host: Host, skill: str, seed: Any, expected: list[str]
) -> None:
    assert check(host, skill, seed) == expected


def test_guards_are_skipped_while_shape_problems_exist(host: Host) -> None:
    seed = {"children": [{"id": "A", "status": "merged"}, {"id": "B", "status": "nope"}, 5]}
    assert check(host, "rig-epic", seed) == [
        'children[1].status: "nope" is not one of todo | in-progress | blocked | merged',
        "children[2]: expected an object, got 5",
    ]


def test_guards_only_apply_to_rig_skills(host: Host) -> None:
    import importlib

    rig = importlib.import_module(__package__.rpartition(".")[0])  # this plugin

    other = host.skill("rig-task").__class__(name="not-rig", phases=("done",))
    assert rig.skillstate_guards(skill=other, before=None, after={"phase": "done"}) is None


# -- applyPatch --------------------------------------------------------------------
def _patch(host: Host, patch: Any, force: bool = False, run_id: str = "abc-18") -> Any:
    return transition(
        host,
        host.open_store(),
        run_id,
        Change(patch=patch, force=force),
        now="2026-09-02T00:00:00.000Z",
    )


def test_patch_stamps_updated_at_in_place(host: Host) -> None:
    init(host, "rig-task", TASK)
    outcome = _patch(host, {"nextAction": "push", "updatedAt": "1999"})
    assert outcome.accepted
    state = outcome.record.state
    assert state["updatedAt"] == "2026-09-02T00:00:00.000Z"
    assert list(state).index("updatedAt") == 4 and list(state)[-1] == "nextAction"


def test_rejected_patch_leaves_state_and_journal_untouched(host: Host) -> None:
    init(host, "rig-task", TASK)
    store = host.open_store()
    before, journal = store.get("abc-18"), store.journal("abc-18")
    outcome = _patch(host, {"phase": "pr-open", "tests": {"status": "red"}})
    assert not outcome.accepted and reasons(outcome) == [G1]
    assert outcome.record == before
    assert store.get("abc-18") == before and store.journal("abc-18") == journal


@pytest.mark.parametrize("key", ["runId", "skill", "createdAt"])
def test_identity_keys_are_never_patched_even_with_null(host: Host, key: str) -> None:
    init(host, "rig-task", TASK)
    assert reasons(_patch(host, {key: None})) == [f"{key} is set at init and never patched"]
    assert reasons(_patch(host, {"skill": "x", "runId": "y"})) == [
        "runId is set at init and never patched"
    ]


@pytest.mark.parametrize("key", ["runId", "skill", "createdAt"])
def test_identity_keys_are_rejected_in_the_init_seed(host: Host, key: str) -> None:
    """Quirk Q2 fixed: rig-state wrote zzz.json for `init t3 --json '{"runId":"zzz"}'`."""
    assert check(host, "rig-task", {key: "zzz"}) == [f"{key} is set at init and never patched"]


@pytest.mark.parametrize("patch", [[], "x", 3, None, True])
def test_non_object_patch_is_rejected(host: Host, patch: Any) -> None:
    init(host, "rig-task", TASK)
    assert reasons(_patch(host, patch)) == ["patch: expected a JSON object"]
    assert check(make_host("memory:"), "rig-task", []) == ["patch: expected a JSON object"]


def test_terminal_phase_rule_with_and_without_force(host: Host) -> None:
    init(host, "rig-task", _task("done", pr=PR))
    assert reasons(_patch(host, {"phase": "red"})) == [
        "run is at terminal phase 'done'; start a new run rather than reopening it (--force overrides)"
    ]
    # no phase change on a terminal run is fine (Q11)
    assert _patch(host, {"nextAction": "celebrate", "phase": "done"}).accepted
    assert _patch(host, {"phase": "review-loop"}, force=True).accepted


def test_null_phase_deletes_and_is_said_to_be_missing(host: Host) -> None:
    init(host, "rig-task", TASK)
    assert reasons(_patch(host, {"phase": None}))[0].startswith(
        "phase: missing (a null deletes it), and every rig-task run has a phase. Declared: spec"
    )


def test_nested_null_under_a_new_object_is_dropped(host: Host) -> None:
    """Quirk Q1 fixed: RFC 7396 merges a new object against {}, so its nulls vanish."""
    init(host, "rig-task", {})
    outcome = _patch(host, {"tests": {"status": None, "command": "make"}})
    assert outcome.accepted and outcome.record.state["tests"] == {"command": "make"}


def test_null_inside_an_array_element_is_a_type_error(host: Host) -> None:
    """Quirk Q1: a stored null is never meaningful, so it is not silently kept."""
    assert check(host, "rig-epic", {"children": [{"id": "A", "branch": None}]}) == [
        "children[0].branch: expected a string, got null"
    ]


# -- mergePatch (through the host's merge hook) ------------------------------------
def test_merge_semantics(host: Host) -> None:
    base = {"a": {"x": 1, "y": 2}, "arr": [1, 2], "k": "v"}
    snapshot = copy.deepcopy(base)
    assert host.merge(base, {"a": {"z": 3}}) == {
        "a": {"x": 1, "y": 2, "z": 3},
        "arr": [1, 2],
        "k": "v",
    }
    assert host.merge(base, {"k": None}) == {"a": {"x": 1, "y": 2}, "arr": [1, 2]}
    assert host.merge(base, {"a": {"x": None}}) == {"a": {"y": 2}, "arr": [1, 2], "k": "v"}
    assert host.merge(base, {"arr": [3]})["arr"] == [3]
    assert base == snapshot


# -- phaseAtOrPast, renderCompact, validRunId --------------------------------------
def test_phase_at_or_past() -> None:
    assert phase_at_or_past({"skill": "rig-task", "phase": "pr-open"}, "pr-open")
    assert phase_at_or_past({"skill": "rig-task", "phase": "done"}, "pr-open")
    assert not phase_at_or_past({"skill": "rig-task", "phase": "green"}, "pr-open")
    assert not phase_at_or_past({"skill": "rig-task", "phase": "abandoned"}, "pr-open")
    assert not phase_at_or_past({"skill": "rig-task", "phase": "vibing"}, "pr-open")
    assert not phase_at_or_past({"skill": "rig-task", "phase": "done"}, "nope")


def test_render_compact() -> None:
    state = {
        "runId": "abc-18",
        "skill": "rig-task",
        "phase": "green",
        "createdAt": NOW,
        "updatedAt": NOW,
        **TASK,
        "pr": {"number": 42.0},
        "children": [
            {
                "id": "ABC-44",
                "title": "loader",
                "blockedBy": ["ABC-43", "X"],
                "branch": None,
                "x": [],
            }
        ],
        "flag": False,
        "empty": {},
    }
    text = render_compact(state)
    lines = text.split("\n")
    assert lines[0] == "# rig-task state · abc-18 · phase: green"
    assert "tests.status: green" in lines and "spec.id: ABC-18" in lines
    assert "blockers: (none)" in lines
    assert "  - Reuse TokenBucket rather than add a dependency" in lines
    assert "pr.number: 42" in lines and "flag: false" in lines
    assert "  - id=ABC-44 title=loader blockedBy=ABC-43,X" in lines
    assert not any(line.startswith("empty") for line in lines)
    assert lines[-1] == f"updated: {NOW}"
    assert render_compact({"skill": "s"}).split("\n") == [
        "# s state · undefined · phase: undefined",
        "updated: unknown",
    ]


def test_valid_run_id() -> None:
    assert check_run_id("abc-18") == "abc-18" and check_run_id("a" * 80) == "a" * 80
    for bad in ("../escape", "a/b", "a" * 81, "", "-x", "a..b"):
        with pytest.raises(InvalidRunId):
            check_run_id(bad)
