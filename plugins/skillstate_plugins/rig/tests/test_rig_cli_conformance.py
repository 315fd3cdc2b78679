"""rig-state's own test list (reference §11) through the ``rig-state`` executable.

Each case is the smallest CLI interaction that shows it: usually one ``init`` whose
seed the pipeline accepts or rejects, so a case costs one process start.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from . import rigcli
from .rigcli import Cli

cli = rigcli.cli

G1 = "phase 'pr-open' requires tests.status = green (Step 4 must be GREEN before push)"
G2 = "phase 'pr-open' requires review.p0 = 0 and review.p1 = 0 (Step 4.5 is a gate)"
G3 = "phase 'done' requires pr.number (a finished task has a PR)"
G4 = "phase 'finish' requires every child at status 'merged'"
G5 = "phase 'review' requires at least one merged child (nothing to review yet)"
G6 = "a child at status 'merged' must record its branch"
G7 = "outcome 'clean' requires no finding still at status 'open'"
G8 = "round must not exceed maxRounds (hand back to a human instead)"

GREEN = {"command": "bun test", "status": "green"}
RED = {"command": "bun test", "status": "red"}
PR = {"number": 7, "url": "https://example.test/7", "state": "open"}
MERGED_A = {"id": "A", "status": "merged", "branch": "a"}

CASES: list[tuple[str, str, dict[str, Any], list[str]]] = [
    # validateState, shape
    ("task-well-formed", "rig-task", {"base": "origin/main", "tests": GREEN}, []),
    ("unknown-top-key", "rig-task", {"scratchpad": "x"}, ["scratchpad: unknown key"]),
    ("unknown-nested-key", "rig-task", {"tests": {"flakes": 1}}, ["tests.flakes: unknown key"]),
    ("branch-7", "rig-task", {"branch": 7}, ["branch: expected a string"]),
    (
        "bad-enum",
        "rig-task",
        {"tests": {"status": "x"}},
        ["not one of not-run | red | green | error"],
    ),
    ("phase-vibing", "rig-task", {"phase": "vibing"}, ["is not a rig-task phase"]),
    ("mixed-array", "rig-task", {"decisions": ["ok", 3]}, ["an array of strings"]),
    (
        "object-array-path",
        "rig-epic",
        {"children": [MERGED_A, {"id": "B", "status": "x"}]},
        ["children[1].status"],
    ),
    ("bool-is-not-a-number", "rig-review", {"round": True}, ["round: expected a number, got true"]),
    # validateState, budgets
    ("summarize-it", "rig-task", {"nextAction": "x" * 501}, ["summarize it"]),
    ("item-limit", "rig-task", {"blockers": ["b"] * 51}, ["50-item limit"]),
    (
        "byte-budget",
        "rig-task",
        {"decisions": ["d" * 400] * 40, "blockers": ["b" * 400] * 40},
        ["byte budget"],
    ),
    # guards, rig-task (phaseAtOrPast: true at the target, false before it, false when abandoned)
    ("red-at-pr-open", "rig-task", {"phase": "pr-open", "tests": RED}, [G1]),
    ("red-before-pr-open", "rig-task", {"phase": "green", "tests": RED}, []),
    ("p1-at-pr-open", "rig-task", {"phase": "pr-open", "tests": GREEN, "review": {"p1": 1}}, [G2]),
    (
        "green-clean-pr-passes",
        "rig-task",
        {
            "phase": "pr-open",
            "tests": GREEN,
            "review": {"p0": 0, "p1": 0, "outcome": "clean"},
            "pr": PR,
        },
        [],
    ),
    ("done-without-pr", "rig-task", {"phase": "done", "tests": GREEN}, [G3]),
    ("done-from-nothing", "rig-task", {"phase": "done"}, [G1, G3]),
    ("abandoned-red-passes", "rig-task", {"phase": "abandoned", "tests": RED}, []),
    ("review-loop-red", "rig-task", {"phase": "review-loop", "tests": RED, "pr": PR}, [G1]),
    # guards, rig-epic
    (
        "finish-unmerged-child",
        "rig-epic",
        {"phase": "finish", "children": [MERGED_A, {"id": "B", "status": "todo"}]},
        [G4],
    ),
    ("review-nothing-merged", "rig-epic", {"phase": "review", "children": [{"id": "B"}]}, [G5]),
    ("review-one-merged", "rig-epic", {"phase": "review", "children": [MERGED_A]}, []),
    ("merged-without-branch", "rig-epic", {"children": [{"id": "A", "status": "merged"}]}, [G6]),
    (
        "finish-all-merged-passes",
        "rig-epic",
        {"phase": "finish", "children": [MERGED_A, {**MERGED_A, "id": "B", "branch": "b"}]},
        [],
    ),
    # guards, rig-review (phase fix)
    (
        "clean-with-open-finding",
        "rig-review",
        {"phase": "fix", "outcome": "clean", "findings": [{"id": "1", "status": "open"}]},
        [G7],
    ),
    (
        "clean-with-fixed-deferred",
        "rig-review",
        {
            "phase": "fix",
            "outcome": "clean",
            "findings": [{"id": "1", "status": "fixed"}, {"id": "2", "status": "deferred"}],
        },
        [],
    ),
    ("round-over-max", "rig-review", {"phase": "fix", "round": 6, "maxRounds": 5}, [G8]),
    ("round-at-max", "rig-review", {"phase": "fix", "round": 5, "maxRounds": 5}, []),
]


@pytest.mark.parametrize(
    ("skill", "seed", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_conformance_case(cli: Cli, skill: str, seed: dict[str, Any], expected: list[str]) -> None:
    r = cli.rig(
        "init", skill, "pr-418" if skill == "rig-review" else "abc-18", "--json", json.dumps(seed)
    )
    if not expected:
        assert (r.code, r.err) == (0, ""), r
        return
    assert r.code == 1 and r.out == "", r
    assert len(r.reasons) == len(expected), r
    for reason, fragment in zip(r.reasons, expected, strict=True):
        assert fragment in reason


def test_merge_semantics_through_the_cli(cli: Cli) -> None:
    seed = {
        "spec": {"id": "A", "title": "T"},
        "tests": {"command": "make", "status": "red", "failures": ["f"]},
        "decisions": ["a", "b"],
        "branch": "x",
    }
    assert cli.rig("init", "rig-task", "m1", "--json", json.dumps(seed)).code == 0
    patch = {
        "spec": {"title": "T2"},
        "tests": {"failures": None},
        "decisions": ["c"],
        "branch": None,
    }
    assert cli.rig("patch", "m1", "--json", json.dumps(patch)).code == 0
    state = json.loads(cli.rig("get", "m1").raw_out)
    assert state["spec"] == {"id": "A", "title": "T2"}  # deep merge
    assert state["tests"] == {"command": "make", "status": "red"}  # nested null, siblings kept
    assert state["decisions"] == ["c"]  # arrays replace wholesale
    assert "branch" not in state  # null deletes
    assert list(state)[:5] == ["runId", "skill", "phase", "createdAt", "updatedAt"]


def test_apply_patch_rules_through_the_cli(cli: Cli) -> None:
    seed = {"phase": "done", "tests": GREEN, "pr": PR}
    assert cli.rig("init", "rig-task", "t1", "--json", json.dumps(seed)).code == 0
    file = cli.state_dir / "t1.json"
    journal = cli.state_dir / "t1.jsonl"
    before = (file.read_bytes(), journal.read_bytes())

    r = cli.rig("patch", "t1", "--json", '{"phase":"red"}')
    assert r.reasons == [
        "run is at terminal phase 'done'; start a new run rather than reopening it (--force overrides)"
    ]
    r = cli.rig("patch", "t1", "--json", '{"createdAt":null}')
    assert r.reasons == ["createdAt is set at init and never patched"]
    assert r.out.startswith("# rig-task state · t1 · phase: done\n")  # unchanged state shown
    assert (file.read_bytes(), journal.read_bytes()) == before  # rejections change nothing

    created = cli.rig("get", "t1", "--field", "createdAt").raw_out
    r = cli.rig("patch", "t1", "--json", '{"phase":"review-loop"}', "--force", "--step", "reopen")
    assert r.code == 0 and "phase: review-loop" in r.out
    assert cli.rig("get", "t1", "--field", "updatedAt").raw_out > created  # stamped


def test_render_compact_through_show(cli: Cli) -> None:
    seed = {
        "phase": "green",
        "spec": {"id": "ABC-18"},
        "tests": GREEN,
        "blockers": [],
        "decisions": ["Reuse TokenBucket rather than add a dependency"],
        "pr": {"number": 42.0},
    }
    assert cli.rig("init", "rig-task", "abc-18", "--json", json.dumps(seed)).code == 0
    r = cli.rig("show", "abc-18")
    lines = r.out.splitlines()
    assert lines[0] == "# rig-task state · abc-18 · phase: green"
    assert {"tests.status: green", "spec.id: ABC-18", "blockers: (none)", "pr.number: 42"} <= set(
        lines
    )
    assert "  - Reuse TokenBucket rather than add a dependency" in lines
    assert lines[-1] == "updated: <ts>" and r.out.endswith("\n")


def test_valid_run_ids(cli: Cli) -> None:
    assert cli.rig("init", "rig-task", "abc-18").code == 0
    for bad in ("../escape", "a/b", "a" * 81):
        r = cli.rig("init", "rig-task", bad)
        assert (r.code, r.err) == (
            2,
            f"rig-state: run id '{bad}' must be alphanumeric with . _ -, under 80 chars\n",
        )
    assert cli.rig("init", "rig-task", "a" * 80).code == 0  # Q8: the rule allows 80
