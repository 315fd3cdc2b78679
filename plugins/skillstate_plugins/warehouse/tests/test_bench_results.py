"""A sweep against a model endpoint, as a user runs it: results as they happen, loud failures,
``--resume``, Ctrl-C, ``--concurrency``, the Memory summary written by the model — then
``bench report`` and ``bench plot`` from the results file. The endpoint is ``fakellm``:
a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import csv
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import clean_env, run_command

from .fakellm import Answer, FakeModel, serve


@pytest.fixture
def fake() -> Iterator[tuple[FakeModel, str]]:
    with serve() as found:
        yield found


def bench(url: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_command(
        "skillstate", "bench", "warehouse", "--policy", "llm", "--llm-model", "fake-1",
        "--llm-base-url", url, *args, cwd=cwd, SKILLSTATE_LLM_API_KEY="sk-test-secret",
    )  # fmt: skip


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_endpoint_failure_exits_loudly_keeps_finished_episodes_and_resume_continues(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    out = tmp_path / "runs.jsonl"
    model.script = [Answer()] * 12  # two 5-event episodes and two calls of the third, then:
    model.then = Answer(400, echo_auth=True)  # an error body that repeats the Authorization header
    failed = bench(url, "--horizon", "5", "--seeds", "3", "--out", str(out), "--no-progress",
                   "--http-retries", "0", cwd=tmp_path)  # fmt: skip
    assert failed.returncode == 3, failed.stderr
    assert failed.stderr.count("\n") == 1, failed.stderr  # one line
    assert failed.stderr.startswith(
        f"skillstate: the model endpoint {url}/chat/completions answered HTTP 400: "
    )
    assert "2 episodes finished are in" in failed.stderr and "--resume continues" in failed.stderr
    assert model.headers[-1]["Authorization"] == "Bearer sk-test-secret"  # and it was repeated
    assert "sk-test-secret" not in failed.stderr + failed.stdout + out.read_text()
    assert "Invalid token: [REDACTED]" in failed.stderr
    done = lines(out)
    assert [(r["seed"], r["score"]) for r in done] == [(42, 1.0), (43, 1.0)]
    first = done[0]
    for key, value in {
        "benchmark": "warehouse", "runtime": "skill-state", "policy": "llm:fake-1", "model": "fake-1",
        "endpoint": f"{url}/chat/completions", "horizon": 5, "noise": 0, "scenario": None,
        "retries": 2, "env_retries": 0, "temperature": 0.0, "strict_parse": False,
    }.items():  # fmt: skip
        assert first[key] == value, key
    assert first["skillstate_version"] and first["usage_prompt_tokens"] > 0
    assert first["total_prompt_tokens_est"] > 0 and len(first["prompt_chars_per_call"]) == 5

    again = bench(url, "--horizon", "5", "--seeds", "3", "--out", str(out), cwd=tmp_path)
    assert again.returncode == 2 and "already holds results; add --resume" in again.stderr

    with out.open("a") as handle:  # a line torn by a crash while it was written
        handle.write('{"runtime": "skill-st')
    model.then = Answer()
    before = len(model.requests)
    resumed = bench(url, "--horizon", "5", "--seeds", "3", "--out", str(out), "--resume",
                    "--no-progress", cwd=tmp_path)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stderr and "2 of 3 episodes are done" in resumed.stderr
    assert len(model.requests) - before == 5  # only the missing episode ran
    assert [r["seed"] for r in lines(out)] == [42, 43, 44]
    assert len(resumed.stdout.splitlines()) > 5  # the table shows all three


def test_an_endpoint_failure_stops_a_parallel_sweep_at_once(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    model.script = [Answer(400)]  # one worker's first call fails for good...
    model.then = Answer(delay=30)  # ...while the other's is slow (it would time out, twice)
    failed = bench(url, "--horizon", "3", "--seeds", "2", "--concurrency", "2", "--timeout", "12",
                   "--http-retries", "1", "--no-progress", cwd=tmp_path)  # fmt: skip
    took = time.monotonic() - model.times[0]
    assert failed.returncode == 3, failed.stderr
    assert failed.stderr.count("\n") == 1 and "answered HTTP 400" in failed.stderr, failed.stderr
    assert "0 episodes finished" in failed.stderr
    assert len(model.requests) == 2  # no call after the failure
    assert took < 6, took  # not 12 s + backoff + 12 s of the slow worker's timeouts


def test_credentials_in_the_base_url_are_refused_before_any_call(tmp_path: Path) -> None:
    done = bench("https://me:hunter2-secret@h.example/v1", "--horizon", "3", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "skillstate: SKILLSTATE_LLM_BASE_URL (or --llm-base-url) must not contain credentials "
        "(user:password@): put credentials in SKILLSTATE_LLM_API_KEY\n"
    )


def test_ctrl_c_keeps_what_is_done(fake: tuple[FakeModel, str], tmp_path: Path) -> None:
    model, url = fake
    model.delay = 0.05
    out = tmp_path / "runs.jsonl"
    command = [
        str(Path(sys.executable).parent / "skillstate"), "bench", "warehouse", "--policy", "llm",
        "--llm-model", "fake-1", "--llm-base-url", url, "--horizon", "4", "--seeds", "20",
        "--out", str(out), "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a shell's background job ignores SIGINT and a child inherits that: Ctrl-C as on a terminal
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.read_text().count("\n") < 2):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    kept = lines(out)  # every line complete
    assert 2 <= len(kept) < 20
    assert f"interrupted; {len(kept)} episodes finished are in" in stderr
    assert "Traceback" not in stderr


def test_concurrency_runs_episodes_in_parallel_against_the_endpoint(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    model.delay = 0.02
    out = tmp_path / "runs.jsonl"
    done = bench(
        url, "--horizon", "4", "--seeds", "6", "--concurrency", "3", "--out", str(out), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert model.max_inflight >= 2
    assert sorted(r["seed"] for r in lines(out)) == list(range(42, 48))
    assert all(r["score"] == 1.0 for r in lines(out))
    progress = [line for line in done.stderr.splitlines() if line.startswith("[bench] ")]
    assert len(progress) == 6 and "calls/s, ETA" in progress[-1]  # llm runs show progress


def test_the_memory_summary_is_written_by_the_model(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    model.then = Answer(content="Action: Wait")
    done = bench(
        url, "--runtime", "memory", "--horizon", "6", "--json", "--no-progress", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["runs"][0]
    assert (
        run["memory_summary"] == "model" and run["summary_calls"] == 2
    )  # turns 0 and 1 scrolled out
    summaries = [r for r in model.requests if r["messages"][0]["content"].startswith("You keep")]
    assert len(summaries) == 2
    last = model.requests[-1]["messages"][0]["content"]
    assert "Summarized History:\nsummary after 1 folded turn(s)" in last


def test_the_memory_summary_calls_count_in_the_report_totals(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    model.then = Answer(content="Action: Wait")
    out = tmp_path / "runs.jsonl"
    done = bench(url, "--runtime", "memory", "--horizon", "6", "--seeds", "2", "--out", str(out),
                 "--no-progress", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    runs = lines(out)
    sent = [r["total_prompt_chars"] + r["summary_prompt_chars"] for r in runs]
    assert all(r["summary_calls"] == 2 and r["summary_prompt_chars"] > 0 for r in runs)
    summaries = [r for r in model.requests if r["messages"][0]["content"].startswith("You keep")]
    assert sum(r["summary_prompt_chars"] for r in runs) == sum(
        len(r["messages"][0]["content"]) for r in summaries
    )  # what was sent for the summaries, exactly
    report = run_command("skillstate", "bench", "report", str(out), "--json", cwd=tmp_path)
    row = json.loads(report.stdout)["summary"][0]
    assert row["sent_prompt_chars"] == sum(sent) / 2 and row["sent_calls"] == 6 + 2
    assert row["total_prompt_chars"] == sum(r["total_prompt_chars"] for r in runs) / 2
    table = run_command("skillstate", "bench", "report", str(out), cwd=tmp_path).stdout
    header, _, first = table.split("Student's t)", 1)[1].splitlines()[1:4]
    assert header.split()[-2:] == ["summary", "calls"]
    cells = dict(
        zip(re.split(r"\s{2,}", header.strip()), re.split(r"\s{2,}", first.strip()), strict=True)
    )
    assert (
        cells["total chars"].startswith(f"{sum(sent) / 2:,.0f} ±") and cells["summary calls"] == "2"
    )


def test_turns_are_written_without_the_reasoning(
    fake: tuple[FakeModel, str], tmp_path: Path
) -> None:
    model, url = fake
    thought = "I ponder the xyzzy plugh at length"
    reply = f'Reasoning: {thought}.\n```json\n{{"state_patch": {{}}, "action": "Wait"}}\n```'
    model.then = Answer(content=reply)
    out = tmp_path / "runs.jsonl"
    done = bench(url, "--horizon", "3", "--out", str(out), "--turns", "--json", "--no-progress",
                 cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    written = out.read_text()
    assert "xyzzy" not in written and "xyzzy" not in done.stdout
    turn = lines(out)[0]["turns"][0]
    assert (
        turn["action"] == "Wait" and turn["patch"] == {} and turn["completion_chars"] == len(reply)
    )
    assert "response" not in turn


def test_report_and_plot_from_the_results_file(fake: tuple[FakeModel, str], tmp_path: Path) -> None:
    _model, url = fake
    out = tmp_path / "runs.jsonl"
    done = bench(
        url, "--horizon", "4,8", "--seeds", "3", "--out", str(out), "--no-progress", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = run_command(
        "skillstate", "bench", "report", str(out), "--csv", str(tmp_path / "s.csv"), cwd=tmp_path
    )
    assert report.returncode == 0, report.stderr
    assert "6 episodes of warehouse" in report.stdout
    assert "95% CI" in report.stdout and "1.00 ±0.00  [1.00, 1.00]" in report.stdout
    rows = list(csv.DictReader((tmp_path / "s.csv").open()))
    assert [(r["runtime"], r["horizon"], r["seeds"]) for r in rows] == [
        ("skill-state", "4", "3"), ("skill-state", "8", "3"),
    ]  # fmt: skip
    plot = run_command(
        "skillstate", "bench", "plot", str(out), "-o", str(tmp_path / "f.png"), cwd=tmp_path
    )
    assert plot.returncode == 0, plot.stderr
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = run_command(
        "skillstate", "bench", "plot", str(out), "-o", str(tmp_path / "f.gif"), cwd=tmp_path
    )
    assert bad.returncode == 2 and "must name a .png or .svg file" in bad.stderr
