"""``skillstate bench repo``: Tables 6, 9 and 10's structure with the scripted oracle (no LLM)."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_plugins.bench import (
    EpisodeConfig,
    EpisodeResult,
    Reply,
    TurnView,
    format_reply,
    run_episode,
)
from skillstate_repo.benchmark import REPO_BENCHMARK
from skillstate_repo.oracle import RepoOracle
from skillstate_testing import run_command

from skillstate.plugin.runtime import Runtime


class WaitPolicy:
    """Always ``Wait`` with an empty patch: the floor of the score (``--policy wait``)."""

    name = "wait"

    def respond(self, view: TurnView) -> Reply:
        return Reply(format_reply(view.runtime, "Waiting", {}, "Wait"))


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(f"memory:repo-{uuid.uuid4().hex}") as rt:
        yield rt


def _run(rt: Runtime, policy: Any = None, **config: Any) -> EpisodeResult:
    return run_episode(
        REPO_BENCHMARK, EpisodeConfig(benchmark="repo", **config), policy or RepoOracle(), rt
    )


def test_table_6_structure_flat_skill_state_growing_history_oracle_one(runtime: Runtime) -> None:
    avg: dict[str, list[float]] = {}
    for kind in ("skill-state", "react", "memory", "stateful"):
        for horizon in (10, 25, 50, 100):
            result = _run(runtime, runtime=kind, horizon=horizon)
            assert result.score == 1.0 and result.rejections == {}, (
                kind,
                horizon,
                result.rejections,
            )
            avg.setdefault(kind, []).append(result.to_dict()["avg_prompt_chars"])
    assert max(avg["skill-state"]) / min(avg["skill-state"]) <= 1.1
    for kind in ("react", "memory", "stateful"):
        assert avg[kind] == sorted(avg[kind]) and avg[kind][-1] > 2.5 * avg[kind][0], (
            kind,
            avg[kind],
        )


def test_sigma_is_the_relational_state_and_stays_small(runtime: Runtime) -> None:
    result = _run(runtime, horizon=100)
    state = runtime.get_session(result.session_id)["execution_state"]
    assert set(state) == {"issues", "prs", "master"} and state["prs"] == {}  # every PR merged
    assert max(t.state_bytes for t in result.turns) < 600


@pytest.mark.parametrize("noise", [0, 5, 20, 50])
def test_table_9_the_oracle_scores_one_at_every_noise_level(runtime: Runtime, noise: int) -> None:
    for kind in ("skill-state", "react"):
        result = _run(runtime, runtime=kind, horizon=50, noise=noise, seed=43)
        assert result.score == 1.0


@pytest.mark.parametrize("scenario", ["force-push", "flaky-ci"])
def test_table_10_drift_a_and_b_are_recovered_with_lag_zero(
    runtime: Runtime, scenario: str
) -> None:
    for kind in ("skill-state", "react", "memory", "stateful"):
        result = _run(runtime, runtime=kind, horizon=50, scenario=scenario)
        assert result.recovery is not None and result.recovery["recovered"] is True
        assert result.recovery["lag"] == 0 and result.score == 1.0
    stale = _run(
        runtime, RepoOracle(use_alerts=False), horizon=50, scenario=scenario, env_retries=3
    )
    assert stale.recovery is not None and stale.recovery["recovered"] is False
    assert stale.recovery["stale_turns"] == 4 and stale.score < 1.0


def test_table_10_drift_c_pr_closed_is_recovered_by_no_one(runtime: Runtime) -> None:
    for kind in ("skill-state", "react"):
        result = _run(runtime, runtime=kind, horizon=50, scenario="pr-closed")
        assert result.recovery is not None and result.recovery["recovered"] is False
        assert result.recovery["lag"] is None and result.score < 1.0


def test_the_floor_and_a_budget_capped_window(runtime: Runtime) -> None:
    assert _run(runtime, WaitPolicy(), horizon=30).score == 0.0
    window = [_run(runtime, runtime="window", horizon=h).score for h in (25, 100)]
    assert window[0] < 1.0 and window[1] < 1.0


def _this_plugin() -> str:
    from skillstate_testing import make_host

    owner = make_host().environments.owner("repo")  # the plugin of the benchmark too
    assert owner is not None
    return str(owner)


def test_bench_repo_on_the_command_line_and_blocking_the_plugin(tmp_path: Path) -> None:
    out = run_command(
        "skillstate", "bench", "repo", "--runtime", "all", "--horizon", "10", "--json",
        "--out", str(tmp_path / "r.jsonl"), cwd=tmp_path,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    runs = json.loads(out.stdout)["runs"]
    assert [r["runtime"] for r in runs] == ["skill-state", "react", "memory", "stateful"]
    assert all(r["benchmark"] == "repo" and r["score"] == 1.0 for r in runs)
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 4
    listed = json.loads(run_command("skillstate", "plugins", "--json", cwd=tmp_path).stdout)
    assert any(r["name"] == _this_plugin() and r["status"] == "active" for r in listed)
    blocked = ",".join(filter(None, [os.environ.get("SKILLSTATE_DISABLE_PLUGINS"), _this_plugin()]))
    gone = run_command(
        "skillstate", "bench", "repo", cwd=tmp_path, SKILLSTATE_DISABLE_PLUGINS=blocked
    )
    assert gone.returncode == 2 and "invalid choice: 'repo'" in gone.stderr
    still = run_command(
        "skillstate",
        "bench",
        "report",
        str(tmp_path / "r.jsonl"),
        cwd=tmp_path,
        SKILLSTATE_DISABLE_PLUGINS=blocked,
    )
    assert still.returncode == 0 and "episodes of repo" in still.stdout  # reports need no plugin
