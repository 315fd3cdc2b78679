"""Results files as users make and mangle them: one setting per table row and per figure, every
bad line named, outputs that cannot be written, a reader that goes away, a last line without
its newline, two writers at once (oracle runs of the warehouse, no model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import clean_env, run_command

from ..results import ResultsError, ResultsFile, load_results


def skillstate(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_command("skillstate", *args, cwd=cwd, timeout=300)


def bench(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = skillstate(
        "bench", "warehouse", "--runtime", "all", "--horizon", "5", "--seeds", "2",
        "--out", str(out), "--resume", *args, cwd=out.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="module")
def two_settings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same runtimes, T, noise and seeds twice: with --retries 2 and with --retries 0."""
    out = tmp_path_factory.mktemp("two") / "runs.jsonl"
    bench(out)
    again = bench(out, "--retries", "0")  # another experiment: --resume runs it all
    assert "resuming" not in again.stderr
    return out


EPISODE = {
    "benchmark": "warehouse", "runtime": "react", "policy": "oracle", "horizon": 5, "seed": 42,
    "noise": 0, "score": 1.0, "prompt_chars_per_call": [2000, 2100, 2200, 2300, 2400],
}  # fmt: skip


def test_the_report_never_pools_two_experiments(two_settings: Path) -> None:
    data = json.loads(
        skillstate("bench", "report", str(two_settings), "--json", cwd=two_settings.parent).stdout
    )
    rows = data["summary"]
    assert len(rows) == 8 and all(r["seeds"] == 2 for r in rows)  # 4 runtimes × 2 settings
    assert sorted({r["retries"] for r in rows}) == [0, 2]
    differences = data["differences"]
    assert len(differences) == 6 and all(d["seeds"] == 2 for d in differences)
    assert sorted(d["retries"] for d in differences) == [0, 0, 0, 2, 2, 2]
    text = skillstate("bench", "report", str(two_settings), cwd=two_settings.parent).stdout
    header = next(line for line in text.splitlines() if line.startswith("runtime"))
    assert header.split()[:5] == ["runtime", "T", "noise", "scenario", "retries"]  # what differs


def test_a_figure_shows_one_setting(two_settings: Path, tmp_path: Path) -> None:
    mixed = skillstate(
        "bench", "plot", str(two_settings), "-o", str(tmp_path / "f.png"), cwd=tmp_path
    )
    assert mixed.returncode == 2
    assert mixed.stderr == (
        f"skillstate: {two_settings}: the runs differ in more than runtime, T, noise and seed: "
        "retries (0, 2); plot one setting (--where FIELD=VALUE)\n"
    )
    assert not (tmp_path / "f.png").exists()
    one = skillstate("bench", "plot", str(two_settings), "-o", str(tmp_path / "f.png"),
                     "--where", "retries=0", cwd=tmp_path)  # fmt: skip
    assert one.returncode == 0, one.stderr
    bad = skillstate("bench", "plot", str(two_settings), "-o", str(tmp_path / "g.png"),
                     "--where", "colour=red", cwd=tmp_path)  # fmt: skip
    assert (
        bad.returncode == 2 and "--where takes FIELD=VALUE with FIELD one of model," in bad.stderr
    )


def test_a_figure_refuses_drift_runs_beside_runs_without_drift(tmp_path: Path) -> None:
    """A file with a drift scenario and runs without one is refused, naming both; it was drawn
    from the runs without drift alone, the drift runs dropped without a word."""
    out = tmp_path / "mixed.jsonl"
    for extra in ([], ["--scenario", "audit"]):
        done = skillstate(
            "bench", "warehouse", "--runtime", "skill-state,react", "--horizon", "10",
            "--seeds", "2", "--out", str(out), "--resume", *extra, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    mixed = skillstate("bench", "plot", str(out), "-o", str(tmp_path / "f.svg"), cwd=tmp_path)
    assert (mixed.returncode, mixed.stdout) == (2, "")
    assert mixed.stderr == (
        f"skillstate: {out}: the runs differ in more than runtime, T, noise and seed: "
        'scenario ("audit", null); plot one setting (--where FIELD=VALUE)\n'
    )
    assert not (tmp_path / "f.svg").exists()
    for where in ("scenario=null", "scenario=audit"):
        one = skillstate("bench", "plot", str(out), "-o", str(tmp_path / "f.svg"),
                         "--where", where, cwd=tmp_path)  # fmt: skip
        assert one.returncode == 0, one.stderr


def test_the_report_has_a_recovery_column_for_drift_runs(tmp_path: Path) -> None:
    """Table 3's recovery per drift setting: seeds recovered, mean lag, mean stale turns (the
    summary had no recovery at all; only ``--runs`` showed each episode's)."""
    out = tmp_path / "drift.jsonl"
    for extra in (
        ["--runtime", "skill-state"],
        ["--runtime", "skill-state,react", "--scenario", "audit"],
        ["--policy", "stale", "--env-retries", "3", "--scenario", "audit"],
    ):
        done = skillstate("bench", "warehouse", "--horizon", "10", "--seeds", "2",
                          "--out", str(out), "--resume", *extra, cwd=tmp_path)  # fmt: skip
        assert done.returncode == 0, done.stderr
    text = skillstate("bench", "report", str(out), cwd=tmp_path).stdout
    lines = text.split("(Memory's summary calls included)\n", 1)[1].split("\n\n")[0].splitlines()
    assert lines[0].split()[-1] == "recovery"
    cells = {tuple(line.split()[:6]): line.rsplit("  ", 1)[1].strip() for line in lines[2:]}
    assert cells == {
        ("skill-state", "10", "0", "-", "oracle", "0"): "-",  # no drift, no recovery
        ("skill-state", "10", "0", "audit", "oracle", "0"): "2/2, lag 0",
        ("react", "10", "0", "audit", "oracle", "0"): "2/2, lag 0",
        ("skill-state", "10", "0", "audit", "stale", "3"): "0/2, 4 stale",
    }
    data = json.loads(skillstate("bench", "report", str(out), "--json", cwd=tmp_path).stdout)
    found = [
        (r["policy"], r["scenario"], r.get("recovered"), r.get("recovery_seeds"),
         r.get("recovery_lag"), r.get("stale_turns"))
        for r in data["summary"]
        if r["runtime"] == "skill-state"
    ]  # fmt: skip
    assert found == [
        ("oracle", None, None, None, None, None),
        ("oracle", "audit", 2, 2, 0.0, 0.0),
        ("stale", "audit", 0, 2, None, 4.0),
    ]
    csv_out = skillstate("bench", "report", str(out), "--csv", "-", cwd=tmp_path).stdout
    assert "recovered,recovery_seeds,recovery_lag,stale_turns" in csv_out.splitlines()[0]


def test_a_window_budget_is_a_setting_of_the_window_only(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    bench(out)
    again = skillstate(
        "bench", "warehouse", "--runtime", "skill-state,window", "--horizon", "5", "--seeds", "2",
        "--window-chars", "2000", "--out", str(out), "--resume", cwd=tmp_path,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "2 of 4 episodes are done" in again.stderr  # SKILL.state does not read the budget
    data = json.loads(skillstate("bench", "report", str(out), "--json", cwd=tmp_path).stdout)
    window = [d for d in data["differences"] if d["runtime"] == "window"]
    assert [(d["window_chars"], d["seeds"]) for d in window] == [
        (2000, 2)
    ]  # paired with SKILL.state


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ({"runtime": "x", "score": "abc"}, "not a skillstate bench episode (no benchmark)"),
        ({**EPISODE, "score": "abc"}, 'score must be a number, got "abc"'),
        ({**EPISODE, "score": None}, "score must be a number, got null"),
        ({k: v for k, v in EPISODE.items() if k != "seed"}, "not a skillstate bench episode (no seed)"),
        ({**EPISODE, "seed": 4.5}, "seed must be an integer, got 4.5"),
        ({**EPISODE, "total_prompt_chars": "many"}, 'total_prompt_chars must be a number or null, got "many"'),
        ({**EPISODE, "rejections": {"env_rejected": "1"}}, "rejections must be an object of integer counts or null, got {\"env_rejected\": \"1\"}"),
        ({**EPISODE, "recovery": {"lag": 0}}, "recovery must hold recovered (true/false), lag and stale_turns"),
        ([1, 2], "not a skillstate bench episode (not a JSON object)"),
    ],
)  # fmt: skip
def test_every_bad_line_is_named(line: Any, said: str, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(EPISODE) + "\n" + json.dumps(line) + "\n")
    for command in (["report", str(path)], ["plot", str(path), "-o", str(tmp_path / "f.png")]):
        done = skillstate("bench", *command, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"skillstate: {path}, line 2: {said}\n"


def test_an_episode_twice_is_named(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    path.write_text(json.dumps(EPISODE) + "\n" + json.dumps({**EPISODE, "score": 0.5}) + "\n")
    done = skillstate("bench", "report", str(path), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"skillstate: {path}, line 2: the same episode (settings and seed) as line 1; a results "
        "file holds each episode once\n"
    )


def test_outputs_that_cannot_be_written_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(EPISODE) + "\n")
    missing = tmp_path / "no" / "such" / "dir"
    for command, target in (
        (["report", str(path), "--csv", str(missing / "s.csv")], missing / "s.csv"),
        (["report", str(path), "--csv-runs", str(missing / "r.csv")], missing / "r.csv"),
        (["plot", str(path), "-o", str(missing / "f.png")], missing / "f.png"),
    ):
        done = skillstate("bench", *command, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stderr == f"skillstate: cannot write {target}: No such file or directory\n"


@pytest.mark.parametrize(
    "command",
    [["report", "{runs}", "--runs"], ["plot", "{runs}", "-o", "{dir}/f.png"],
     ["warehouse", "--horizon", "3"]],
    ids=["report", "plot", "warehouse"],
)  # fmt: skip
def test_a_reader_that_goes_away_ends_every_bench_command_quietly(
    command: list[str], tmp_path: Path
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(EPISODE) + "\n")
    argv = [a.format(runs=path, dir=tmp_path) for a in command]
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "skillstate"), "bench", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=clean_env(), cwd=tmp_path, text=True,
    )  # fmt: skip
    assert process.stdout is not None
    process.stdout.close()  # `| head -0`: nobody reads what it prints
    _, stderr = process.communicate(timeout=120)
    assert (process.returncode, stderr) == (141, "")  # as every command whose reader left


def test_a_whole_last_episode_without_its_newline_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    done = skillstate(
        "bench", "warehouse", "--horizon", "5", "--seeds", "2", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    out.write_bytes(out.read_bytes().rstrip(b"\n"))  # died after the line, before its newline
    report = skillstate("bench", "report", str(out), cwd=tmp_path)
    assert report.stdout.startswith(f"2 episodes of warehouse from {out}") and report.stderr == ""
    resumed = skillstate("bench", "warehouse", "--horizon", "5", "--seeds", "3", "--out", str(out),
                         "--resume", cwd=tmp_path)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "2 of 3 episodes are done" in resumed.stderr and "torn" not in resumed.stderr
    lines = out.read_text().split("\n")
    assert lines[-1] == "" and [json.loads(x)["seed"] for x in lines[:-1]] == [42, 43, 44]


def test_a_torn_last_line_is_reported_and_cut_off(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    done = skillstate(
        "bench", "warehouse", "--horizon", "5", "--seeds", "2", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    with out.open("a") as handle:
        handle.write('{"runtime": "skill-st')
    report = skillstate("bench", "report", str(out), cwd=tmp_path)
    assert report.returncode == 0
    assert report.stderr == f"skillstate: warning: {out}: ignoring a torn last line (21 bytes)\n"
    resumed = skillstate("bench", "warehouse", "--horizon", "5", "--seeds", "2", "--out", str(out),
                         "--resume", cwd=tmp_path)  # fmt: skip
    assert resumed.returncode == 0
    assert f"skillstate: {out}: cut off a torn last line (21 bytes)\n" in resumed.stderr
    assert len(load_results(out).runs) == 2 and load_results(out).torn_bytes == 0


def test_a_second_writer_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    first = ResultsFile(out)
    first.open_for_append()
    try:
        with pytest.raises(ResultsError, match="is being written by another skillstate bench run"):
            ResultsFile(out).open_for_append()
        second = skillstate(
            "bench", "warehouse", "--horizon", "3", "--out", str(out), "--resume", cwd=tmp_path
        )
        assert second.returncode == 2
        assert second.stderr == (
            f"skillstate: {out} is being written by another skillstate bench run; let it finish, "
            "or choose another --out\n"
        )
    finally:
        first.close()
    third = skillstate(
        "bench", "warehouse", "--horizon", "3", "--out", str(out), "--resume", cwd=tmp_path
    )
    assert third.returncode == 0, third.stderr  # the lock went with the first writer
