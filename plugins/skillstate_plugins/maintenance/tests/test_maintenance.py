"""The maintenance plugin's commands through the real ``skillstate`` console script.

Only public entry points: runs are made with ``skillstate init``/``patch``, and each
command's output and exit code are what docs/cli.md gives. These tests run again
against a copy of this package installed alone (tests/core/test_liftable.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from skillstate_testing import run_command


def ss(cwd: Path, *args: str) -> tuple[int, str, str]:
    done = run_command("skillstate", *args, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def two_runs(cwd: Path) -> None:
    """Runs ``a1`` and ``a2`` of the rig-task skill, two versions each, and a closed
    session ``s1`` (the runtime's public API: a command line cannot close a run)."""
    from skillstate.plugin.runtime import Runtime

    for run_id in ("a1", "a2"):
        assert ss(cwd, "init", "rig-task", run_id)[0] == 0
        assert ss(cwd, "patch", run_id, "--json", '{"branch": "b"}')[0] == 0
    runtime = Runtime(f"file:{cwd / '.skillstate' / 'state'}")
    runtime.initialize_skill("s1", "Keep a counter.", {"counter": 0})
    runtime.close_session("s1")


def test_verify_reports_every_run_and_a_journal_edited_behind_its_back(tmp_path: Path) -> None:
    two_runs(tmp_path)
    code, out, err = ss(tmp_path, "verify")
    assert (code, err) == (0, ""), err
    assert out.strip().endswith("3 runs checked, 0 differ from their journal")
    journal = tmp_path / ".skillstate" / "state" / "a2.jsonl"
    lines = journal.read_text(encoding="utf-8").splitlines(keepends=True)
    journal.write_text("".join(lines[:-1]), encoding="utf-8")  # the last accepted write lost
    code, out, _ = ss(tmp_path, "verify", "--json")
    rows = {row["id"]: row for row in json.loads(out)}
    assert code == 1 and rows["a1"]["ok"] and not rows["a2"]["ok"]
    assert ss(tmp_path, "verify", "nope")[0] == 2


def test_verify_and_gc_refuse_a_store_that_is_not_there(tmp_path: Path) -> None:
    for command in (["verify"], ["gc", "--older-than", "1d"]):
        code, out, err = ss(tmp_path, "--store", f"file:{tmp_path / 'typo'}", *command)
        assert (code, out) == (2, ""), command
        assert err.startswith("skillstate: no store at ") and err.count("\n") == 1
    assert not (tmp_path / "typo").exists()


def test_gc_deletes_only_what_matches_and_dry_run_deletes_nothing(tmp_path: Path) -> None:
    two_runs(tmp_path)
    code, out, _ = ss(tmp_path, "gc", "--older-than", "0s", "--dry-run", "--json")
    assert code == 0 and {r["id"] for r in json.loads(out)["runs"]} == {"a1", "a2", "s1"}
    assert ss(tmp_path, "list", "--json")[1].count('"id"') == 3  # nothing deleted
    code, out, _ = ss(tmp_path, "gc", "--closed-before", "2999-01-01")
    assert (code, out.splitlines()[-1]) == (0, "deleted 1 run")
    listed = {row["id"] for row in json.loads(ss(tmp_path, "list", "--json")[1])}
    assert listed == {"a1", "a2"}  # only the closed session went; active runs are kept
    code, _, err = ss(tmp_path, "gc", "--older-than", "3x")
    assert code == 2 and "--older-than must be a number with a unit" in err
    assert ss(tmp_path, "gc")[0] == 2  # no criterion: usage, nothing deleted


def test_migrate_copies_runs_that_then_verify_and_a_second_run_copies_nothing(
    tmp_path: Path,
) -> None:
    two_runs(tmp_path)
    target = f"sqlite:{tmp_path / 'copy.db'}"
    code, out, err = ss(tmp_path, "migrate", "--from", "file:", "--to", target)
    assert code == 0, err
    assert out.splitlines()[-1].startswith("copied 3 run(s), 0 already present, 0 not copied")
    assert ss(tmp_path, "--store", target, "verify")[0] == 0
    assert json.loads(ss(tmp_path, "--store", target, "get", "a2")[1])["branch"] == "b"
    code, out, _ = ss(tmp_path, "migrate", "--from", "file:", "--to", target)
    assert code == 0 and out.splitlines()[-1].startswith("nothing to copy")
    code, _, err = ss(tmp_path, "migrate", "--from", f"file:{tmp_path / 'none'}", "--to", target)
    assert code == 2 and "(--from): nothing was created" in err


def test_gc_refuses_an_age_that_would_surprise_and_survives_one_out_of_range(
    tmp_path: Path,
) -> None:
    two_runs(tmp_path)
    code, _, err = ss(tmp_path, "gc", "--older-than", "30")  # thirty seconds, or days?
    assert code == 2 and "needs a unit" in err and err.count("\n") == 1
    code, _, err = ss(tmp_path, "gc", "--older-than", "1000000000d")
    assert code == 2 and "is too long" in err and "Traceback" not in err
    code, out, err = ss(tmp_path, "gc", "--older-than", "800000d")  # before the year 1
    assert (code, err, out.splitlines()[-1]) == (0, "", "deleted 0 runs")
    code, _, err = ss(tmp_path, "gc", "--closed-before", "x" * 100_000)
    assert code == 2 and len(err) < 5000  # the value is quoted in part, not whole


def test_migrate_reports_a_damaged_source_run_and_copies_the_others(tmp_path: Path) -> None:
    two_runs(tmp_path)
    with (tmp_path / ".skillstate" / "state" / "a2.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"broken\n')
    target = f"sqlite:{tmp_path / 'copy.db'}"
    code, out, _ = ss(tmp_path, "migrate", "--from", "file:", "--to", target, "--json")
    report = json.loads(out)
    assert code == 1
    assert {r["id"] for r in report["copied"]} == {"a1", "s1"}
    assert [r["id"] for r in report["invalid"]] == ["a2"]
    assert "cannot be read in the source" in report["invalid"][0]["detail"]


def test_migrate_dry_run_creates_no_target(tmp_path: Path) -> None:
    two_runs(tmp_path)
    code, out, _ = ss(tmp_path, "migrate", "--from", "file:", "--to", "sqlite:new.db", "--dry-run")
    assert code == 0 and out.splitlines()[-1].startswith("would copy 3 run(s)")
    assert not (tmp_path / "new.db").exists()


def test_migrate_masks_the_target_password_and_escapes_control_characters(
    tmp_path: Path,
) -> None:
    two_runs(tmp_path)
    code, _, err = ss(tmp_path, "migrate", "--from", "file:", "--to", "sqlite://u:s3cretPW@/t.db")
    assert code in (2, 3) and "s3cretPW" not in err and "***" in err
    code, _, err = ss(tmp_path, "migrate", "--from", "file:./\x1b[31mred", "--to", "memory:")
    assert code == 2 and "\x1b" not in err and "\\x1b" in err
