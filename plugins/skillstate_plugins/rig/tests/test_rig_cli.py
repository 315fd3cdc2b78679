"""``rig-state`` through the real executable: the reference's golden transcripts, byte for byte.

Timestamps are normalised to ``<ts>``. Sources: ``docs/rig.md`` and the reference
(``rig-state.md`` §10); the CLI parser's JSON error text is engine-specific there, and
the journal is compared on its first three keys (ours appends more). Everything here
must stay true of rig's own ``rig-state.ts`` too: ``benchmarks/rig_goldens.py --cmd
"bun /path/to/rig-state.ts"`` runs these tests against it. Where ours deliberately
differs, the test is elsewhere (``test_rig_cli_hardening.py``, ``test_rig_cli_extras.py``).
"""

from __future__ import annotations

import json

from . import rigcli
from .rigcli import Cli

cli = rigcli.cli

ABC18_SEED = (
    '{"spec":{"id":"ABC-18","title":"Add rate limiting","source":"linear"},'
    '"branch":"alice/abc-18-rate-limit"}'
)
RED_PATCH = (
    '{"phase":"red","tests":{"command":"bun test","status":"red",'
    '"failures":["limiter.test.ts: expected 429, got 200"]}}'
)
GREEN_PATCH = (
    '{"phase":"green","tests":{"status":"green","pass":412,"fail":0,"failures":null},'
    '"review":{"p0":0,"p1":1}}'
)
INIT_OUT = """# rig-task state · abc-18 · phase: spec
spec.id: ABC-18
spec.title: Add rate limiting
spec.source: linear
branch: alice/abc-18-rate-limit
updated: <ts>
"""
RED_OUT = """# rig-task state · abc-18 · phase: red
spec.id: ABC-18
spec.title: Add rate limiting
spec.source: linear
branch: alice/abc-18-rate-limit
tests.command: bun test
tests.status: red
tests.failures:
  - limiter.test.ts: expected 429, got 200
updated: <ts>
"""
TASK_KEYS = (
    "base, blockers, branch, createdAt, decisions, nextAction, phase, pr, review, runId, "
    "skill, spec, tests, updatedAt, worktree"
)


def test_rig_task_walk_through(cli: Cli) -> None:
    r = cli.rig("init", "rig-task", "abc-18", "--json", ABC18_SEED)
    assert (r.code, r.out, r.err) == (0, INIT_OUT, "")

    r = cli.rig("init", "rig-task", "abc-18")
    assert (r.code, r.out, r.err) == (
        2,
        "",
        "rig-state: run 'abc-18' already exists — patch it instead\n",
    )

    r = cli.rig("patch", "abc-18", "--json", RED_PATCH, "--step", "red")
    assert (r.code, r.out, r.err) == (0, RED_OUT, "")

    r = cli.rig("patch", "abc-18", "--json", '{"phase":"pr-open"}', "--step", "push")
    assert (r.code, r.out) == (1, RED_OUT)
    assert r.err == (
        "rig-state: patch rejected:\n"
        "  - phase 'pr-open' requires tests.status = green (Step 4 must be GREEN before push)\n"
    )

    r = cli.rig("patch", "abc-18", "--json", '{"scratchpad":"x","tests":{"flakes":1}}')
    assert (r.code, r.out) == (1, RED_OUT)
    assert r.err == (
        "rig-state: patch rejected:\n"
        "  - tests.flakes: unknown key. Known keys: command, fail, failures, pass, status\n"
        f"  - scratchpad: unknown key. Known keys: {TASK_KEYS}\n"
    )

    r = cli.rig("patch", "abc-18", "--json", GREEN_PATCH, "--step", "green")
    assert (r.code, r.err) == (0, "")
    assert "tests.failures" not in r.out and "tests.status: green" in r.out

    r = cli.rig("patch", "abc-18", "--json", '{"phase":"pr-open"}')
    assert (r.code, r.err) == (
        1,
        "rig-state: patch rejected:\n"
        "  - phase 'pr-open' requires review.p0 = 0 and review.p1 = 0 (Step 4.5 is a gate)\n",
    )

    r = cli.rig("patch", "abc-18", "--json", '{"runId":"x"}')
    assert (r.code, r.err) == (
        1,
        "rig-state: patch rejected:\n  - runId is set at init and never patched\n",
    )

    r = cli.rig("patch", "abc-18", "--json", "nope")
    assert r.code == 1 and r.out == ""
    assert r.err.startswith("rig-state: patch is not valid JSON: ")

    r = cli.rig("get", "abc-18", "--field", "tests")
    assert (r.code, r.out, r.err) == (
        0,
        '{"command":"bun test","status":"green","pass":412,"fail":0}\n',
        "",
    )
    r = cli.rig("get", "abc-18", "--field", "nothere")
    assert (r.code, r.out, r.err) == (1, "", "")

    r = cli.rig("list")
    assert (r.code, r.out, r.err) == (0, "abc-18\trig-task\tgreen\t<ts>\t\n", "")

    r = cli.rig("journal", "abc-18")
    lines = [json.loads(line) for line in r.raw_out.splitlines()]
    assert r.code == 0 and len(lines) == 3
    assert [list(line)[:3] for line in lines] == [["ts", "step", "patch"]] * 3
    assert [line["step"] for line in lines] == ["init", "red", "green"]
    assert lines[0]["patch"] == json.loads(ABC18_SEED)
    assert lines[2]["patch"] == json.loads(GREEN_PATCH)  # nulls kept, as sent
    assert r.out.splitlines()[0].startswith(
        '{"ts":"<ts>","step":"init","patch":{"spec":{"id":"ABC-18","title":"Add rate limiting",'
        '"source":"linear"},"branch":"alice/abc-18-rate-limit"}'
    )
    state = json.loads(cli.rig("get", "abc-18").raw_out)
    assert lines[2]["ts"] == state["updatedAt"]  # ts equals the updatedAt of the same write

    r = cli.rig("show", "nope")
    assert (r.code, r.out, r.err) == (
        2,
        "",
        "rig-state: no run 'nope' — run 'rig-state init <skill> nope' first\n",
    )
    r = cli.rig("init", "rig-task", "../x")
    assert (r.code, r.err) == (
        2,
        "rig-state: run id '../x' must be alphanumeric with . _ -, under 80 chars\n",
    )
    r = cli.rig("init", "rig-foo", "x")
    assert (r.code, r.err) == (
        2,
        "rig-state: unknown skill 'rig-foo'. Known: rig-task, rig-epic, rig-review\n",
    )


EPIC_SEED = {
    "integrationBranch": "abc-42-agent-as-definition",
    "children": [
        {"id": "ABC-43", "title": "schema", "status": "todo"},
        {"id": "ABC-44", "title": "loader", "blockedBy": ["ABC-43"], "status": "todo"},
    ],
}
EPIC = "abc-42-agent-as-definition"


def test_rig_epic_cases(cli: Cli) -> None:
    r = cli.rig("init", "rig-epic", EPIC, "--json", json.dumps(EPIC_SEED))
    assert r.code == 0
    assert (
        "children:\n"
        "  - id=ABC-43 title=schema status=todo\n"
        "  - id=ABC-44 title=loader blockedBy=ABC-43 status=todo\n"
    ) in r.out

    r = cli.rig("patch", EPIC, "--json", '{"phase":"review"}')
    assert (r.code, r.reasons) == (
        1,
        ["phase 'review' requires at least one merged child (nothing to review yet)"],
    )

    bad = '{"children":[{"id":"ABC-43","status":"merged"},{"id":"ABC-44","status":"nope"},5]}'
    r = cli.rig("patch", EPIC, "--json", bad)
    assert r.reasons == [
        'children[1].status: "nope" is not one of todo | in-progress | blocked | merged',
        "children[2]: expected an object, got 5",
    ]

    finish = {
        "phase": "finish",
        "children": [
            {"id": "ABC-43", "title": "schema", "status": "merged", "branch": "b43"},
            {"id": "ABC-44", "title": "loader", "status": "todo"},
        ],
    }
    r = cli.rig("patch", EPIC, "--json", json.dumps(finish))
    assert r.reasons == ["phase 'finish' requires every child at status 'merged'"]

    r = cli.rig("patch", EPIC, "--json", '{"phase":"vibing","whyEpic":7}')
    assert r.reasons == [
        "whyEpic: expected a string, got 7",
        'phase: "vibing" is not a rig-epic phase. Declared: plan → start → run → review → '
        "finish → done → abandoned",
    ]


def test_rig_review_cases(cli: Cli) -> None:
    r = cli.rig("init", "rig-review", "pr-418", "--json", '{"round":6,"maxRounds":5}')
    assert (r.code, r.out, r.err) == (
        1,
        "",
        "rig-state: rejected:\n"
        "  - round must not exceed maxRounds (hand back to a human instead)\n",
    )
    assert not cli.state_dir.joinpath("pr-418.json").exists()

    seed = {
        "phase": "fix",
        "round": 1,
        "maxRounds": 5,
        "findings": [{"id": "f1", "status": "open"}],
    }
    assert cli.rig("init", "rig-review", "pr-418", "--json", json.dumps(seed)).code == 0
    r = cli.rig("patch", "pr-418", "--json", '{"outcome":"clean"}')
    assert r.reasons == ["outcome 'clean' requires no finding still at status 'open'"]

    done = '{"phase":"done","outcome":"clean","findings":[{"id":"f1","status":"fixed"}]}'
    assert cli.rig("patch", "pr-418", "--json", done).code == 0
    r = cli.rig("patch", "pr-418", "--json", '{"phase":"fix"}')
    assert (r.code, r.reasons) == (
        1,
        [
            "run is at terminal phase 'done'; start a new run rather than reopening it "
            "(--force overrides)"
        ],
    )
    r = cli.rig("patch", "pr-418", "--force", stdin='{"phase":"fix"}\n')
    assert (r.code, r.err) == (0, "")
    assert r.out.startswith("# rig-review state · pr-418 · phase: fix\n")


def test_budget_and_type_cases_at_init(cli: Cli) -> None:
    def init(seed: object, run_id: str = "abc-1") -> list[str]:
        r = cli.rig("init", "rig-task", run_id, "--json", json.dumps(seed))
        assert r.code == 1 and r.out == "" and r.err.startswith("rig-state: rejected:\n")
        return r.reasons

    assert init({"nextAction": "x" * 501}) == [
        "nextAction: 501 chars exceeds the 500-char limit — summarize it"
    ]
    assert init({"decisions": ["d"] * 51}) == [
        "decisions: 51 items exceeds the 50-item limit — keep what the next step needs"
    ]
    twenty = ["y" * 400] * 20
    assert init({"decisions": twenty, "blockers": twenty}) == [
        "state is 16276 bytes, over the 8192-byte budget — drop what no later step reads"
    ]
    assert init({"tests": {"pass": True}, "pr": {"number": "9"}, "blockers": "x", "spec": [1]}) == [
        "tests.pass: expected a number, got true",
        'pr.number: expected a number, got "9"',
        'blockers: expected an array of strings, got "x"',
        "spec: expected an object, got [1]",
    ]
    # (a seed that is not an object, `--json '[]'`, is refused by ours only: rig-state
    # takes it as an empty seed; test_rig_cli_hardening.py, docs/rig.md)
    assert not cli.state_dir.exists() or not any(cli.state_dir.glob("*.json"))


def test_non_object_patches(cli: Cli) -> None:
    assert cli.rig("init", "rig-task", "t1").code == 0
    for patch in ("[]", '"x"', "3", "null"):
        r = cli.rig("patch", "t1", "--json", patch)
        assert (r.code, r.reasons) == (1, ["patch: expected a JSON object"]), patch


def test_an_enum_rejection_quotes_a_long_value_whole_as_rig_state_does(cli: Cli) -> None:
    """rig-state prints the whole offending value (its golden has a 501-character phase);
    so do we up to 4 KiB (what is longer is cut: test_rig_cli_hardening.py)."""
    phase = "p" * 501
    r = cli.rig("init", "rig-task", "abc-2", "--json", json.dumps({"phase": phase}))
    assert r.code == 1 and r.out == ""
    assert r.reasons[0] == "phase: 501 chars exceeds the 500-char limit — summarize it"
    assert r.reasons[1].startswith(f'phase: "{phase}" is not a rig-task phase. Declared: spec')
