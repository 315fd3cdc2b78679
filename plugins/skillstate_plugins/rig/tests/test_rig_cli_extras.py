"""rig-state beyond the transcripts: stdin, flags, ids everywhere, list, journal, rm, --root,
legacy files written by the TypeScript tool, the plugin blocked, and the ``skillstate`` twins."""

from __future__ import annotations

import json

from . import rigcli
from .rigcli import Cli

cli = rigcli.cli


def test_patch_from_stdin_without_json_and_with_dash(cli: Cli) -> None:
    r = cli.rig("init", "rig-task", "t1", "--json", "-", stdin='{"branch":"b1"}')
    assert r.code == 0 and "branch: b1" in r.out
    r = cli.rig("patch", "t1", "--step", "s", stdin='{"nextAction":"one"}')
    assert r.code == 0 and "nextAction: one" in r.out
    r = cli.rig("patch", "t1", "--json", "-", stdin='{"nextAction":"two"}')
    assert r.code == 0 and "nextAction: two" in r.out
    r = cli.rig("patch", "t1", stdin="")
    assert r.code == 1 and r.err.startswith("rig-state: patch is not valid JSON: ")
    steps = [json.loads(line)["step"] for line in cli.rig("journal", "t1").raw_out.splitlines()]
    assert steps == ["init", "s", ""]


def test_run_ids_are_checked_in_every_command(cli: Cli) -> None:
    """Quirk Q3 fixed: patch, get, show and journal used to build paths from `../t`."""
    for command in (
        ["patch", "../t", "--json", "{}"],
        ["get", "../t"],
        ["show", "../t"],
        ["journal", "../t"],
        ["rm", "../t"],
    ):
        r = cli.rig(*command)
        assert (r.code, r.out, r.err) == (2, "", "rig-state: run id '../t' is not a valid id\n"), (
            command
        )
    assert not (cli.root.parent / "t.json").exists()


def test_usage_errors(cli: Cli) -> None:
    general = "rig-state: usage: rig-state <init|patch|get|show|list|journal|rm> [args]\n"
    assert (cli.rig().code, cli.rig().err) == (2, general)
    assert cli.rig("frobnicate").err == general
    r = cli.rig("init", "rig-task")
    assert (r.code, r.err) == (
        2,
        "rig-state: usage: rig-state init <skill> <runId> [--json '{...}']\n",
    )
    r = cli.rig("patch")
    assert (r.code, r.err) == (
        2,
        "rig-state: usage: rig-state patch <runId> --json '{...}' [--step <label>]\n",
    )
    assert cli.rig("get").err == "rig-state: usage: rig-state get <runId> [--field <dotted.path>]\n"
    assert cli.rig("show").err == "rig-state: usage: rig-state show <runId>\n"
    assert cli.rig("journal").err == "rig-state: usage: rig-state journal <runId>\n"
    assert cli.rig("rm").err == "rig-state: usage: rig-state rm <runId>\n"
    # Q10: a real parser — a flag without its value is a usage error, not the next flag
    r = cli.rig("patch", "t1", "--json", "--step", "x")
    assert r.code == 2 and r.err.startswith(
        "rig-state: --json needs a value. usage: rig-state patch"
    )
    r = cli.rig("show", "t1", "--bogus")
    assert r.code == 2 and "unknown flag '--bogus'" in r.err
    # what the user typed comes back printable, and the usage stays one line
    r = cli.rig("show", "t1", "--a\x1b[31m")
    assert r.code == 2 and r.err.startswith("rig-state: unknown flag '--a\\x1b[31m' for show.")
    r = cli.rig("show", "t1", "a\nb")
    assert r.code == 2 and r.err.startswith("rig-state: unexpected argument 'a\\nb'.")
    assert r.err.count("\n") == 1
    for word in ("postgresql://u:hunter2pw@h/db", "--store=postgresql://u:hunter2pw@h/db"):
        r = cli.rig("init", "rig-task", "t9", word)  # a password typed in the wrong place
        assert r.code == 2 and "u:***@h/db" in r.err and "hunter2pw" not in r.err
    assert not cli.state_dir.exists()


def test_get_show_list_journal_rm(cli: Cli) -> None:
    assert cli.rig("list").out == ""  # no state directory yet
    seed = {
        "nextAction": "write the test",
        "pr": {"number": 42.0, "state": "open"},
        "decisions": ["a"],
    }
    assert cli.rig("init", "rig-task", "b-2", "--json", json.dumps(seed)).code == 0
    assert cli.rig("init", "rig-review", "a-1").code == 0
    r = cli.rig("get", "b-2")
    state = json.loads(r.raw_out)
    assert r.raw_out == json.dumps(state, indent=2, ensure_ascii=False) + "\n"
    assert state["pr"]["number"] == 42
    assert cli.rig("get", "b-2", "--field", "pr.number").out == "42\n"
    assert cli.rig("get", "b-2", "--field", "decisions").out == '["a"]\n'
    assert cli.rig("get", "b-2", "--field", "pr.number.x").code == 1
    assert (
        cli.rig("list").out
        == "a-1\trig-review\tfind\t<ts>\t\nb-2\trig-task\tspec\t<ts>\twrite the test\n"
    )
    assert cli.rig("list", "--skill", "rig-review").out == "a-1\trig-review\tfind\t<ts>\t\n"
    r = cli.rig("journal", "zz")
    assert (r.code, r.err) == (2, "rig-state: no journal for 'zz'\n")
    r = cli.rig("rm", "b-2")
    assert (r.code, r.out, r.err) == (0, "", "")
    assert not list(cli.state_dir.glob("b-2.*json*"))
    r = cli.rig("rm", "b-2")  # nothing there: success, as rig-state, but said
    assert (r.code, r.out, r.err) == (0, "", "rig-state: warning: no run 'b-2'; nothing removed\n")
    assert cli.rig("show", "b-2").code == 2


def test_list_skips_a_malformed_file_with_a_warning(cli: Cli) -> None:
    """Quirk Q6 fixed: rig-state crashed on a malformed .json."""
    assert cli.rig("init", "rig-task", "good").code == 0
    (cli.state_dir / "bad.json").write_text("{not json", encoding="utf-8")
    r = cli.rig("list")
    assert r.code == 0
    assert r.out == "good\trig-task\tspec\t<ts>\t\n"
    assert r.err.startswith("rig-state: skipping bad.json: ")


def test_root_flag_places_the_state_under_that_directory(cli: Cli, tmp_path: object) -> None:
    other = cli.root / "elsewhere"
    other.mkdir()
    assert cli.rig("--root", str(other), "init", "rig-task", "r1").code == 0
    assert (other / ".rig" / "state" / "r1.json").is_file()
    assert cli.rig("show", "r1", "--root", str(other)).code == 0
    assert cli.rig("show", "r1").code == 2


def test_reads_and_extends_runs_written_by_the_typescript_tool(cli: Cli) -> None:
    cli.state_dir.mkdir(parents=True)
    ts = "2026-09-01T00:00:00.000Z"
    state = {
        "runId": "old-1",
        "skill": "rig-task",
        "phase": "red",
        "createdAt": ts,
        "updatedAt": ts,
        "branch": "b",
        "tests": {"status": "red"},
    }
    (cli.state_dir / "old-1.json").write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    lines = [
        {"ts": ts, "step": "init", "patch": {"branch": "b"}},
        {"ts": ts, "step": "red", "patch": {"phase": "red", "tests": {"status": "red"}}},
    ]
    legacy = "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
    (cli.state_dir / "old-1.jsonl").write_text(legacy, encoding="utf-8")

    assert cli.rig("show", "old-1").out.startswith("# rig-task state · old-1 · phase: red\n")
    r = cli.rig(
        "patch",
        "old-1",
        "--json",
        '{"phase":"green","tests":{"status":"green"}}',
        "--step",
        "green",
    )
    assert r.code == 0, r
    journal = cli.rig("journal", "old-1").raw_out
    assert journal.startswith(legacy)  # the old lines exactly as stored
    last = json.loads(journal.splitlines()[-1])
    assert list(last)[:3] == ["ts", "step", "patch"] and last["step"] == "green"


def test_blocked_rig_plugin_makes_the_skills_unknown(cli: Cli) -> None:
    r = cli.rig("init", "rig-task", "t1", SKILLSTATE_DISABLE_PLUGINS="rig")
    assert r.code == 2 and r.err.startswith("rig-state: unknown skill 'rig-task'. Known: ")
    r = cli.ss("init", "rig-task", "t1", SKILLSTATE_DISABLE_PLUGINS="rig")
    assert r.code == 2 and r.err.startswith("skillstate: unknown skill 'rig-task'. Known: ")
    assert "rig-task" not in r.err.split("Known: ")[1]
    assert not cli.state_dir.exists()


def test_skillstate_commands_expose_the_same_information(cli: Cli) -> None:
    r = cli.ss("init", "rig-task", "s1", "--json", '{"branch":"b"}')
    assert (r.code, r.out) == (0, "# rig-task state · s1 · phase: spec\nbranch: b\nupdated: <ts>\n")
    assert (cli.root / "ss-state" / "s1.json").is_file()  # the configured store, not .rig/state
    r = cli.ss("patch", "s1", "--json", '{"phase":"done"}')
    assert r.code == 1 and r.reasons == [
        "phase 'pr-open' requires tests.status = green (Step 4 must be GREEN before push)",
        "phase 'done' requires pr.number (a finished task has a PR)",
    ]
    assert r.err.startswith("skillstate: patch rejected:\n") and "phase: spec" in r.out
    r = cli.ss("patch", "s1", "--step", "n", stdin='{"nextAction":"go"}')
    assert r.code == 0
    assert cli.ss("get", "s1", "--field", "nextAction").out == "go\n"
    assert cli.ss("show", "s1").out.splitlines()[-2] == "nextAction: go"
    assert cli.ss("list").out == "s1\trig-task\tspec\t<ts>\tgo\n"
    assert len(cli.ss("journal", "s1").out.splitlines()) == 2
    r = cli.ss("show", "../x")
    assert (r.code, r.err) == (2, "skillstate: run id '../x' is not a valid id\n")
    r = cli.ss("init", "rig-task", "s2", "--json", '{"skill":"rig-epic"}')
    assert r.reasons == ["skill is set at init and never patched"]
    assert cli.ss("rm", "s1").code == 0 and cli.ss("show", "s1").code == 2


def test_rig_state_leftovers_match_it_or_say_why(cli: Cli) -> None:
    """Issue 27: a null phase, invalid JSON, ``rm`` of a missing run, ``get --field`` of a
    missing path (docs/rig.md, "Differences from rig-state")."""
    declared = (
        "spec → spec-review → red → green → refactor → self-review → pr-open → review-loop "
        "→ done → abandoned"
    )
    shown = cli.rig("init", "rig-task", "t1", "--json", '{"branch":"b"}').out
    before = cli.rig("get", "t1").raw_out
    # {"phase": null} deletes the phase: said so, not rig-state's "undefined"
    r = cli.rig("patch", "t1", "--json", '{"phase":null}')
    assert (r.code, r.out) == (1, shown)
    assert r.err == (
        "rig-state: patch rejected:\n  - phase: missing (a null deletes it), and every "
        f"rig-task run has a phase. Declared: {declared}\n"
    )
    r = cli.rig("init", "rig-task", "t2", "--json", '{"phase":null}')
    assert r.code == 1 and "phase: missing (a null deletes it)" in r.err
    # invalid JSON is a rejected patch (exit 1), as rig-state.ts's die(1, ...)
    for bad in ("{bad", "nope", '{"a":1,}', "NaN"):
        r = cli.rig("patch", "t1", "--json", bad)
        assert (r.code, r.out) == (1, ""), bad
        assert r.err.startswith("rig-state: patch is not valid JSON: ") and r.err.count("\n") == 1
    r = cli.rig("init", "rig-task", "t3", "--json", "{bad")
    assert r.code == 1 and r.err.startswith("rig-state: patch is not valid JSON: ")
    assert cli.rig("show", "t3").code == 2  # nothing was created
    assert cli.rig("get", "t1").raw_out == before  # nothing was changed
    # get --field of a missing path: rig-state's silent exit 1 (a test in a script)
    for path in ("missing", "branch.x", "spec.id", "blockers.0"):
        r = cli.rig("get", "t1", "--field", path)
        assert (r.code, r.out, r.err) == (1, "", ""), path
    # rm of a missing run: exit 0 as rig-state (a clean-up run twice), with a warning
    r = cli.rig("rm", "nope")
    assert (r.code, r.out, r.err) == (0, "", "rig-state: warning: no run 'nope'; nothing removed\n")
    assert cli.ss("init", "rig-task", "other").code == 0  # a store (rm refuses a missing one)
    r = cli.ss("rm", "nope")
    assert (r.code, r.err) == (0, "skillstate: warning: no run 'nope'; nothing removed\n")
    assert sorted(p.name for p in cli.state_dir.iterdir() if p.suffix != ".lock") == [
        "t1.json",
        "t1.jsonl",
    ]
