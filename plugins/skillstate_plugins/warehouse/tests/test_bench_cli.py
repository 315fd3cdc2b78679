"""``skillstate bench warehouse`` and ``skillstate demo`` as a user runs them (subprocesses)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from skillstate_testing import clean_env, run_command


def run(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``skillstate ARGS``, for real, in a clean environment."""
    return run_command("skillstate", *args, **kwargs)


def test_bench_json_covers_every_runtime_horizon_and_seed(tmp_path: Path) -> None:
    out = run(
        "bench",
        "warehouse",
        "--runtime",
        "all",
        "--horizon",
        "5,10",
        "--seeds",
        "2",
        "--json",
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    runs = data["runs"]
    assert len(runs) == 4 * 2 * 2
    assert {r["runtime"] for r in runs} == {"skill-state", "react", "memory", "stateful"}
    assert {(r["horizon"], r["seed"]) for r in runs} == {(5, 42), (5, 43), (10, 42), (10, 43)}
    assert all(r["score"] == 1.0 and r["calls"] == r["horizon"] for r in runs)
    for key in ("avg_prompt_chars", "max_prompt_chars", "avg_prompt_tokens_est", "rejections"):
        assert key in runs[0]
    assert len(data["summary"]) == 8 and all(s["seeds"] == 2 for s in data["summary"])
    assert not (tmp_path / ".skillstate").exists()  # memory: unless a store is named


def test_bench_table_and_the_summary(tmp_path: Path) -> None:
    out = run(
        "bench", "warehouse", "--horizon", "6", "--seeds", "2", "--noise", "low", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:5] == ["runtime", "T", "seed", "noise", "score"]
    assert "avg chars" in lines[0] and "avg tok~" in lines[0] and "total chars" in lines[0]
    rows = [line for line in lines[2:4]]
    assert all(re.match(r"skill-state\s+6\s+4[23]\s+5\s+1\.00\s", row) for row in rows), rows
    assert "mean ± SD over seeds" in out.stdout and "1.00 ±0.00" in out.stdout
    assert out.stderr == ""  # no progress bar when stderr is not a terminal


def test_bench_wait_policy_and_a_drift_scenario(tmp_path: Path) -> None:
    wait = run("bench", "warehouse", "--policy", "wait", "--horizon", "10", "--json", cwd=tmp_path)
    assert json.loads(wait.stdout)["runs"][0]["score"] == 0.0
    stale = run(
        "bench",
        "warehouse",
        "--policy",
        "stale",
        "--scenario",
        "B",
        "--horizon",
        "20",
        "--drift-at",
        "5",
        "--env-retries",
        "2",
        cwd=tmp_path,
    )
    assert stale.returncode == 0, stale.stderr
    assert re.search(r"no \(\d+ stale\)", stale.stdout), stale.stdout
    oracle = run(
        "bench", "warehouse", "--scenario", "audit", "--horizon", "20", "--json", cwd=tmp_path
    )
    recovery = json.loads(oracle.stdout)["runs"][0]["recovery"]
    assert recovery["recovered"] is True and recovery["lag"] == 0


def test_bench_progress_is_plain_lines_off_a_terminal_and_a_bar_on_one(tmp_path: Path) -> None:
    out = run("bench", "warehouse", "--horizon", "5", "--seeds", "2", "--progress", cwd=tmp_path)
    assert out.returncode == 0
    lines = out.stderr.splitlines()
    assert len(lines) == 2 and "\r" not in out.stderr
    assert re.fullmatch(
        r"\[bench\] 2/2 episodes, 10 calls, [\d.,]+ calls/s, ETA 0:00 — skill-state T=5 seed=43 "
        r"noise=0 score 1\.00",
        lines[1],
    ), lines
    import os
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "skillstate"),
                "bench",
                "warehouse",
                "--horizon",
                "5",
                "--progress",
            ],
            stdout=subprocess.PIPE,
            stderr=follower,
            env=clean_env(),
            cwd=tmp_path,
            timeout=60,
        )
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert done.returncode == 0
    assert b"\r[" + b"#" * 30 + b"] 1/1 episodes, 5 calls" in drawn, drawn


def test_bench_bad_arguments_are_named(tmp_path: Path) -> None:
    bad = run("bench", "warehouse", "--runtime", "langgraph", cwd=tmp_path)
    assert bad.returncode == 2
    assert "unknown runtime langgraph; choose from skill-state, react, memory" in bad.stderr
    bad = run("bench", "warehouse", "--policy", "genius", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown policy 'genius'" in bad.stderr
    bad = run("bench", "warehouse", "--scenario", "heist", cwd=tmp_path)
    assert bad.returncode == 2 and "warehouse option scenario must be one of" in bad.stderr
    bad = run("bench", "warehouse", "--horizon", "ten", cwd=tmp_path)
    assert bad.returncode == 2 and "expected comma-separated integers" in bad.stderr
    bad = run("bench", "warehouse", "--policy", "llm", cwd=tmp_path)
    assert bad.returncode == 2 and "SKILLSTATE_LLM_MODEL" in bad.stderr
    for budget in ("-5", "0"):
        bad = run(
            "bench", "warehouse", "--runtime", "window", "--window-chars", budget, cwd=tmp_path
        )
        assert bad.returncode == 2, bad.stdout
        assert bad.stderr == (
            f"skillstate: --window-chars must be a budget of at least 1 character, got {budget}\n"
        )
    tiny = run("bench", "warehouse", "--runtime", "window", "--window-chars", "1", "--horizon",
               "3", "--json", cwd=tmp_path)  # fmt: skip
    assert json.loads(tiny.stdout)["runs"][0]["window_chars"] == 1  # taken as given


def _this_plugin() -> str:
    """The entry-point name this package is installed under (``warehouse`` when bundled)."""
    from skillstate_testing import make_host

    owner = make_host().environments.owner("warehouse")
    assert owner is not None
    return str(owner)


def test_a_blocked_warehouse_plugin_is_unknown_and_its_commands_are_gone(tmp_path: Path) -> None:
    import os

    blocked = ",".join(filter(None, [os.environ.get("SKILLSTATE_DISABLE_PLUGINS"), _this_plugin()]))
    out = run("demo", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked)
    assert out.returncode == 2 and "invalid choice: 'demo'" in out.stderr
    out = run("bench", "warehouse", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked)
    assert out.returncode == 2 and "invalid choice: 'warehouse'" in out.stderr  # its benchmark too
    listing = run("--help", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked).stdout
    assert "  demo " not in listing and "  init " in listing and "  bench " in listing
    bench_help = run("bench", "--help", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked).stdout
    assert "warehouse" not in bench_help and "report" in bench_help
    code = (
        "from skillstate.plugin.runtime import Runtime\n"
        "rt = Runtime('memory:')\n"
        "try:\n"
        "    rt.initialize_skill('s', 'p', environment='warehouse')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "print(rt.list_sessions()['active_sessions'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_DISABLE_PLUGINS=blocked),
        cwd=tmp_path,
        timeout=60,
    )
    first, count = done.stdout.splitlines()
    assert first.startswith("EnvironmentNotFound unknown environment 'warehouse'. Available: mock")
    assert count == "0"
    listed = run("plugins", "--json", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked)
    row = next(r for r in json.loads(listed.stdout) if r["name"] == _this_plugin())
    assert row["status"] != "active"


def test_demo_runs_a_turn_by_turn_episode_and_leaves_nothing_behind(tmp_path: Path) -> None:
    out = run("demo", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    store = re.search(r"^store: file:(\S+)/state$", text, re.MULTILINE)
    assert store is not None and not Path(store.group(1)).exists()  # the temporary store is gone
    assert text.count("\nturn ") == 9
    assert "--- BACKGROUND TELEMETRY --- (3 noisy lines, not in Σ)" in text
    assert "env_rejected — ROLLED BACK: Σ unchanged, still step 2" in text
    assert 'REJECTED: Shelf "shelf_1" is already occupied by "item_0"' in text
    assert re.search(r"ΔΣ\s+patch:\s+\{\"inventory\":\{\"shelf_0\":\"item_0\"\}\}", text)
    assert re.search(r"a_t\s+action:\s+Store item_0 shelf_0", text)
    assert "score 1.00 (8/8 events handled), 9 calls, rejections: env_rejected=1" in text
    assert "Reasoning" not in text  # R_t is never shown, stored or returned
    assert not (tmp_path / ".skillstate").exists()


def test_demo_on_a_named_store_keeps_the_session_and_its_journal(tmp_path: Path) -> None:
    out = run("--store", "file:runs", "demo", "--horizon", "5", "--noise", "0", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "BACKGROUND TELEMETRY" not in out.stdout
    record = json.loads((tmp_path / "runs" / "demo-warehouse.json").read_text())
    assert record["status"] == "completed" and record["step"] == 5
    journal = (tmp_path / "runs" / "demo-warehouse.jsonl").read_text().splitlines()
    assert len(journal) == 7  # created, 5 steps, 1 recorded rollback
    verify = run("--store", "file:runs", "verify", cwd=tmp_path)
    assert verify.returncode == 0, verify.stdout + verify.stderr
